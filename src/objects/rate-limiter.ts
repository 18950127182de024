import { DurableObject } from "cloudflare:workers";

/**
 * One instance per credential (or client address): a fixed-window request counter. Only in
 * use when RATE_LIMIT_REQUESTS and RATE_LIMIT_WINDOW_SECONDS are configured. A window opens
 * with the first request after the previous one closed (not at a clock boundary), so a
 * client never gets twice the limit by spreading a burst across the top of the hour.
 */
export class RateLimiter extends DurableObject {
  private windowStart = 0;
  private count = 0;

  /** Counts one request; returns 0 when allowed, else the seconds until the window resets. */
  hit(limit: number, windowSeconds: number, now: number = Date.now()): number {
    const windowMs = windowSeconds * 1000;
    if (now - this.windowStart >= windowMs) {
      this.windowStart = now;
      this.count = 0;
    }
    if (this.count >= limit) return Math.max(1, Math.ceil((this.windowStart + windowMs - now) / 1000));
    this.count++;
    return 0;
  }
}
