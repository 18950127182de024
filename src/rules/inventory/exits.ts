/**
 * Tickets whose last scan (on any list) was an exit, per capacity key, with whether their order
 * is paid: a quota with `release_after_exit` counts a paid ticket that left as free again, until
 * it enters again. A ticket follows its order's payment (an order that stops holding counts as
 * unpaid).
 */
import type { Key } from "./catalog";

export class ExitedTickets {
  private byKey = new Map<Key, Map<number, { code: string; paid: boolean }>>();
  /** The exited tickets of each order (to follow its payment). */
  private byOrder = new Map<string, Map<number, Key>>();

  /** Records whether a ticket's last scan was an exit; `paid`: its order is paid now. */
  set(ticketId: number, key: Key, orderCode: string, exited: boolean, paid: boolean): void {
    let m = this.byKey.get(key);
    let ofOrder = this.byOrder.get(orderCode);
    if (exited) {
      if (!m) this.byKey.set(key, (m = new Map()));
      m.set(ticketId, { code: orderCode, paid });
      if (!ofOrder) this.byOrder.set(orderCode, (ofOrder = new Map()));
      ofOrder.set(ticketId, key);
    } else {
      m?.delete(ticketId);
      ofOrder?.delete(ticketId);
      if (ofOrder?.size === 0) this.byOrder.delete(orderCode);
    }
  }

  /** An order's payment changed (or it stopped holding): its exited tickets follow. */
  follow(orderCode: string, paid: boolean): void {
    for (const [ticketId, key] of this.byOrder.get(orderCode) ?? []) {
      const t = this.byKey.get(key)?.get(ticketId);
      if (t) t.paid = paid;
    }
  }

  /** Exited tickets of paid orders under the given capacity keys. */
  paidAmong(keys: Iterable<Key>): number {
    let n = 0;
    for (const k of keys) for (const t of this.byKey.get(k)?.values() ?? []) if (t.paid) n++;
    return n;
  }
}
