/**
 * The live availability of an event (`.../availability/live/`): the current state at once, then
 * every change pushed to every subscriber from the event object; a slow reader gets the latest
 * state, not a backlog; hidden events are 404; many orders at once never oversell and leave
 * every subscriber at the true state.
 */
import { env, exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { anonymous, BASE, type Json } from "../harness";
import { LiveSubscriber, productOf } from "../helpers/live";
import { eventIdOf, ordersOf, type Shop, shop } from "../helpers/sales";

const livePath = (s: Shop, query = "") => `${s.path}/availability/live/${query}`;

async function goLive(s: Shop) {
  const res = await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
}

/** A live event selling `size` units of one ticket that shows what is left. */
async function onSale(size: number) {
  const s = await shop();
  const ticket = await s.item({ show_quota_left: true });
  await s.quota({ size, items: [ticket.id] });
  await goLive(s);
  return { s, ticket };
}

const buy = (s: Shop, item: number) =>
  s.client.post(`${s.path}/orders/`, { payment_provider: "manual", status: "p", positions: [{ item }] });

const left = (item: number) => (data: Json) => productOf(data, item)?.available_number as number | null;

describe("live availability", () => {
  it("sends the current state at once: each product the event page shows, with what is left where it shows it", async () => {
    const s = await shop();
    const day = await s.item({ name: { en: "Day" }, show_quota_left: true });
    const vip = await s.item({ name: { en: "VIP" } });
    const hidden = await s.item({ name: { en: "Hidden" }, hide_without_voucher: true });
    const off = await s.item({ name: { en: "Off" }, active: false });
    const sizes = await s.item({ name: { en: "Shirt" }, variations: [{ value: { en: "S" } }, { value: { en: "M" } }] });
    await s.quota({ size: 3, items: [day.id] });
    await s.quota({ size: 5, items: [vip.id, hidden.id, off.id] });
    await s.quota({ size: 0, items: [sizes.id], variations: [sizes.variations[0].id] });
    await s.quota({ size: 9, items: [sizes.id], variations: [sizes.variations[1].id] });
    await goLive(s);

    const sub = await LiveSubscriber.open(livePath(s));
    expect(sub.response.status).toBe(200);
    expect(sub.response.headers.get("Content-Type")).toMatch(/^text\/event-stream/);
    const first = await sub.next();
    expect(first.event).toBe("availability");
    expect(first.retry).toBe("3000");
    expect(Number(first.id)).toBeGreaterThan(0);
    expect(first.data).toEqual({
      dates: [
        {
          subevent: null,
          best_availability_state: 100,
          products: [
            { item: day.id, variation: null, availability_state: 100, available_number: 3 },
            { item: vip.id, variation: null, availability_state: 100, available_number: null },
            { item: sizes.id, variation: sizes.variations[0].id, availability_state: 0, available_number: null },
            { item: sizes.id, variation: sizes.variations[1].id, availability_state: 100, available_number: null },
          ],
        },
      ],
    });
    // the same state once, as JSON, for clients that poll
    const once = await anonymous.get(livePath(s));
    expect(once.status).toBe(200);
    expect(once.body).toEqual(first.data);
    await sub.close();
  });

  it("pushes a sell-out to every subscriber as state 0, and a cancellation brings the ticket back", async () => {
    const { s, ticket } = await onSale(2);
    const subs = await Promise.all([1, 2, 3].map(() => LiveSubscriber.open(livePath(s))));
    for (const sub of subs) expect(left(ticket.id)((await sub.next()).data)).toBe(2);

    expect((await buy(s, ticket.id)).status).toBe(201);
    const last = await buy(s, ticket.id);
    expect(last.status, JSON.stringify(last.body)).toBe(201);
    for (const sub of subs) {
      const e = await sub.until((d) => productOf(d, ticket.id).availability_state === 0);
      expect(e.data.dates[0]).toEqual({
        subevent: null,
        best_availability_state: 0,
        products: [{ item: ticket.id, variation: null, availability_state: 0, available_number: 0 }],
      });
    }

    const canceled = await s.client.post(`${s.path}/orders/${last.body.code}/mark_canceled/`, { send_email: false });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    for (const sub of subs) {
      const e = await sub.until((d) => productOf(d, ticket.id).availability_state === 100);
      expect(productOf(e.data, ticket.id).available_number).toBe(1);
    }
    await Promise.all(subs.map((sub) => sub.close()));
  });

  it("shows carts as reserved (20) and the ticket back when the cart expires", async () => {
    const { s, ticket } = await onSale(1);
    const sub = await LiveSubscriber.open(livePath(s));
    expect(productOf((await sub.next()).data, ticket.id).availability_state).toBe(100);
    const expires = new Date(Date.now() + 1500).toISOString();
    const cart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00", expires });
    expect(cart.status, JSON.stringify(cart.body)).toBe(201);
    const reserved = await sub.until((d) => productOf(d, ticket.id).availability_state === 20);
    expect(productOf(reserved.data, ticket.id).available_number).toBe(0);
    // nothing is called when a cart expires: the object's own timer pushes the state
    const back = await sub.until((d) => productOf(d, ticket.id).availability_state === 100);
    expect(productOf(back.data, ticket.id).available_number).toBe(1);
    await sub.close();
  });

  it("reports a series per date: every upcoming public date, or the one asked for", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const d1 = await s.subevent({ date_from: "2030-07-01T19:00:00Z" });
    const d2 = await s.subevent({ date_from: "2030-08-01T19:00:00Z" });
    const hiddenDate = await s.subevent({ date_from: "2030-09-01T19:00:00Z", is_public: false });
    await s.quota({ size: 0, items: [ticket.id], subevent: d1.id });
    await s.quota({ size: 4, items: [ticket.id], subevent: d2.id });
    await s.quota({ size: 4, items: [ticket.id], subevent: hiddenDate.id });
    await goLive(s);
    const product = (state: number) => [
      { item: ticket.id, variation: null, availability_state: state, available_number: null },
    ];

    const all = await anonymous.get(livePath(s));
    expect(all.status).toBe(200);
    expect(all.body.dates).toEqual([
      { subevent: d1.id, best_availability_state: 0, products: product(0) },
      { subevent: d2.id, best_availability_state: 100, products: product(100) },
    ]);
    const one = await LiveSubscriber.open(livePath(s, `?subevent=${d2.id}`));
    expect((await one.next()).data).toEqual({
      dates: [{ subevent: d2.id, best_availability_state: 100, products: product(100) }],
    });
    await one.close();

    const hidden = await anonymous.get(livePath(s, `?subevent=${hiddenDate.id}`));
    expect(hidden.status).toBe(400);
    expect(hidden.body).toEqual({ subevent: [`Invalid pk "${hiddenDate.id}" - object does not exist.`] });
  });

  it("is 404 for events customers may not see, and refuses a date on a single event", async () => {
    const draft = await shop();
    await draft.quota({ size: 5, items: [(await draft.item()).id] });
    const notPublic = await onSale(5);
    expect((await notPublic.s.client.patch(`${notPublic.s.path}/`, { is_public: false })).status).toBe(200);
    for (const path of [
      livePath(draft),
      livePath(notPublic.s),
      `/api/v1/organizers/${draft.orgSlug}/events/nosuchevent/availability/live/`,
      "/api/v1/organizers/nosuchorganizer/events/nosuchevent/availability/live/",
    ]) {
      const res = await anonymous.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body).toEqual({ detail: "Not found." });
      const stream = await exports.default.fetch(
        new Request(`${BASE}${path}`, { headers: { Accept: "text/event-stream" } }),
      );
      expect(stream.status).toBe(404);
      expect(stream.headers.get("Content-Type")).toMatch(/^application\/json/);
      expect(await stream.json()).toEqual({ detail: "Not found." });
    }
    const single = await onSale(5);
    const res = await anonymous.get(livePath(single.s, "?subevent=1"));
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ subevent: ["This event is not a series: it has no dates."] });
  });

  it("gives a subscriber that reads slowly the latest state, not a backlog", async () => {
    const changes = 8;
    const { s, ticket } = await onSale(changes + 2);
    const fast = await LiveSubscriber.open(livePath(s));
    const slow = await LiveSubscriber.open(livePath(s));
    expect(left(ticket.id)((await slow.next()).data)).toBe(changes + 2);
    expect(left(ticket.id)((await fast.next()).data)).toBe(changes + 2);
    for (let i = 1; i <= changes; i++) {
      expect((await buy(s, ticket.id)).status).toBe(201);
      // the fast one reads each state as it comes; the slow one reads nothing meanwhile
      await fast.until((d) => left(ticket.id)(d) === changes + 2 - i);
    }
    const before = slow.received;
    const latest = await slow.until((d) => left(ticket.id)(d) === 2);
    expect(productOf(latest.data, ticket.id).availability_state).toBe(100);
    // each order was a state of its own (the fast one saw them all); the slow one is sent the latest
    expect(fast.received).toBe(changes + 1);
    expect(slow.received - before).toBeLessThan(changes / 2);
    await Promise.all([fast.close(), slow.close()]);
  });

  it("many orders at once for the last units while subscribers listen: never oversold, everyone ends at the true state", async () => {
    const { s, ticket } = await onSale(5);
    const subs = await Promise.all([1, 2, 3, 4].map(() => LiveSubscriber.open(livePath(s))));
    for (const sub of subs) await sub.next();
    const results = await Promise.all(Array.from({ length: 20 }, () => buy(s, ticket.id)));
    expect(results.filter((r) => r.status === 201)).toHaveLength(5);
    expect(results.filter((r) => r.status === 400)).toHaveLength(15);
    expect(await ordersOf(await eventIdOf(s))).toHaveLength(5);
    for (const sub of subs) {
      const e = await sub.until((d) => productOf(d, ticket.id).availability_state === 0);
      expect(productOf(e.data, ticket.id).available_number).toBe(0);
    }
    const hub = env.AVAILABILITY_HUB.getByName(String(await eventIdOf(s)));
    expect(await hub.subscriberCount()).toBe(4);
    // subscribers that left are dropped at the next state; then the object stops pushing
    await Promise.all(subs.map((sub) => sub.close()));
    const sold = results.find((r) => r.status === 201)!;
    const canceled = await s.client.post(`${s.path}/orders/${sold.body.code}/mark_canceled/`, { send_email: false });
    expect(canceled.status).toBe(200);
    await expect.poll(() => hub.subscriberCount(), { timeout: 10_000 }).toBe(0);
    // a new subscriber starts again from the current state
    const late = await LiveSubscriber.open(livePath(s));
    expect(productOf((await late.next()).data, ticket.id)).toEqual({
      item: ticket.id,
      variation: null,
      availability_state: 100,
      available_number: 1,
    });
    await late.close();
  });
});
