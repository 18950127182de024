/**
 * Invoices of an event: reading (list through fetchPage, detail by number), the facts an
 * invoice is built from (one batch), and the conditional writes that create invoices with
 * numbers drawn from a counter in the same transaction. Every statement is scoped by event
 * (or organizer for the counter).
 */
import { and, asc, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { I18n } from "../lib/i18n";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import {
  eventSettings,
  events,
  invoiceCounters,
  type InvoiceLine,
  type InvoiceTexts,
  invoices,
  itemVariations,
  items,
  organizerSettings,
  orders,
  questions,
  subevents,
  sweepMarks,
  taxRules,
} from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type InvoiceRow = typeof invoices.$inferSelect;
/** An invoice with its order's code and the number of the invoice it refers to. */
export type InvoiceRecord = { invoice: InvoiceRow; orderCode: string; refersNumber: string | null };

function selectInvoices(db: DB) {
  return db
    .select({
      invoice: invoices,
      orderCode: orders.code,
      refersNumber: sql<string | null>`(SELECT r.number FROM invoices r WHERE r.id = ${invoices.refersId})`,
    })
    .from(invoices)
    .innerJoin(orders, eq(orders.id, invoices.orderId));
}

/** The orderings of the invoice list (pretix docs invoices.rst: `date`, `nr` meaning `number`). */
export const INVOICE_ORDERING: OrderingTable = {
  fields: { date: invoices.date, nr: invoices.number, number: invoices.number },
  default: "nr",
  tiebreaker: invoices.id,
};

export type InvoiceFilter = { isCancellation?: boolean; order?: string; refers?: string; locale?: string };

export async function listInvoices(db: DB, eventId: number, f: InvoiceFilter, req: ListRequest) {
  const c: SQL[] = [eq(invoices.eventId, eventId)];
  if (f.isCancellation !== undefined) c.push(eq(invoices.isCancellation, f.isCancellation));
  if (f.order !== undefined)
    c.push(
      sql`${invoices.orderId} IN (SELECT id FROM orders WHERE event_id = ${eventId} AND code = upper(${f.order}))`,
    );
  if (f.refers !== undefined)
    c.push(sql`${invoices.refersId} IN (SELECT id FROM invoices WHERE event_id = ${eventId} AND number = ${f.refers})`);
  if (f.locale !== undefined) c.push(eq(invoices.locale, f.locale));
  const where = and(...c)!;
  return fetchPage(
    db,
    { rows: selectInvoices(db).where(where).$dynamic(), count: { from: invoices, where }, ordering: INVOICE_ORDERING },
    req,
  );
}

export async function findInvoice(db: DB, eventId: number, number: string): Promise<InvoiceRecord | undefined> {
  return selectInvoices(db)
    .where(and(eq(invoices.eventId, eventId), eq(invoices.number, number)))
    .get();
}

export async function findInvoiceById(db: DB, id: number): Promise<InvoiceRecord | undefined> {
  return selectInvoices(db).where(eq(invoices.id, id)).get();
}

/** The invoices of an order, oldest first. */
export async function orderInvoices(db: DB, orderId: number): Promise<InvoiceRow[]> {
  return db.select().from(invoices).where(eq(invoices.orderId, orderId)).orderBy(asc(invoices.id));
}

// ---- what an invoice is built from ----

/**
 * What an invoice is built from, in one batch: the names of the event's items, variations and
 * tax rules, its questions printed on invoices, the order's dates (by id), the stored
 * settings of the event and its organizer, and the order's invoices (oldest first).
 */
export async function invoiceFacts(
  db: DB,
  organizerId: number,
  eventId: number,
  orderId: number,
  subeventIds: number[],
) {
  const subeventStatements = chunks([...new Set(subeventIds)], MAX_PARAMS - 5).map((part) =>
    db
      .select({
        id: subevents.id,
        name: subevents.name,
        dateFrom: subevents.dateFrom,
        dateTo: subevents.dateTo,
        location: subevents.location,
      })
      .from(subevents)
      .where(and(eq(subevents.eventId, eventId), inArray(subevents.id, part))),
  );
  const results = (await db.batch([
    db.select({ id: items.id, name: items.name }).from(items).where(eq(items.eventId, eventId)),
    db
      .select({ id: itemVariations.id, value: itemVariations.value })
      .from(itemVariations)
      .where(sql`${itemVariations.itemId} IN (SELECT id FROM items WHERE event_id = ${eventId})`),
    db.select({ id: taxRules.id, name: taxRules.name }).from(taxRules).where(eq(taxRules.eventId, eventId)),
    db
      .select({ id: questions.id, question: questions.question, type: questions.type })
      .from(questions)
      .where(and(eq(questions.eventId, eventId), eq(questions.printOnInvoice, true))),
    db.select().from(eventSettings).where(eq(eventSettings.eventId, eventId)),
    db.select().from(organizerSettings).where(eq(organizerSettings.organizerId, organizerId)),
    db.select().from(invoices).where(eq(invoices.orderId, orderId)).orderBy(asc(invoices.id)),
    ...subeventStatements,
  ])) as unknown[];
  const [itemRows, variationRows, taxRows, questionRows, eventRows, organizerRows, invoiceRows, ...subeventParts] =
    results as [
      { id: number; name: I18n }[],
      { id: number; value: I18n }[],
      { id: number; name: I18n }[],
      { id: number; question: I18n; type: string }[],
      { key: string; value: unknown }[],
      { key: string; value: unknown }[],
      InvoiceRow[],
      ...{ id: number; name: I18n; dateFrom: number; dateTo: number | null; location: I18n | null }[][],
    ];
  return {
    items: new Map(itemRows.map((r) => [r.id, r.name])),
    variations: new Map(variationRows.map((r) => [r.id, r.value])),
    subevents: new Map(subeventParts.flat().map((r) => [r.id, r])),
    taxRules: new Map(taxRows.map((r) => [r.id, r.name])),
    printedQuestions: new Map(questionRows.map((r) => [r.id, r])),
    eventSettings: Object.fromEntries(eventRows.map((r) => [r.key, r.value])) as Record<string, unknown>,
    organizerSettings: Object.fromEntries(organizerRows.map((r) => [r.key, r.value])) as Record<string, unknown>,
    orderInvoices: invoiceRows,
  };
}
export type InvoiceFacts = Awaited<ReturnType<typeof invoiceFacts>>;

// ---- creating invoices ----

/**
 * An invoice to create. Its number: `prefix` and the next value of the organizer's counter
 * for the prefix (zero-padded to `counterLength`), or, without consecutive numbers, the order
 * code and the order's invoice count + 1. `when` is the condition under which it is created
 * (checked in the same transaction as the counter).
 */
export type InvoiceInsert = {
  organizerId: number;
  eventId: number;
  orderId: number;
  orderCode: string;
  prefix: string;
  consecutive: boolean;
  counterLength: number;
  isCancellation: boolean;
  /** The invoice a cancellation refers to: its id, or the creation key of one created earlier in the same batch. */
  refers: number | { creationKey: string } | null;
  date: string;
  locale: string;
  texts: InvoiceTexts;
  lines: InvoiceLine[];
  creationKey: string;
  createdAt: number;
  when: SQL;
};

/** Conditions for `when`. */
export const invoiceConditions = {
  /** The order has no invoice that is not canceled. */
  noLiveInvoice: (orderId: number) =>
    sql`NOT EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = ${orderId} AND i.is_cancellation = 0 AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.refers_id = i.id AND c.is_cancellation = 1))`,
  /** The order is in one of these states. */
  orderStatusIn: (orderId: number, statuses: string[]) =>
    sql`EXISTS (SELECT 1 FROM orders o WHERE o.id = ${orderId} AND o.status IN (${sql.join(
      statuses.map((s) => sql`${s}`),
      sql`, `,
    )}))`,
  /** The invoice has no cancellation yet. */
  notCanceled: (invoiceId: number) =>
    sql`NOT EXISTS (SELECT 1 FROM invoices c WHERE c.refers_id = ${invoiceId} AND c.is_cancellation = 1)`,
  /** The invoice of this creation key exists (created earlier in the same batch). */
  created: (creationKey: string) => sql`EXISTS (SELECT 1 FROM invoices k WHERE k.creation_key = ${creationKey})`,
  all: (...conditions: SQL[]) => sql.join(conditions, sql` AND `),
};

function insertStatements(db: DB, w: InvoiceInsert): BatchItem<"sqlite">[] {
  const out: BatchItem<"sqlite">[] = [];
  let numberSource: SQL;
  if (w.consecutive) {
    // columns in table order: organizer_id, prefix, last
    out.push(
      db
        .insert(invoiceCounters)
        .select(sql`SELECT ${w.organizerId}, ${w.prefix}, 1 WHERE ${w.when}`)
        .onConflictDoUpdate({
          target: [invoiceCounters.organizerId, invoiceCounters.prefix],
          set: { last: sql`${invoiceCounters.last} + 1` },
        }),
    );
    numberSource = sql`SELECT printf('%0*d', ${w.counterLength}, c.last) AS no FROM invoice_counters c WHERE c.organizer_id = ${w.organizerId} AND c.prefix = ${w.prefix}`;
  } else {
    numberSource = sql`SELECT ${w.orderCode} || '-' || (SELECT count(*) + 1 FROM invoices WHERE order_id = ${w.orderId}) AS no`;
  }
  const refers =
    w.refers === null
      ? sql`NULL`
      : typeof w.refers === "number"
        ? sql`${w.refers}`
        : sql`(SELECT id FROM invoices WHERE creation_key = ${w.refers.creationKey})`;
  // columns in table order: id, organizer_id, event_id, order_id, prefix, invoice_no, number, is_cancellation, refers_id,
  // date, locale, texts, lines, creation_key, created_at, version, file, file_error
  out.push(
    db.insert(invoices).select(
      sql`SELECT NULL, ${w.organizerId}, ${w.eventId}, ${w.orderId}, ${w.prefix}, n.no, ${w.prefix} || n.no, ${w.isCancellation ? 1 : 0}, ${refers}, ${w.date}, ${w.locale},
        ${JSON.stringify(w.texts)}, ${JSON.stringify(w.lines)}, ${w.creationKey}, ${w.createdAt}, 1, NULL, NULL
      FROM (${numberSource}) n WHERE ${w.when}`,
    ),
  );
  return out;
}

/**
 * Creates the invoices in one transaction, each only if its condition holds when its turn
 * comes; returns those created (in the order given).
 */
export async function insertInvoices(db: DB, writes: InvoiceInsert[]): Promise<InvoiceRecord[]> {
  if (writes.length === 0) return [];
  const keys = writes.map((w) => w.creationKey);
  const stmts: BatchItem<"sqlite">[] = writes.flatMap((w) => insertStatements(db, w));
  stmts.push(selectInvoices(db).where(inArray(invoices.creationKey, keys)));
  const results = (await db.batch(stmts as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]])) as unknown[];
  const created = results[results.length - 1] as InvoiceRecord[];
  return keys
    .map((k) => created.find((r) => r.invoice.creationKey === k))
    .filter((r): r is InvoiceRecord => r !== undefined);
}

/**
 * Replaces an invoice's content (regeneration) unless it was canceled meanwhile: a new
 * version, whose PDF is still to be rendered. Returns the invoice afterwards, or undefined when
 * nothing changed.
 */
export async function replaceInvoiceContent(
  db: DB,
  id: number,
  content: { locale: string; texts: InvoiceTexts; lines: InvoiceLine[] },
  when: SQL,
): Promise<InvoiceRecord | undefined> {
  const [updated, read] = await db.batch([
    db
      .update(invoices)
      .set({
        locale: content.locale,
        texts: content.texts,
        lines: content.lines,
        version: sql`${invoices.version} + 1`,
        file: null,
        fileError: null,
      })
      .where(and(eq(invoices.id, id), when))
      .returning({ id: invoices.id }),
    selectInvoices(db).where(eq(invoices.id, id)),
  ]);
  return updated.length ? read[0] : undefined;
}

/** Records the rendered PDF of a version (only while it is still the current one). */
export async function setInvoiceFile(db: DB, id: number, version: number, key: string): Promise<boolean> {
  const r = await db
    .update(invoices)
    .set({ file: key, fileError: null })
    .where(and(eq(invoices.id, id), eq(invoices.version, version)))
    .returning({ id: invoices.id });
  return r.length > 0;
}

export async function setInvoiceFileError(db: DB, id: number, version: number, message: string): Promise<void> {
  await db
    .update(invoices)
    .set({ fileError: message })
    .where(and(eq(invoices.id, id), eq(invoices.version, version), isNull(invoices.file)));
}

/** Invoices whose PDF is missing since before `before` (their queue message may be lost). */
export async function invoicesWithoutFile(db: DB, before: number, limit = 100) {
  return db
    .select({ id: invoices.id, version: invoices.version })
    .from(invoices)
    .where(and(isNull(invoices.file), isNull(invoices.fileError), sql`${invoices.createdAt} < ${before}`))
    .limit(limit);
}

// ---- the sweep ----

export async function sweepMark(db: DB, name: string): Promise<number | null> {
  const row = await db.select({ until: sweepMarks.until }).from(sweepMarks).where(eq(sweepMarks.name, name)).get();
  return row?.until ?? null;
}

export async function setSweepMark(db: DB, name: string, until: number): Promise<void> {
  await db.insert(sweepMarks).values({ name, until }).onConflictDoUpdate({ target: sweepMarks.name, set: { until } });
}

export type SweepCursor = { lastModified: number; id: number };

/**
 * Orders modified since the cursor (keyset on last_modified, id) in events that configured
 * invoicing (a stored `invoice_generate`) whose invoices may not match their status: canceled
 * or expired with an invoice that is not canceled, or — in the automatic modes — paid (or
 * pending, mode "True"), not free, without one. Uses the orders' (event, last_modified) index
 * per event.
 */
export async function ordersForInvoiceSweep(db: DB, after: SweepCursor, limit: number) {
  const live = sql`EXISTS (SELECT 1 FROM invoices i WHERE i.order_id = o.id AND i.is_cancellation = 0 AND NOT EXISTS (SELECT 1 FROM invoices c WHERE c.refers_id = i.id AND c.is_cancellation = 1))`;
  return db.all<{ id: number; eventId: number; code: string; lastModified: number }>(sql`
    SELECT o.id AS id, o.event_id AS eventId, o.code AS code, o.last_modified AS lastModified
    FROM event_settings s JOIN orders o ON o.event_id = s.event_id
    WHERE s.key = 'invoice_generate' AND (o.last_modified > ${after.lastModified} OR (o.last_modified = ${after.lastModified} AND o.id > ${after.id}))
      AND ((o.status IN ('c', 'e') AND ${live})
        OR (o.total <> 0 AND NOT ${live} AND ((o.status = 'p' AND s.value IN ('"True"', '"paid"')) OR (o.status = 'n' AND s.value = '"True"'))))
    ORDER BY o.last_modified, o.id
    LIMIT ${limit}`);
}

/** An event by id (for the sweep, which works across events). */
export async function eventById(db: DB, id: number) {
  return db.select().from(events).where(eq(events.id, id)).get();
}
