/** Items that grant a membership: a paid order of a customer creates it, once. */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { memberships } from "../../src/db/schema";
import { db } from "../harness";
import { shop } from "../helpers/sales";

async function setup() {
  const s = await shop();
  const typeRes = await s.client.post(`/api/v1/organizers/${s.orgSlug}/membershiptypes/`, {
    name: { en: "Season pass" },
    transferable: false,
    allow_parallel_usage: false,
    max_usages: 10,
  });
  const customerRes = await s.client.post(`/api/v1/organizers/${s.orgSlug}/customers/`, {
    email: "member@example.org",
    name_parts: { full_name: "Mia Member" },
  });
  expect([typeRes.status, customerRes.status]).toEqual([201, 201]);
  const type = typeRes.body;
  const customer = customerRes.body;
  const pass = await s.item({
    name: { en: "Season pass" },
    default_price: "100.00",
    grant_membership_type: type.id,
    grant_membership_duration_like_event: false,
    grant_membership_duration_months: 12,
  });
  const dayPass = await s.item({
    name: { en: "Event pass" },
    grant_membership_type: type.id,
    grant_membership_duration_like_event: true,
  });
  await s.quota({ size: 10, items: [pass.id, dayPass.id] });
  return { s, type, customer, pass, dayPass };
}

describe("granted memberships", () => {
  it("are created when the order of a customer is paid, once, with the item's duration", async () => {
    const { s, type, customer, pass, dayPass } = await setup();
    const created = await s.client.post(`${s.path}/orders/`, {
      customer: customer.identifier,
      payment_provider: "manual",
      positions: [{ item: pass.id, attendee_name_parts: { full_name: "Mia Member" } }, { item: dayPass.id }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const order = created.body;
    expect(order).toMatchObject({ status: "n", customer: customer.identifier });
    expect(order.positions.map((p: { item: number }) => p.item)).toEqual([pass.id, dayPass.id]);
    expect((await s.client.get(`${s.path}/orders/${order.code}/`)).body.status).toBe("n");
    const list = async () =>
      (await s.client.get(`/api/v1/organizers/${s.orgSlug}/memberships/?customer=${customer.identifier}`)).body.results;
    expect(await list()).toEqual([]);
    const paid = await s.client.post(`${s.path}/orders/${order.code}/mark_paid/`, { send_email: false });
    expect(paid.status).toBe(200);
    const granted = await list();
    expect(granted).toHaveLength(2);
    for (const m of granted)
      expect(m).toMatchObject({ customer: customer.identifier, membership_type: type.id, testmode: false });
    const year = granted.find((m: { date_end: string }) => Date.parse(m.date_end) - Date.now() > 300 * 86400_000);
    expect(year).toBeTruthy();
    const eventPass = granted.find((m: { date_start: string }) => m.date_start === "2030-06-01T19:00:00Z");
    expect(eventPass).toMatchObject({ date_end: "2030-06-01T19:00:00Z" });
    const rows = await db()
      .select()
      .from(memberships)
      .where(
        eq(
          memberships.customerId,
          (await db().query.customers.findFirst({ where: (c, { eq: is }) => is(c.identifier, customer.identifier) }))!
            .id,
        ),
      );
    expect(new Set(rows.map((r) => r.grantedIn)).size).toBe(2);
  });

  it("are created at once for orders created as paid, and never without a customer", async () => {
    const { s, type, customer, pass } = await setup();
    const withCustomer = await s.client.post(`${s.path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      customer: customer.identifier,
      positions: [{ item: pass.id }],
    });
    const anonymous = await s.client.post(`${s.path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      positions: [{ item: pass.id }],
    });
    expect([withCustomer.status, anonymous.status], JSON.stringify([withCustomer.body, anonymous.body])).toEqual([
      201, 201,
    ]);
    expect(withCustomer.body).toMatchObject({ status: "p", customer: customer.identifier });
    expect(anonymous.body).toMatchObject({ status: "p", customer: null });
    const listed = (await s.client.get(`${s.path}/orders/`)).body;
    expect(listed.count).toBe(2);
    expect(listed.results.map((o: { code: string; status: string }) => [o.code, o.status]).sort()).toEqual(
      [
        [withCustomer.body.code, "p"],
        [anonymous.body.code, "p"],
      ].sort(),
    );
    const all = (await s.client.get(`/api/v1/organizers/${s.orgSlug}/memberships/`)).body;
    expect(all.count).toBe(1);
    expect(all.results[0]).toMatchObject({ customer: customer.identifier, membership_type: type.id });
  });
});
