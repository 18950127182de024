/**
 * The live availability of one event (one hub per event, named by the event id): it holds the
 * subscribers of `.../availability/live/` and the latest state the event object computed. The
 * object pushes at most one state per short interval, whatever the number of subscribers, and
 * never waits for the hub in a sale; the hub writes each state to every subscriber through the
 * subscriber's own slot (live/slot.ts). docs/live-availability.md.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../lib/env";
import { log } from "../lib/log";
import { eventObject } from "./client";
import { LatestSlot } from "./live/slot";
import { KEEP_ALIVE, type LiveDate, liveEvent, liveView, type LiveSnapshot } from "./live/snapshot";

/** How often subscribers get a keep-alive, and the hub reminds the event object that it listens. */
const KEEP_ALIVE_MS = 20_000;
/** Without subscribers (nobody keeps the state current), a state this old is asked again. */
const FRESH_MS = 1000;

type Subscriber = { slot: LatestSlot; subevent: number | null };

export class AvailabilityHub extends DurableObject<Env> {
  private latest: LiveSnapshot | null = null;
  private latestAt = 0;
  private readonly subscribers = new Set<Subscriber>();
  /** Calls to the event object under way, by whether they ask it to push (`watch`). */
  private readonly asking = new Map<boolean, Promise<LiveSnapshot>>();
  private keepAlive: ReturnType<typeof setInterval> | null = null;

  /** The current state of the event, or of one date (the polling fallback). */
  async snapshot(subevent: number | null): Promise<{ dates: LiveDate[] }> {
    return liveView(await this.current(), subevent);
  }

  /** `GET /subscribe?subevent=`: a stream of server-sent events, the current state first. */
  override async fetch(request: Request): Promise<Response> {
    const raw = new URL(request.url).searchParams.get("subevent");
    const subevent = raw ? Number(raw) : null;
    const snapshot = await this.watched();
    const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
    const writer = writable.getWriter();
    const sub: Subscriber = {
      subevent,
      slot: new LatestSlot(
        (chunk) => writer.write(chunk),
        () => {
          this.subscribers.delete(sub);
          writer.abort().catch(() => {});
          if (this.subscribers.size === 0) this.stopKeepAlive();
        },
      ),
    };
    this.subscribers.add(sub);
    sub.slot.offer(liveEvent(snapshot, subevent, true));
    this.startKeepAlive();
    return new Response(readable, {
      headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store" },
    });
  }

  /**
   * A new state from the event object: kept, and offered to every subscriber (encoded once per
   * date filter). Answers how many listen, so that the object stops pushing when nobody does.
   */
  publish(snapshot: LiveSnapshot): number {
    this.take(snapshot);
    return this.subscribers.size + (this.asking.has(true) ? 1 : 0);
  }

  /** How many subscribers the hub holds (tests, the benchmark). */
  subscriberCount(): number {
    return this.subscribers.size;
  }

  private take(snapshot: LiveSnapshot): void {
    if (this.latest && snapshot.version < this.latest.version) return;
    this.latestAt = Date.now();
    if (this.latest?.version === snapshot.version) return;
    this.latest = snapshot;
    const events = new Map<number | null, Uint8Array>();
    for (const sub of this.subscribers) {
      let chunk = events.get(sub.subevent);
      if (!chunk) events.set(sub.subevent, (chunk = liveEvent(snapshot, sub.subevent, false)));
      sub.slot.offer(chunk);
    }
  }

  /** The current state for a subscriber: the object pushes while anyone listens. */
  private watched(): Promise<LiveSnapshot> {
    if (this.latest && this.subscribers.size > 0) return Promise.resolve(this.latest);
    return this.ask(true);
  }

  /** The current state for a single look: what the hub holds when it is kept current or fresh. */
  private current(): Promise<LiveSnapshot> {
    if (this.latest && (this.subscribers.size > 0 || Date.now() - this.latestAt < FRESH_MS))
      return Promise.resolve(this.latest);
    return this.ask(false);
  }

  /** One call to the event object at a time per kind, shared by whoever arrives meanwhile. */
  private ask(watch: boolean): Promise<LiveSnapshot> {
    let call = this.asking.get(watch);
    if (!call) {
      call = eventObject(this.env, Number(this.ctx.id.name))
        .watchLive(watch)
        .then((s) => {
          this.take(s);
          return this.latest ?? s;
        })
        .finally(() => this.asking.delete(watch));
      this.asking.set(watch, call);
    }
    return call;
  }

  private startKeepAlive(): void {
    this.keepAlive ??= setInterval(() => {
      for (const sub of this.subscribers) sub.slot.offerIfIdle(KEEP_ALIVE);
      // an object that restarted has forgotten that the hub listens
      this.ask(true).catch((e: unknown) => log.error("live availability: event object failed", { error: e }));
    }, KEEP_ALIVE_MS);
  }

  private stopKeepAlive(): void {
    if (this.keepAlive !== null) clearInterval(this.keepAlive);
    this.keepAlive = null;
  }
}
