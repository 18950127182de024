/**
 * Rate limiting per credential (Authorization header) or, without one, per client address.
 * Thresholds come from configuration (RATE_LIMIT_REQUESTS per RATE_LIMIT_WINDOW_SECONDS);
 * without them nothing is limited. Over the limit: 429 with Retry-After.
 */
import type { MiddlewareHandler } from "hono";
import { readConfig } from "../lib/env";
import { sha256Hex } from "../lib/crypto";
import type { AppEnv } from "./context";
import { Failure } from "../lib/failure";

export function rateLimit(): MiddlewareHandler<AppEnv> {
  return async function rateLimit(c, next) {
    const limit = readConfig(c.env).rateLimit;
    if (!limit) return next();
    const auth = c.req.header("Authorization");
    const subject = auth ? `auth:${await sha256Hex(auth)}` : `ip:${c.req.header("CF-Connecting-IP") ?? "unknown"}`;
    const wait = await c.env.RATE_LIMITER.getByName(subject).hit(limit.requests, limit.windowSeconds);
    if (wait > 0) {
      throw new Failure("rate_limited", `Request was throttled. Expected available in ${wait} seconds.`, {
        params: { retryAfter: wait },
      });
    }
    await next();
  };
}
