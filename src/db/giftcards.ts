/**
 * Gift cards, their transactions and acceptance between organizers. Every query takes the calling
 * organizer: a card is reachable when that organizer issued it, or (with `includeAccepted`) when its
 * issuer has an active acceptance for the caller. Balance changes are conditional batches (`transact`).
 */
import { and, asc, eq, type SQL, sql } from "drizzle-orm";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { events, giftCardAcceptances, giftCardTransactions, giftCards, orders, organizers } from "./schema";
import { organizerSettingsQuery, settingsOf } from "./settings";

/** Largest balance and largest single amount: 13 digits, two of them decimals (pretix). */
export const MAX_GIFT_CARD_VALUE = 99_999_999_999_99;

export type GiftCardRow = typeof giftCards.$inferSelect;
export type GiftCardValues = Pick<
  typeof giftCards.$inferInsert,
  "secret" | "currency" | "testmode" | "expires" | "conditions"
>;

/** Issuers whose cards `organizerId` accepts (active acceptances only). */
function acceptedIssuers(organizerId: number) {
  return sql`(SELECT ${giftCardAcceptances.issuerId} FROM ${giftCardAcceptances} WHERE ${giftCardAcceptances.acceptorId} = ${organizerId} AND ${giftCardAcceptances.active} = 1)`;
}

function visible(organizerId: number, includeAccepted: boolean): SQL {
  return includeAccepted
    ? sql`(${giftCards.issuerId} = ${organizerId} OR ${giftCards.issuerId} IN ${acceptedIssuers(organizerId)})`
    : eq(giftCards.issuerId, organizerId);
}

export type GiftCardFilters = { includeAccepted: boolean; secret?: string; testmode?: boolean };

function listWhere(organizerId: number, f: GiftCardFilters): SQL | undefined {
  const conditions: SQL[] = [visible(organizerId, f.includeAccepted)];
  if (f.secret !== undefined) conditions.push(sql`lower(${giftCards.secret}) = lower(${f.secret})`);
  if (f.testmode !== undefined) conditions.push(eq(giftCards.testmode, f.testmode));
  return and(...conditions);
}

/** A page of the gift cards the organizer reaches (by id). */
export function listGiftCards(db: DB, organizerId: number, f: GiftCardFilters, req: ListRequest) {
  const where = listWhere(organizerId, f);
  return fetchPage(
    db,
    {
      rows: db.select().from(giftCards).where(where).orderBy(asc(giftCards.id)).$dynamic(),
      count: { from: giftCards, where },
    },
    req,
  );
}

export async function findGiftCard(db: DB, organizerId: number, id: number, includeAccepted: boolean) {
  return db
    .select()
    .from(giftCards)
    .where(and(eq(giftCards.id, id), visible(organizerId, includeAccepted)))
    .get();
}

/**
 * The card a customer enters on a payment page: exact secret, issued by the organizer or by
 * an issuer whose cards it accepts (its own card first should both exist).
 */
export async function giftCardForPayment(
  db: DB,
  organizerId: number,
  secret: string,
): Promise<GiftCardRow | undefined> {
  return db
    .select()
    .from(giftCards)
    .where(and(eq(giftCards.secret, secret), visible(organizerId, true)))
    .orderBy(sql`${giftCards.issuerId} = ${organizerId} DESC`, asc(giftCards.id))
    .limit(1)
    .get();
}

const secretQuery = (db: DB, organizerId: number, secret: string) =>
  db
    .select({ id: giftCards.id })
    .from(giftCards)
    .where(and(eq(giftCards.secret, secret), visible(organizerId, true)))
    .limit(1);

/**
 * What issuing a card with `secret` needs to know, in one round trip: whether the secret is
 * used by a card of the organizer or of an organizer whose cards it accepts (pretix: "your or
 * an affiliated organizer account"), and the organizer's stored settings (default expiry).
 */
export async function giftCardCreationRefs(
  db: DB,
  organizerId: number,
  secret: string,
): Promise<{ secretTaken: boolean; settings: Record<string, unknown> }> {
  const [taken, settings] = await db.batch([
    secretQuery(db, organizerId, secret),
    organizerSettingsQuery(db, organizerId),
  ]);
  return { secretTaken: taken.length > 0, settings: settingsOf(settings) };
}

/**
 * Inserts a transaction for the card matching `cardCondition` (none when no card matches).
 * Built with insert().select() so that it can be part of a D1 batch.
 */
function transactionInsert(
  db: DB,
  cardCondition: SQL,
  value: SQL,
  text: string | null,
  acceptorId: number,
  now: number,
) {
  // columns in table order: id, card_id, datetime, value, order_id, text, acceptor_id
  return db
    .insert(giftCardTransactions)
    .select(
      sql`SELECT NULL, ${giftCards.id}, ${now}, ${value}, NULL, ${text}, ${acceptorId} FROM ${giftCards} WHERE ${cardCondition}`,
    );
}

/** Creates a card and the transaction of its initial value in one batch; null when the secret is taken. */
export async function insertGiftCard(
  db: DB,
  issuerId: number,
  values: GiftCardValues,
  initialValue: number,
  now: number,
): Promise<GiftCardRow | null> {
  const insert = db
    .insert(giftCards)
    .values({ ...values, issuerId, value: initialValue, issuance: now })
    .onConflictDoNothing()
    .returning();
  const record = transactionInsert(
    db,
    sql`${giftCards.issuerId} = ${issuerId} AND ${giftCards.secret} = ${values.secret} AND ${giftCards.issuance} = ${now} AND NOT EXISTS (SELECT 1 FROM ${giftCardTransactions} t WHERE t.card_id = ${giftCards.id})`,
    sql`${initialValue}`,
    null,
    issuerId,
    now,
  );
  const [rows] = await db.batch([insert, record]);
  return rows[0] ?? null;
}

/**
 * Changes a card's editable fields; with `newValue`, sets the balance and records the
 * difference as a transaction (in the same batch, computed from the stored balance). Returns
 * the card as it is afterwards; undefined when the organizer has no card with this id.
 */
export async function updateGiftCard(
  db: DB,
  organizerId: number,
  id: number,
  values: Partial<Pick<GiftCardRow, "expires" | "conditions">>,
  newValue: number | undefined,
  now: number,
): Promise<GiftCardRow | undefined> {
  const own = and(eq(giftCards.id, id), eq(giftCards.issuerId, organizerId))!;
  const set: Partial<GiftCardRow> = { ...values };
  if (newValue !== undefined) set.value = newValue;
  if (!Object.keys(set).length) return db.select().from(giftCards).where(own).get();
  const update = db.update(giftCards).set(set).where(own).returning();
  if (newValue === undefined) return (await update)[0];
  const [, rows] = await db.batch([
    transactionInsert(
      db,
      sql`${own} AND ${giftCards.value} <> ${newValue}`,
      sql`${newValue} - ${giftCards.value}`,
      null,
      organizerId,
      now,
    ),
    update,
  ]);
  return rows[0];
}

export type TransactResult =
  | { ok: true; value: number }
  | { ok: false; reason: "insufficient" | "too_high" | "missing" };

/**
 * Adds a signed amount to a card's balance atomically; never below zero, never above the maximum.
 * One batch of two statements under the same condition (the new balance within [0, MAX]): the
 * transaction row's insert and the balance update both happen or neither, whatever runs in parallel.
 */
export async function transact(
  db: DB,
  cardId: number,
  amount: number,
  text: string | null,
  acceptorId: number,
  now: number,
): Promise<TransactResult> {
  const guard = sql`${giftCards.id} = ${cardId} AND ${giftCards.value} + ${amount} >= 0 AND ${giftCards.value} + ${amount} <= ${MAX_GIFT_CARD_VALUE}`;
  const [, updated] = await db.batch([
    transactionInsert(db, guard, sql`${amount}`, text, acceptorId, now),
    db
      .update(giftCards)
      .set({ value: sql`${giftCards.value} + ${amount}` })
      .where(guard)
      .returning({ value: giftCards.value }),
  ]);
  if (updated[0]) return { ok: true, value: updated[0].value };
  const card = await db.select({ value: giftCards.value }).from(giftCards).where(eq(giftCards.id, cardId)).get();
  if (!card) return { ok: false, reason: "missing" };
  return { ok: false, reason: card.value + amount < 0 ? "insufficient" : "too_high" };
}

/**
 * After a lost answer: the card `insertGiftCard` wrote (issuer, secret and issuance time are
 * what that write set), or undefined.
 */
export function issuedGiftCard(
  db: DB,
  issuerId: number,
  secret: string,
  issuance: number,
): Promise<GiftCardRow | undefined> {
  return db
    .select()
    .from(giftCards)
    .where(and(eq(giftCards.issuerId, issuerId), eq(giftCards.secret, secret), eq(giftCards.issuance, issuance)))
    .get();
}

/**
 * After a lost answer: the card's balance when the transaction `transact` would have written
 * (card, time, amount, text, acceptor) is there, or undefined.
 */
export async function transactionRecorded(
  db: DB,
  cardId: number,
  amount: number,
  text: string | null,
  acceptorId: number,
  now: number,
): Promise<number | undefined> {
  const row = await db
    .select({ value: giftCards.value })
    .from(giftCards)
    .where(
      and(
        eq(giftCards.id, cardId),
        sql`EXISTS (SELECT 1 FROM ${giftCardTransactions} t WHERE t.card_id = ${cardId} AND t.datetime = ${now} AND t.value = ${amount} AND t.acceptor_id = ${acceptorId} AND t.text IS ${text} AND t.order_id IS NULL)`,
      ),
    )
    .get();
  return row?.value;
}

/** A page of a card's transactions, oldest first, with the order and event they belong to. */
export function listTransactions(db: DB, cardId: number, req: ListRequest) {
  const where = eq(giftCardTransactions.cardId, cardId);
  const rows = db
    .select({
      id: giftCardTransactions.id,
      datetime: giftCardTransactions.datetime,
      value: giftCardTransactions.value,
      text: giftCardTransactions.text,
      order: orders.code,
      event: events.slug,
    })
    .from(giftCardTransactions)
    .leftJoin(orders, eq(orders.id, giftCardTransactions.orderId))
    .leftJoin(events, eq(events.id, orders.eventId))
    .where(where)
    .orderBy(asc(giftCardTransactions.datetime), asc(giftCardTransactions.id))
    .$dynamic();
  return fetchPage(db, { rows, count: { from: giftCardTransactions, where } }, req);
}

export type GiftCardTransactionRecord = Awaited<ReturnType<typeof listTransactions>>["rows"][number];

// ---- acceptance between organizers ----

const acceptorSlug = sql<string>`(SELECT slug FROM organizers o WHERE o.id = ${giftCardAcceptances.acceptorId})`;
const issuerSlug = sql<string>`(SELECT slug FROM organizers o WHERE o.id = ${giftCardAcceptances.issuerId})`;

/** A page of the organizers invited to accept (or accepting) the cards `issuerId` issues, by slug. */
export function listAcceptors(db: DB, issuerId: number, req: ListRequest) {
  const where = eq(giftCardAcceptances.issuerId, issuerId);
  const rows = db
    .select({ acceptor: acceptorSlug, active: giftCardAcceptances.active })
    .from(giftCardAcceptances)
    .where(where)
    .orderBy(asc(acceptorSlug))
    .$dynamic();
  return fetchPage(db, { rows, count: { from: giftCardAcceptances, where } }, req);
}

/** A page of the issuers that invited `acceptorId` to accept their cards (or whose cards it accepts), by slug. */
export function listIssuers(db: DB, acceptorId: number, req: ListRequest) {
  const where = eq(giftCardAcceptances.acceptorId, acceptorId);
  const rows = db
    .select({ issuer: issuerSlug, active: giftCardAcceptances.active })
    .from(giftCardAcceptances)
    .where(where)
    .orderBy(asc(issuerSlug))
    .$dynamic();
  return fetchPage(db, { rows, count: { from: giftCardAcceptances, where } }, req);
}

export async function organizerIdBySlug(db: DB, slug: string): Promise<number | undefined> {
  const row = await db.select({ id: organizers.id }).from(organizers).where(eq(organizers.slug, slug)).get();
  return row?.id;
}

/** Invites an acceptor; false when a connection between the two exists already. */
export async function inviteAcceptor(db: DB, issuerId: number, acceptorId: number, now: number): Promise<boolean> {
  const rows = await db
    .insert(giftCardAcceptances)
    .values({ issuerId, acceptorId, active: false, createdAt: now })
    .onConflictDoNothing()
    .returning({ issuerId: giftCardAcceptances.issuerId });
  return rows.length > 0;
}

/** Removes a connection; false when there was none. */
export async function removeAcceptance(db: DB, issuerId: number, acceptorId: number): Promise<boolean> {
  const rows = await db
    .delete(giftCardAcceptances)
    .where(and(eq(giftCardAcceptances.issuerId, issuerId), eq(giftCardAcceptances.acceptorId, acceptorId)))
    .returning({ issuerId: giftCardAcceptances.issuerId });
  return rows.length > 0;
}

/** The acceptor accepts an invitation; false when there is none. */
export async function acceptInvitation(db: DB, issuerId: number, acceptorId: number): Promise<boolean> {
  const rows = await db
    .update(giftCardAcceptances)
    .set({ active: true })
    .where(and(eq(giftCardAcceptances.issuerId, issuerId), eq(giftCardAcceptances.acceptorId, acceptorId)))
    .returning({ issuerId: giftCardAcceptances.issuerId });
  return rows.length > 0;
}
