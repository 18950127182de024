/**
 * pretix's API test fixtures that both the cart and the order creation tests take: another event
 * of the same organizer with its own item, date, question and tax rule, and a seating plan.
 */
import { expect } from "vitest";
import type { Json } from "../harness";
import type { Shop } from "./sales";

/** Another event of the same organizer, with an item, a date, a question and a tax rule of its own. */
export async function otherEvent(s: Shop) {
  const slug = `other${Math.floor(Math.random() * 1e9)}`;
  const created = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
    name: { en: "Other" },
    slug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
    has_subevents: true,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const path = `/api/v1/organizers/${s.orgSlug}/events/${slug}`;
  const post = async (p: string, body: unknown) => {
    const r = await s.client.post(`${path}${p}`, body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body as Json;
  };
  const item = await post("/items/", { name: { en: "Budget Ticket" }, default_price: "23.00" });
  const date = await post("/subevents/", { name: { en: "Date" }, date_from: "2030-07-01T19:00:00Z", active: true });
  const question = await post("/questions/", { question: { en: "T-Shirt size" }, type: "S", items: [item.id] });
  const taxRule = await post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
  return { item, date, question, taxRule };
}

/** A seating plan with the seats "A1" and "A2" (named "Seat A1", as pretix names it) for the item. */
export async function seated(s: Shop, itemId: number) {
  const plan = await s.client.post(`/api/v1/organizers/${s.orgSlug}/seatingplans/`, {
    name: "Plan",
    layout: {
      categories: [{ name: "Stalls" }],
      zones: [
        {
          rows: [
            {
              row_number: "",
              seats: [
                { seat_guid: "A1", seat_number: "A1", category: "Stalls" },
                { seat_guid: "A2", seat_number: "A2", category: "Stalls" },
              ],
            },
          ],
        },
      ],
    },
  });
  expect(plan.status, JSON.stringify(plan.body)).toBe(201);
  const patched = await s.client.patch(`${s.path}/`, {
    seating_plan: plan.body.id,
    seat_category_mapping: { Stalls: itemId },
  });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
}
