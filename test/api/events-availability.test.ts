/** with_availability_for on events and dates: best_availability_state from the event object. */
import { describe, expect, it } from "vitest";
import { shop } from "../helpers/sales";

const stateOf = async (s: Awaited<ReturnType<typeof shop>>, path: string) => {
  const res = await s.client.get(path);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as { slug?: string; id?: number; best_availability_state: number | null }[];
};

describe("best_availability_state", () => {
  it("is absent without the parameter and 100 / 20 / 10 / 0 as capacity goes", async () => {
    const s = await shop();
    const ticket = await s.item();
    const q = await s.quota({ size: 1, items: [ticket.id] });
    const eventsUrl = `/api/v1/organizers/${s.orgSlug}/events/`;
    const plain = await s.client.get(eventsUrl);
    expect(plain.body.results[0]).not.toHaveProperty("best_availability_state");
    const url = `${eventsUrl}?with_availability_for=web`;
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(100);
    const cart = await s.client.post(`${s.path}/cartpositions/`, { item: ticket.id, price: "1.00" });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(20);
    await s.client.delete(`${s.path}/cartpositions/${cart.body.id}/`);
    const order = await s.client.post(`${s.path}/orders/`, {
      payment_provider: "manual",
      positions: [{ item: ticket.id }],
    });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(10);
    await s.client.post(`${s.path}/orders/${order.body.code}/mark_paid/`, { send_email: false });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(0);
    await s.client.patch(`${s.path}/quotas/${q.id}/`, { size: 5 });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(100);
  });

  it("is null when nothing is on sale on the channel, and the best product counts", async () => {
    const s = await shop();
    const url = `/api/v1/organizers/${s.orgSlug}/events/?with_availability_for=web`;
    expect((await stateOf(s, url))[0]!.best_availability_state).toBeNull();
    const boxOffice = await s.item({ sales_channels: ["pretixpos"] });
    await s.quota({ size: 5, items: [boxOffice.id] });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBeNull();
    expect(
      (await stateOf(s, `/api/v1/organizers/${s.orgSlug}/events/?with_availability_for=pretixpos`))[0]!
        .best_availability_state,
    ).toBe(100);
    const soldOut = await s.item({ name: { en: "Gone" } });
    await s.quota({ size: 0, items: [soldOut.id] });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(0);
    // a product whose only quota is ignored for the event's availability does not count
    const fine = await s.item({ name: { en: "Fine" } });
    await s.quota({ size: 3, items: [fine.id], ignore_for_event_availability: true });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(0);
    await s.quota({ size: 3, items: [fine.id] });
    expect((await stateOf(s, url))[0]!.best_availability_state).toBe(100);
  });

  it("rejects unknown channels", async () => {
    const s = await shop();
    const res = await s.client.get(`/api/v1/organizers/${s.orgSlug}/events/?with_availability_for=moon`);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ with_availability_for: ['"moon" is not a valid sales channel.'] });
  });

  it("is computed per date for sub-events and over the open dates for a series", async () => {
    const s = await shop({ series: true });
    const ticket = await s.item();
    const d1 = await s.subevent();
    const d2 = await s.subevent({ date_from: "2030-08-01T19:00:00Z" });
    await s.quota({ size: 0, items: [ticket.id], subevent: d1.id });
    await s.quota({ size: 2, items: [ticket.id], subevent: d2.id });
    const dates = await stateOf(s, `${s.path}/subevents/?with_availability_for=web`);
    expect(Object.fromEntries(dates.map((d) => [d.id, d.best_availability_state]))).toEqual({
      [d1.id]: 0,
      [d2.id]: 100,
    });
    const all = await stateOf(s, `/api/v1/organizers/${s.orgSlug}/subevents/?with_availability_for=web`);
    expect(Object.fromEntries(all.map((d) => [d.id, d.best_availability_state]))).toEqual({ [d1.id]: 0, [d2.id]: 100 });
    const events = await stateOf(s, `/api/v1/organizers/${s.orgSlug}/events/?with_availability_for=web`);
    expect(events[0]!.best_availability_state).toBe(100);
  });
});
