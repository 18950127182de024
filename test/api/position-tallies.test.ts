/**
 * The totals of a check-in list's tickets come from position_tallies (migration 0016: tallies
 * of the positions not canceled per event, product, date and order status, kept by triggers).
 * Every way a ticket enters or leaves a list (orders created pending or paid, paid, canceled,
 * expired, at once) keeps the lists' `count` and `position_count` equal to the tickets they
 * page through, and the tallies equal to a count of the positions.
 */
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { Json } from "../harness";
import { type Venue, venue } from "../helpers/checkin";

type Tally = { event_id: number; item_id: number; subevent_id: number; order_status: string; n: number };

/** The event's tallies (rows of 0 left out) and what counting its positions gives. */
async function tallies(eventId: number): Promise<{ kept: Tally[]; counted: Tally[] }> {
  const kept = await env.DB_2.prepare(
    "SELECT event_id, item_id, subevent_id, order_status, n FROM position_tallies WHERE event_id = ? AND n <> 0 ORDER BY item_id, subevent_id, order_status",
  )
    .bind(eventId)
    .all<Tally>();
  const counted = await env.DB_2.prepare(
    `SELECT event_id, item_id, coalesce(subevent_id, 0) AS subevent_id, order_status, count(*) AS n FROM order_positions
     WHERE event_id = ? AND canceled = 0 GROUP BY item_id, coalesce(subevent_id, 0), order_status ORDER BY item_id, subevent_id, order_status`,
  )
    .bind(eventId)
    .all<Tally>();
  return { kept: kept.results, counted: counted.results };
}

/** A list's total, its `position_count`, and the ids of every ticket it pages through (pages of 7). */
async function listed(v: Venue, listId: number) {
  const base = `${v.path}/checkinlists/${listId}`;
  const ids: number[] = [];
  let count = -1;
  for (let page = 1; ; page++) {
    const r = await v.client.get(`${base}/positions/?page_size=7&page=${page}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    count = r.body.count;
    ids.push(...r.body.results.map((p: Json) => p.id));
    if (!r.body.next) break;
  }
  const detail = await v.client.get(`${base}/`);
  return { count, positionCount: detail.body.position_count as number, ids: ids.sort((a, b) => a - b) };
}

const positionIds = (orders: Json[]) =>
  orders.flatMap((o) => o.positions.map((p: Json) => p.id as number)).sort((a: number, b: number) => a - b);

describe("check-in list totals from the tallies", () => {
  it("follow every change of the tickets' orders, also when many happen at once", async () => {
    const v = await venue();
    const shirt = await v.item({ name: { en: "Shirt" }, admission: false });
    await v.quota({ size: 1000, items: [shirt.id] });
    const everything = await v.list({ name: "All, paid" });
    const pendingToo = await v.list({ name: "All, pending too", include_pending: true });
    const shirts = await v.list({ name: "Shirts", all_products: false, limit_products: [shirt.id] });
    const positions = [{ item: v.ticket.id }, { item: v.ticket.id }, { item: shirt.id }];

    // twelve orders created at once: six paid, six pending
    const created = await Promise.all(
      Array.from({ length: 12 }, (_, i) => v.order({ status: i % 2 ? "n" : "p", positions })),
    );
    const paid = created.filter((o) => o.status === "p");
    const pending = created.filter((o) => o.status === "n");
    const check = async (expectPaid: Json[], expectPending: Json[]) => {
      const all = await listed(v, everything.id);
      expect(all).toEqual({ count: all.ids.length, positionCount: all.ids.length, ids: positionIds(expectPaid) });
      const withPending = await listed(v, pendingToo.id);
      expect(withPending.ids).toEqual(positionIds([...expectPaid, ...expectPending]));
      expect([withPending.count, withPending.positionCount]).toEqual([withPending.ids.length, withPending.ids.length]);
      const onlyShirts = await listed(v, shirts.id);
      const shirtIds = expectPaid.flatMap((o) =>
        o.positions.filter((p: Json) => p.item === shirt.id).map((p: Json) => p.id as number),
      );
      expect(onlyShirts).toEqual({
        count: shirtIds.length,
        positionCount: shirtIds.length,
        ids: shirtIds.sort((a, b) => a - b),
      });
      const t = await tallies(v.eventId);
      expect(t.kept).toEqual(t.counted);
    };
    await check(paid, pending);
    expect((await listed(v, everything.id)).count).toBe(18);

    // at once: three pending orders paid, two paid orders canceled, two pending canceled, one pending expired
    const [toPay, toCancelPaid, toCancelPending, toExpire] = [
      pending.slice(0, 3),
      paid.slice(0, 2),
      pending.slice(3, 5),
      pending.slice(5, 6),
    ];
    const results = await Promise.all([
      ...toPay.map((o) => v.client.post(`${v.path}/orders/${o.code}/mark_paid/`, {})),
      ...[...toCancelPaid, ...toCancelPending].map((o) =>
        v.client.post(`${v.path}/orders/${o.code}/mark_canceled/`, {}),
      ),
      ...toExpire.map((o) => v.client.post(`${v.path}/orders/${o.code}/mark_expired/`, {})),
    ]);
    for (const r of results) expect(r.status, JSON.stringify(r.body)).toBe(200);
    const nowPaid = [...paid.slice(2), ...toPay];
    await check(nowPaid, []);
    expect((await listed(v, everything.id)).count).toBe(7 * 3);

    // a refused change (paying a canceled order) changes no total
    expect((await v.client.post(`${v.path}/orders/${toCancelPaid[0].code}/mark_paid/`, {})).status).toBe(400);
    await check(nowPaid, []);
  });

  it("count a dated list's tickets by its date, and a list's products as they change", async () => {
    const v = await venue({ series: true });
    const [first, second] = [await v.subevent({ name: { en: "First" } }), await v.subevent({ name: { en: "Second" } })];
    for (const d of [first, second]) await v.quota({ size: 100, items: [v.ticket.id], subevent: d.id });
    const onFirst = await v.list({ name: "First date", subevent: first.id });
    const orders = await Promise.all(
      [first, first, second, first, second].map((d) => v.order({ positions: [{ item: v.ticket.id, subevent: d.id }] })),
    );
    const firstIds = positionIds(orders.filter((o) => o.positions[0].subevent === first.id));
    expect(await listed(v, onFirst.id)).toEqual({ count: 3, positionCount: 3, ids: firstIds });

    // limited to a product nobody bought: no tickets; back to all products: all of them again
    const other = await v.item({ name: { en: "Other" } });
    expect(
      (
        await v.client.patch(`${v.path}/checkinlists/${onFirst.id}/`, {
          all_products: false,
          limit_products: [other.id],
        })
      ).status,
    ).toBe(200);
    expect(await listed(v, onFirst.id)).toEqual({ count: 0, positionCount: 0, ids: [] });
    expect(
      (await v.client.patch(`${v.path}/checkinlists/${onFirst.id}/`, { all_products: true, subevent: null })).status,
    ).toBe(200);
    expect(await listed(v, onFirst.id)).toEqual({ count: 5, positionCount: 5, ids: positionIds(orders) });
    const t = await tallies(v.eventId);
    expect(t.kept).toEqual(t.counted);
    expect(t.kept.map((r) => [r.subevent_id, r.n])).toEqual([
      [first.id, 3],
      [second.id, 2],
    ]);
  });

  it("filtered requests still count the tickets that match (not the list's tally)", async () => {
    const v = await venue();
    const list = await v.list();
    const orders = await Promise.all(Array.from({ length: 4 }, () => v.order()));
    const one = orders[2].positions[0];
    const r = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?secret=${one.secret}`);
    expect(r.body.count).toBe(1);
    expect(r.body.results.map((p: Json) => p.id)).toEqual([one.id]);
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?has_checkin=true`)).body.count).toBe(0);
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/positions/`)).body.count).toBe(4);
  });
});
