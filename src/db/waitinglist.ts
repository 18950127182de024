/**
 * Waiting list entries of an event (pretix docs waitinglist.rst); every statement is scoped by
 * event. An entry that was sent a voucher is never changed or deleted here (the conditions say
 * `voucher_id IS NULL`); the event object gives vouchers with the statements at the end.
 */
import { and, asc, count, desc, eq, isNotNull, isNull, ne, sql } from "drizzle-orm";
import type { DB } from "./client";
import { inventoryStampQuery } from "./inventory";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { statement, rawRows } from "./raw";
import { items, itemVariations, subevents, waitinglistEntries as wl } from "./schema";
import type { MailInsert } from "./mail";
import { inIntegers } from "./util";

export type WaitingEntryRow = typeof wl.$inferSelect;
export type WaitingEntryValues = Omit<typeof wl.$inferInsert, "id" | "eventId" | "voucherId" | "createdAt">;

export type WaitingEntryFilter = {
  email?: string | undefined;
  locale?: string | undefined;
  has_voucher?: boolean | undefined;
  item?: number | undefined;
  variation?: number | undefined;
  subevent?: number | undefined;
};

/** `ordering` of the list: `id`, `created` (default), `email`, `item` (pretix's). */
export const WAITINGLIST_ORDERING: OrderingTable = {
  fields: { id: wl.id, created: wl.createdAt, email: wl.email, item: wl.itemId },
  default: "created",
  tiebreaker: wl.id,
};

export function listWaitingEntries(db: DB, eventId: number, f: WaitingEntryFilter, req: ListRequest) {
  const where = and(
    eq(wl.eventId, eventId),
    f.email === undefined ? undefined : eq(wl.email, f.email),
    f.locale === undefined ? undefined : eq(wl.locale, f.locale),
    f.has_voucher === undefined ? undefined : f.has_voucher ? isNotNull(wl.voucherId) : isNull(wl.voucherId),
    f.item === undefined ? undefined : eq(wl.itemId, f.item),
    f.variation === undefined ? undefined : eq(wl.variationId, f.variation),
    f.subevent === undefined ? undefined : eq(wl.subeventId, f.subevent),
  );
  return fetchPage(
    db,
    { rows: db.select().from(wl).where(where).$dynamic(), count: { from: wl, where }, ordering: WAITINGLIST_ORDERING },
    req,
  );
}

const entryWhere = (eventId: number, id: number) => and(eq(wl.eventId, eventId), eq(wl.id, id));

export function findWaitingEntry(db: DB, eventId: number, id: number): Promise<WaitingEntryRow | undefined> {
  return db.select().from(wl).where(entryWhere(eventId, id)).get();
}

/** What an entry's input refers to and what its checks need, in one batch. */
export type WaitingEntryFacts = {
  item: { id: number; hasVariations: boolean } | undefined;
  variation: { id: number; itemId: number } | undefined;
  subevent: { id: number } | undefined;
  /** Another waiting entry of the address for the same product and date. */
  duplicate: boolean;
  /** Entries waiting for the same product and date (the entry itself not counted). */
  waiting: number;
  stamp: number;
};

export async function waitingEntryFacts(
  db: DB,
  eventId: number,
  v: { itemId: number; variationId: number | null; subeventId: number | null; email: string },
  exceptId: number | null,
): Promise<WaitingEntryFacts> {
  const same = and(
    eq(wl.eventId, eventId),
    eq(wl.itemId, v.itemId),
    v.variationId === null ? isNull(wl.variationId) : eq(wl.variationId, v.variationId),
    v.subeventId === null ? isNull(wl.subeventId) : eq(wl.subeventId, v.subeventId),
    isNull(wl.voucherId),
    exceptId === null ? undefined : ne(wl.id, exceptId),
  );
  const [item, variation, subevent, duplicate, waiting, stamp] = await db.batch([
    db
      .select({ id: items.id, hasVariations: items.hasVariations })
      .from(items)
      .where(and(eq(items.eventId, eventId), eq(items.id, v.itemId))),
    db
      .select({ id: itemVariations.id, itemId: itemVariations.itemId })
      .from(itemVariations)
      .where(eq(itemVariations.id, v.variationId ?? 0)),
    db
      .select({ id: subevents.id })
      .from(subevents)
      .where(and(eq(subevents.eventId, eventId), eq(subevents.id, v.subeventId ?? 0))),
    db
      .select({ id: wl.id })
      .from(wl)
      .where(and(same, sql`lower(${wl.email}) = lower(${v.email})`))
      .limit(1),
    db.select({ n: count() }).from(wl).where(same),
    inventoryStampQuery(db, eventId),
  ]);
  return {
    item: item[0],
    variation: variation[0],
    subevent: subevent[0],
    duplicate: duplicate.length > 0,
    waiting: waiting[0]?.n ?? 0,
    stamp: stamp[0]?.modifiedAt ?? 0,
  };
}

export async function insertWaitingEntry(
  db: DB,
  eventId: number,
  values: WaitingEntryValues,
  now: number,
): Promise<WaitingEntryRow> {
  const [row] = await db
    .insert(wl)
    .values({ ...values, eventId, createdAt: now })
    .returning();
  return row!;
}

/** Changes an entry that has no voucher; undefined when it is gone or has one. */
export async function updateWaitingEntry(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<WaitingEntryValues>,
): Promise<WaitingEntryRow | undefined> {
  const [row] = await db
    .update(wl)
    .set(values)
    .where(and(entryWhere(eventId, id), isNull(wl.voucherId)))
    .returning();
  return row;
}

/** Deletes an entry that has no voucher; false when it is gone or has one. */
export async function deleteWaitingEntry(db: DB, eventId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(wl)
    .where(and(entryWhere(eventId, id), isNull(wl.voucherId)))
    .returning({ id: wl.id });
  return rows.length > 0;
}

/**
 * Entries still waiting, in the order they get vouchers (priority first, then the oldest), with
 * what their mail names; only the entries `ids`, or of active products. At most `limit`.
 */
export function waitingInOrder(
  db: DB,
  eventId: number,
  limit: number,
  only: { ids?: readonly number[]; activeItems?: boolean } = {},
) {
  return db
    .select({
      entry: wl,
      itemName: items.name,
      variationName: itemVariations.value,
    })
    .from(wl)
    .innerJoin(items, eq(items.id, wl.itemId))
    .leftJoin(itemVariations, eq(itemVariations.id, wl.variationId))
    .where(
      and(
        eq(wl.eventId, eventId),
        isNull(wl.voucherId),
        only.ids ? inIntegers(wl.id, only.ids) : undefined,
        only.activeItems ? eq(items.active, true) : undefined,
      ),
    )
    .orderBy(desc(wl.priority), asc(wl.createdAt), asc(wl.id))
    .limit(limit);
}

/** Entries still waiting for what each of `quotaIds` covers (its products on its date), by quota. */
export async function waitingPerQuota(
  db: DB,
  eventId: number,
  quotaIds: readonly number[],
): Promise<Map<number, number>> {
  if (quotaIds.length === 0) return new Map();
  const rows = await rawRows<{ quota: number; n: number }>(
    db,
    sql`SELECT qi.quota_id AS quota, count(*) AS n FROM quota_items qi
      JOIN quotas q ON q.id = qi.quota_id
      JOIN waitinglist_entries w ON w.event_id = q.event_id AND w.item_id = qi.item_id
        AND w.variation_id IS qi.variation_id AND w.subevent_id IS q.subevent_id AND w.voucher_id IS NULL
      WHERE q.event_id = ${eventId} AND ${inIntegers(sql`qi.quota_id`, quotaIds)}
      GROUP BY qi.quota_id`,
  );
  return new Map(rows.map((r) => [r.quota, r.n]));
}

/** Events with entries still waiting (the cron offers them what vouchers that expired freed). */
export async function eventsWithWaitingEntries(db: DB): Promise<number[]> {
  const rows = await db.selectDistinct({ eventId: wl.eventId }).from(wl).where(isNull(wl.voucherId));
  return rows.map((r) => r.eventId);
}

/** Of `ids`, the entries that still wait (no voucher); read by the event object before it decides. */
export async function stillWaiting(db: DB, eventId: number, ids: readonly number[]): Promise<Set<number>> {
  if (ids.length === 0) return new Set();
  const rows = await db
    .select({ id: wl.id })
    .from(wl)
    .where(and(eq(wl.eventId, eventId), isNull(wl.voucherId), inIntegers(wl.id, ids)));
  return new Set(rows.map((r) => r.id));
}

/** A waiting-list voucher as the event object writes it. */
export type WaitingVoucher = {
  code: string;
  itemId: number;
  variationId: number | null;
  subeventId: number | null;
  validUntil: number;
  comment: string;
};

/** pretix's tag of the vouchers its waiting list sends. */
export const WAITING_LIST_TAG = "waiting-list";

/**
 * The statements that give entry `entryId` its voucher and queue its mail, each conditional on
 * the entry still waiting (an entry deleted meanwhile gets nothing): the voucher (one use,
 * blocking quota), the entry's `voucher_id` (answers the entry and voucher ids when it took),
 * the mail (answers its id).
 */
export function assignmentStatements(
  db: DB,
  eventId: number,
  entryId: number,
  v: WaitingVoucher,
  mail: MailInsert,
  now: number,
) {
  const waiting = sql`EXISTS (SELECT 1 FROM waitinglist_entries WHERE id = ${entryId} AND event_id = ${eventId} AND voucher_id IS NULL)`;
  const voucherId = sql`(SELECT id FROM vouchers WHERE event_id = ${eventId} AND lower(code) = lower(${v.code}))`;
  return [
    statement(
      db,
      sql`INSERT INTO vouchers (event_id, code, max_usages, min_usages, redeemed, valid_until, block_quota, allow_ignore_quota, price_mode, value, item_id, variation_id, subevent_id, tag, comment, show_hidden_items, created_at)
        SELECT ${eventId}, ${v.code}, 1, 1, 0, ${v.validUntil}, 1, 0, 'none', 0, ${v.itemId}, ${v.variationId}, ${v.subeventId}, ${WAITING_LIST_TAG}, ${v.comment}, 1, ${now} WHERE ${waiting}`,
    ),
    rawRows<{ id: number; voucher_id: number }>(
      db,
      sql`UPDATE waitinglist_entries SET voucher_id = ${voucherId} WHERE id = ${entryId} AND event_id = ${eventId} AND voucher_id IS NULL AND ${voucherId} IS NOT NULL RETURNING id, voucher_id`,
    ),
    rawRows<{ id: number }>(
      db,
      sql`INSERT INTO mail_outbox (organizer_id, event_id, kind, to_address, from_name, reply_to, subject, text_body, state, attempts, created_at)
        SELECT ${mail.organizerId}, ${mail.eventId}, ${mail.kind}, ${mail.toAddress}, ${mail.fromName ?? null}, ${mail.replyTo ?? null}, ${mail.subject}, ${mail.textBody}, 'queued', 0, ${mail.createdAt}
        WHERE EXISTS (SELECT 1 FROM waitinglist_entries WHERE id = ${entryId} AND voucher_id = ${voucherId}) RETURNING id`,
    ),
  ] as const;
}

/** The entries that have a voucher among `ids` (tests and faults: what D1 has). */
export function entriesWithVoucher(
  db: DB,
  eventId: number,
  ids: readonly number[],
): Promise<{ id: number; voucherId: number | null }[]> {
  return db
    .select({ id: wl.id, voucherId: wl.voucherId })
    .from(wl)
    .where(and(eq(wl.eventId, eventId), isNotNull(wl.voucherId), inIntegers(wl.id, ids)));
}
