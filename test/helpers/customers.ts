/** Seeding and reading helpers for the gift card, customer and membership tests. */
import { eq } from "drizzle-orm";
import {
  customers,
  giftCardAcceptances,
  giftCards,
  giftCardTransactions,
  mailOutbox,
  membershipTypes,
  orders,
} from "../../src/db/schema";
import { expect } from "vitest";
import { type Client, db, seedOrderRow, type seedOrganizer, unique } from "../harness";

type Org = Awaited<ReturnType<typeof seedOrganizer>>;

/** The gift cards of an organizer (no trailing slash). */
export const cardsOf = (org: Org) => `/api/v1/organizers/${org.slug}/giftcards`;

/** A gift card created through the API (201): a fresh secret, 10.00 EUR unless `body` says otherwise. */
export async function createCard(org: Org, body: Record<string, unknown> = {}, client: Client = org.client) {
  const res = await client.post(`${cardsOf(org)}/`, {
    secret: unique("GC").toUpperCase(),
    currency: "EUR",
    value: "10.00",
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; secret: string; value: string; [k: string]: unknown };
}

/** A membership type straight in D1 (its API belongs to another area). */
export async function seedMembershipType(organizerId: number, name = "Season pass") {
  const [row] = await db()
    .insert(membershipTypes)
    .values({ organizerId, name: { en: name } })
    .returning();
  return row!;
}

/** A minimal order row straight in D1 (order creation is another area). */
export async function seedOrder(eventId: number, customerId: number | null) {
  return seedOrderRow(eventId, { customerId });
}

/** An acceptance connection straight in D1. */
export async function seedAcceptance(issuerId: number, acceptorId: number, active = true) {
  await db().insert(giftCardAcceptances).values({ issuerId, acceptorId, active, createdAt: Date.now() });
}

export async function customerRow(identifier: string) {
  return db().select().from(customers).where(eq(customers.identifier, identifier)).get();
}

export async function orderRow(id: number) {
  return db().select().from(orders).where(eq(orders.id, id)).get();
}

export async function cardRow(id: number) {
  return db().select().from(giftCards).where(eq(giftCards.id, id)).get();
}

export async function cardTransactions(cardId: number) {
  return db().select().from(giftCardTransactions).where(eq(giftCardTransactions.cardId, cardId));
}

export async function giftCardCount(issuerId: number) {
  return (await db().select({ id: giftCards.id }).from(giftCards).where(eq(giftCards.issuerId, issuerId))).length;
}

export async function mailsTo(address: string) {
  return db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, address));
}
