/**
 * Live availability, the event object's side: while a hub listens (`watch`), every change of
 * what the ledger counts marks the state dirty, and at most one state per PUSH_INTERVAL_MS is
 * computed — synchronously, from the ledger, after the change was decided — and pushed to the
 * event's hub. A sale never waits for the hub and never fails with it: the push runs on its own
 * timer and a failed one is logged and retried at the next change. Carts that expire change
 * the state by themselves: a push is due then too.
 */
import { eventShowcase, type ShowcaseProduct } from "../../db/storefront";
import { log } from "../../lib/log";
import type { LiveDate, LiveProduct, LiveSnapshot } from "../live/snapshot";
import type { EventState } from "./state";

/** The shortest time between two pushes: changes within it go out together, as one state. */
export const PUSH_INTERVAL_MS = 250;
/** What the event page shows is read again when the catalog changed, or when it is this old. */
const SHOWCASE_MAX_AGE_MS = 60_000;

type Showcase = { dates: (number | null)[]; products: ShowcaseProduct[]; stamp: number; readAt: number };

export class LiveAvailability {
  private watching = false;
  private showcase: Showcase | null = null;
  private showcaseLoad: Promise<void> | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  private pushing = false;
  private again = false;
  private lastPushAt = 0;
  /** The last state computed (its dates as JSON) and its version: an unchanged state keeps it. */
  private last: { body: string; version: number } | null = null;
  /** The highest version handed out (kept when `last` is dropped after a failed push). */
  private lastVersion = 0;

  constructor(private readonly s: EventState) {}

  /** The hub asks for the current state; with `watch`, the object pushes every change from now on. */
  async watch(watch: boolean): Promise<LiveSnapshot> {
    if (watch) this.watching = true;
    await this.ensureShowcase();
    return this.snapshot();
  }

  /** Something the state depends on may have changed: a push is due within the interval. */
  changed(): void {
    if (!this.watching) return;
    this.schedule(Math.max(Date.now(), this.lastPushAt + PUSH_INTERVAL_MS));
  }

  private schedule(at: number): void {
    if (this.timer !== null && this.timerAt <= at) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.push();
    }, at - Date.now());
  }

  private async push(): Promise<void> {
    // a timer set for a cart's expiry may outlive the last subscriber
    if (!this.watching) return;
    if (this.pushing) {
      this.again = true;
      return;
    }
    this.pushing = true;
    this.lastPushAt = Date.now();
    const before = this.last?.version;
    try {
      await this.ensureShowcase();
      const snapshot = this.snapshot();
      if (snapshot.version !== before) {
        const listening = await this.s.env.AVAILABILITY_HUB.getByName(String(this.s.eventId)).publish(snapshot);
        if (listening === 0) this.watching = false;
      }
    } catch (e) {
      // the next change pushes again: the hub then takes the state it missed
      this.last = null;
      log.error("live availability: push failed", { event_id: this.s.eventId, error: e });
    } finally {
      this.pushing = false;
    }
    if (this.again) {
      this.again = false;
      this.changed();
    }
    const expiry = this.s.ledger.nextCartExpiryAfter(Date.now());
    if (this.watching && expiry !== null) this.schedule(expiry + 1);
  }

  private async ensureShowcase(): Promise<void> {
    const sc = this.showcase;
    if (sc && sc.stamp >= this.s.ledger.stamp && Date.now() - sc.readAt < SHOWCASE_MAX_AGE_MS) return;
    this.showcaseLoad ??= (async () => {
      const stamp = this.s.ledger.stamp;
      const now = Date.now();
      const read = await eventShowcase(this.s.db(), this.s.eventId, now);
      this.showcase = { ...read, stamp, readAt: now };
    })().finally(() => (this.showcaseLoad = null));
    await this.showcaseLoad;
  }

  /** The state now, from the ledger, without yielding; the version grows only when it changed. */
  private snapshot(): LiveSnapshot {
    const now = Date.now();
    const ledger = this.s.ledger;
    const sc = this.showcase ?? { dates: [], products: [] };
    const dates: LiveDate[] = sc.dates.map((subevent) => {
      const products: LiveProduct[] = [];
      let best: number | null = null;
      for (const p of sc.products) {
        if (subevent !== null && p.disabledOn.has(subevent)) continue;
        const d = { itemId: p.item, variationId: p.variation, subeventId: subevent };
        const a = ledger.productAvailability(d, now);
        if (!a) continue;
        products.push({
          item: p.item,
          variation: p.variation,
          availability_state: a.state,
          available_number: p.showQuotaLeft ? a.left : null,
        });
        // the event's best state counts what can be bought without a voucher (with_availability_for)
        const counted = p.requireVoucher ? null : ledger.demandState(d, now);
        if (counted !== null) best = Math.max(best ?? counted, counted);
      }
      return { subevent, best_availability_state: best, products };
    });
    const body = JSON.stringify(dates);
    if (this.last?.body !== body)
      this.last = { body, version: Math.max(now, (this.last?.version ?? 0) + 1, this.lastVersion + 1) };
    this.lastVersion = this.last.version;
    return { version: this.last.version, dates };
  }
}
