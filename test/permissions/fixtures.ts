/**
 * Real objects for the permission matrix's allowed rows: each row's `setup` creates, with the
 * organizer's administrator, what its call acts on (so an allowed call succeeds with a 2xx
 * instead of answering 404 or 400), and the body a valid request sends.
 */
import { expect } from "vitest";
import { eq } from "drizzle-orm";
import { giftCardAcceptances, invoices, orders, teamMembers, users } from "../../src/db/schema";
import { BASE, db, type Json, seedOrganizer, unique } from "../harness";
import { deliver, seedFonts } from "../helpers/documents";
import {
  deliver as deliverToStripeEndpoint,
  lastEvent,
  newSecretKey,
  newWebhookSecret,
  openPaymentPage,
  payAtStripe,
  signature,
  type StripeShop,
  stripeAs,
} from "../helpers/stripe";
import type { RowSetup, SetupWorld } from "./types";

export type { RowSetup, SetupWorld };

/** POSTs with the administrator and expects a 201; returns the body. */
export async function create(w: SetupWorld, path: string, body: unknown): Promise<Json> {
  const res = await w.admin.post(`${path}/`, body);
  expect(res.status, `setup POST ${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body;
}

export const id = (o: { id: number | string }) => String(o.id);

// ---------------------------------------------------------------- events

export function eventBody() {
  return { name: { en: "Event" }, slug: unique("ev"), currency: "EUR", date_from: "2030-06-01T19:00:00Z" };
}

/** A world on another event of the organizer: an event series (for sub-events). */
export async function seriesWorld(w: SetupWorld): Promise<SetupWorld> {
  const ev = await create(w, `${w.org}/events`, { ...eventBody(), has_subevents: true });
  return { ...w, eventSlug: ev.slug, ev: `${w.org}/events/${ev.slug}` };
}

export const subeventBody = () => ({ name: { en: "Date" }, date_from: "2030-07-01T19:00:00Z" });

export const metaPropertyBody = () => ({ name: unique("Prop") });

// ---------------------------------------------------------------- catalog

export const itemBody = () => ({ name: { en: unique("Ticket ") }, default_price: "10.00" });

export async function item(w: SetupWorld, extra: Record<string, unknown> = {}): Promise<Json> {
  return create(w, `${w.ev}/items`, { ...itemBody(), ...extra });
}

/** An item with a quota of 100: it can be sold and put into carts. */
export async function saleableItem(w: SetupWorld): Promise<Json> {
  const it = await item(w);
  await create(w, `${w.ev}/quotas`, { name: unique("Quota "), size: 100, items: [it.id] });
  return it;
}

export async function addonCategory(w: SetupWorld): Promise<Json> {
  return create(w, `${w.ev}/categories`, { name: { en: unique("Extras ") }, is_addon: true });
}

export const taxRuleBody = () => ({ name: { en: "VAT" }, rate: "19.00" });
export const questionBody = () => ({ question: { en: unique("Question ") }, type: "T" });
export const optionBody = () => ({ answer: { en: unique("Answer ") } });
export const discountBody = () => ({
  internal_name: unique("Discount "),
  condition_min_count: 3,
  benefit_discount_matching_percent: "100.00",
  benefit_only_apply_to_cheapest_n_matches: 1,
});
export const sendmailRuleBody = () => ({
  subject: { en: "See you tomorrow!" },
  template: { en: "Your tickets: {url}" },
  date_is_absolute: false,
  send_offset_days: 1,
  send_offset_time: "18:00",
});
export const ticketLayoutBody = () => ({ name: unique("Layout ") });
export const categoryBody = () => ({ name: { en: unique("Category ") } });
export const membershipTypeBody = () => ({ name: { en: unique("Pass ") } });
export const quotaBody = () => ({ name: unique("Quota "), size: 10 });
export const seatingPlanBody = () => ({
  name: unique("Plan "),
  layout: {
    categories: [{ name: "Stalls" }],
    zones: [
      { name: "Main", rows: [{ row_number: "1", seats: [{ seat_guid: "s1", seat_number: "1", category: "Stalls" }] }] },
    ],
  },
});

// ---------------------------------------------------------------- selling

export const voucherBody = () => ({ code: unique("V").toUpperCase() });

/** A pending order of one position with an open manual payment (local id 1). */
export async function pendingOrder(w: SetupWorld): Promise<Json> {
  const it = await saleableItem(w);
  const order = await create(w, `${w.ev}/orders`, {
    email: "buyer@example.org",
    payment_provider: "manual",
    positions: [{ item: it.id }],
  });
  expect(order.status).toBe("n");
  expect(order.payments).toHaveLength(1);
  return order;
}

/** A paid order of one admission ticket; answers the order (its position is the ticket). */
export async function paidOrder(w: SetupWorld): Promise<Json> {
  const order = await pendingOrder(w);
  const res = await w.admin.post(`${w.ev}/orders/${order.code}/mark_paid/`, { send_email: false });
  expect(res.status, `setup mark_paid: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

/** The Stripe keys set on an organizer by `stripeReady` (once per organizer). */
const stripeKeysOf = new Map<number, { secretKey: string; webhookSecret: string }>();

/** The organizer takes card payments (keys set once) and the event has the Stripe plugin. */
export async function stripeReady(w: SetupWorld): Promise<StripeShop> {
  let keys = stripeKeysOf.get(w.orgId);
  if (!keys) {
    keys = { secretKey: newSecretKey(), webhookSecret: newWebhookSecret() };
    const res = await w.admin.patch(`${w.org}/settings/`, {
      payment_stripe_secret_key: keys.secretKey,
      payment_stripe_webhook_secret: keys.webhookSecret,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    stripeKeysOf.set(w.orgId, keys);
  }
  const ev = await w.admin.patch(`${w.ev}/`, { plugins: ["pretix.plugins.stripe"] });
  expect(ev.status, JSON.stringify(ev.body)).toBe(200);
  return {
    ...keys,
    webhookUrl: `${BASE}${w.org}/stripe/webhook/`,
    stripe: stripeAs(keys.secretKey),
  } as StripeShop;
}

/** An order paid by card through Stripe's checkout and webhook; answers the order. */
export async function stripePaidOrder(w: SetupWorld): Promise<Json> {
  const s = await stripeReady(w);
  const it = await saleableItem(w);
  const order = await create(w, `${w.ev}/orders`, { payment_provider: "stripe", positions: [{ item: it.id }] });
  await payAtStripe((await openPaymentPage(order.payments[0].payment_url)).location!);
  const delivered = await deliverToStripeEndpoint(s, await lastEvent(s, "checkout.session.completed"));
  expect(delivered.status).toBe(200);
  return order;
}

/** A signed delivery of an event of no interest to the organizer's Stripe webhook endpoint. */
export async function stripeWebhookDelivery(w: SetupWorld): Promise<{ body: string; headers: Record<string, string> }> {
  const { webhookSecret } = await stripeReady(w);
  const body = JSON.stringify({
    id: unique("evt_test_"),
    object: "event",
    type: "customer.created",
    data: { object: { id: "cus_test" } },
  });
  return {
    body,
    headers: { "Content-Type": "application/json", "Stripe-Signature": await signature(body, webhookSecret) },
  };
}

export const checkinListBody = () => ({ name: unique("Entrance "), all_products: true });

export async function cartPosition(w: SetupWorld): Promise<Json> {
  const it = await saleableItem(w);
  return create(w, `${w.ev}/cartpositions`, { item: it.id, price: "1.00" });
}

// ---------------------------------------------------------------- organizer level

export const giftCardBody = () => ({ secret: unique("GC").toUpperCase(), currency: "EUR", value: "10.00" });

export async function customer(w: SetupWorld): Promise<Json> {
  return create(w, `${w.org}/customers`, { email: `${unique("c")}@example.org` });
}

export async function membershipBody(w: SetupWorld): Promise<Record<string, unknown>> {
  const type = await create(w, `${w.org}/membershiptypes`, membershipTypeBody());
  const c = await customer(w);
  return {
    membership_type: type.id,
    customer: c.identifier,
    date_start: "2030-01-01T00:00:00Z",
    date_end: "2030-12-31T00:00:00Z",
  };
}

/** Another organizer (for gift card acceptance between organizers). */
export async function otherOrganizer() {
  return seedOrganizer();
}

export async function acceptance(issuerId: number, acceptorId: number) {
  await db().insert(giftCardAcceptances).values({ issuerId, acceptorId, active: false, createdAt: Date.now() });
}

export async function team(w: SetupWorld): Promise<Json> {
  return create(w, `${w.org}/teams`, { name: unique("Team ") });
}

/** A user who is a member of the team (members join through invite pages: seeded in D1). */
export async function member(teamId: number): Promise<number> {
  const [u] = await db()
    .insert(users)
    .values({ email: `${unique("m")}@example.org`, fullname: "Member", createdAt: Date.now() })
    .returning();
  await db().insert(teamMembers).values({ teamId, userId: u!.id });
  return u!.id;
}

// ---------------------------------------------------------------- documents

let fontsSeeded: Promise<void> | undefined;

/** Renders a ticket file as the documents queue does (fonts put into R2 once), so its download answers 200. */
export async function renderedTickets(order: Json, positionId: number | null): Promise<void> {
  await (fontsSeeded ??= seedFonts());
  const row = await db().select({ eventId: orders.eventId }).from(orders).where(eq(orders.code, order.code)).get();
  await deliver([{ kind: "ticket-pdf", eventId: row!.eventId, code: order.code, positionId }]);
}

/**
 * A world on a new event whose settings say `invoice_generate` (its own event, so the world's
 * event keeps its settings), and a pending order on it.
 */
export async function invoicingWorld(w: SetupWorld, mode: string): Promise<{ w: SetupWorld; order: Json }> {
  const ev = await create(w, `${w.org}/events`, eventBody());
  const own: SetupWorld = { ...w, eventSlug: ev.slug, ev: `${w.org}/events/${ev.slug}` };
  const res = await w.admin.patch(`${own.ev}/settings/`, { invoice_generate: mode });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { w: own, order: await pendingOrder(own) };
}

/** An event with an invoice (created with its order); `rendered`: its PDF rendered as the documents queue does. */
export async function invoice(w: SetupWorld, rendered = false): Promise<{ event: string; number: string }> {
  const { w: own } = await invoicingWorld(w, "True");
  const res = await w.admin.get(`${own.ev}/invoices/`);
  expect(res.body.results, JSON.stringify(res.body)).toHaveLength(1);
  const number = res.body.results[0].number as string;
  if (rendered) {
    await (fontsSeeded ??= seedFonts());
    const row = await db()
      .select({ id: invoices.id, version: invoices.version })
      .from(invoices)
      .where(eq(invoices.number, number))
      .get();
    await deliver([{ kind: "invoice-pdf", invoiceId: row!.id, version: row!.version }]);
  }
  return { event: own.eventSlug, number };
}
