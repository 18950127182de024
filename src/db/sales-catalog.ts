/**
 * Everything a cart or order request needs, read in ONE D1 batch (the hot path of a rush: one read
 * round trip before the event object decides): items, variations, dates with their overrides, tax
 * rules, vouchers, questions, seats, discounts, settings, the inventory stamp, the customer, the
 * on-sale queues. Items, dates, questions and tax rules are looked up in all of the organizer's
 * events, so that one of another event is told apart from one that does not exist (as pretix does).
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { runBatch, type Statement } from "./batch";
import { fixed, inList, listValue, p } from "./fixed";
import type { DB } from "./client";
import { inventoryStampQuery } from "./inventory";
import { type OnsaleQueueRow, queuesOfDatesQuery } from "./onsale-queues";
import {
  customers,
  discountItems,
  discounts,
  eventSettings,
  itemVariations,
  items,
  orderPositions,
  orders,
  organizerSettings,
  questionItems,
  questionOptions,
  questions,
  seatingPlanSeats,
  subeventItems,
  subeventItemVariations,
  subevents,
  taxRules,
  vouchers,
} from "./schema";
import { type SigningKeyRow, signingKeyQuery } from "./ticket-secrets";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type ItemRow = typeof items.$inferSelect;
export type VariationRow = typeof itemVariations.$inferSelect;
export type SubeventRow = typeof subevents.$inferSelect;
export type VoucherRow = typeof vouchers.$inferSelect;
export type QuestionRow = typeof questions.$inferSelect;
export type OptionRow = typeof questionOptions.$inferSelect;
export type SeatRow = typeof seatingPlanSeats.$inferSelect;

/** A tax rule as pricing reads it. */
export type TaxRuleRow = { id: number; rate: number; priceIncludesTax: boolean };

/** An active discount with the products it is limited to. */
export type DiscountRuleRow = Omit<typeof discounts.$inferSelect, "eventId" | "internalName"> & {
  conditionLimitProducts: number[];
};

export type SalesRefs = {
  itemIds: number[];
  variationIds: number[];
  subeventIds: number[];
  voucherCodes: string[];
  questionIds: number[];
  seatGuids: string[];
  /** Tax rules named by the request (fees), looked up to tell another event's from an unknown one. */
  taxRuleIds?: number[];
  /** The event's own seating plan (sub-events' plans are found by subquery). */
  eventSeatingPlanId: number | null;
  customer?: string | null;
  orderCodes?: string[];
  /** Ticket secrets an order gives its positions: those the event's tickets have already are read. */
  secrets?: string[];
  /** Also read the event's signing key of this scheme (order creation signs ticket secrets). */
  signingKeyScheme?: string;
};

/** The catalog rows of a sale; the domain's `loadSalesCatalog` (services/orders/sales-catalog.ts) adds the effective settings. */
export type SalesCatalogRows = {
  items: Map<number, ItemRow>;
  variations: Map<number, VariationRow>;
  subevents: Map<number, SubeventRow>;
  subeventItemPrice: Map<string, typeof subeventItems.$inferSelect>;
  subeventVariationPrice: Map<string, typeof subeventItemVariations.$inferSelect>;
  taxRules: Map<number, TaxRuleRow>;
  vouchers: Map<string, VoucherRow>;
  questions: Map<number, { question: QuestionRow; itemIds: Set<number>; options: Map<number, OptionRow> }>;
  seats: Map<string, SeatRow>;
  discounts: DiscountRuleRow[];
  /** The settings stored on the event and on its organizer. */
  storedSettings: { event: Record<string, unknown>; organizer: Record<string, unknown> };
  stamp: number;
  customerId: number | null | undefined;
  takenOrderCodes: Set<string>;
  /** Ids the request named that belong to another event of the organizer. */
  foreign: { items: Set<number>; subevents: Set<number>; questions: Set<number>; taxRules: Set<number> };
  /** Of `secrets`, those a ticket of the event has. */
  takenSecrets: Set<string>;
  /** The event's signing key of `signingKeyScheme` (null: none yet; undefined: not asked for). */
  signingKey: SigningKeyRow | null | undefined;
  /** The on-sale queues that can apply to the sale: the event-wide one and the named dates' own. */
  queues: OnsaleQueueRow[];
};

export async function readSalesCatalog(
  db: DB,
  organizerId: number,
  eventId: number,
  refs: SalesRefs,
): Promise<SalesCatalogRows> {
  const batch = new KindedBatch();
  const add = batch.add;
  addEventQueries(db, organizerId, eventId, add);
  addReferencedQueries(db, organizerId, eventId, refs, add);
  addSeatQueries(db, eventId, refs, add);
  addCheckQueries(db, organizerId, eventId, refs, add);
  const rows = await batch.run(db);
  return catalogOfRows(rows, eventId, refs);
}

type AddQuery = (kind: string, s: Statement) => void;
type RowsOf = <T>(kind: string) => T[];

/** Statements run as one batch, each under a kind; the rows of a kind, of all its statements. */
class KindedBatch {
  private stmts: Statement[] = [];
  private slots: { kind: string; index: number }[] = [];
  add: AddQuery = (kind, s) => {
    this.slots.push({ kind, index: this.stmts.length });
    this.stmts.push(s);
  };
  async run(db: DB): Promise<RowsOf> {
    const results = (await runBatch(db, this.stmts)) as unknown[][];
    return <T>(kind: string): T[] => this.slots.filter((s) => s.kind === kind).flatMap((s) => results[s.index] as T[]);
  }
}

// The catalog's statements, built once per isolate (db/fixed.ts); `org` is the organizer's events.
const org = sql`(SELECT id FROM events WHERE organizer_id = ${p("organizerId")})`;
const Q = {
  eventSettings: fixed((db) =>
    db
      .select()
      .from(eventSettings)
      .where(eq(eventSettings.eventId, p("eventId"))),
  ),
  orgSettings: fixed((db) =>
    db
      .select()
      .from(organizerSettings)
      .where(eq(organizerSettings.organizerId, p("organizerId"))),
  ),
  taxRules: fixed((db) =>
    db
      .select({ id: taxRules.id, rate: taxRules.rate, priceIncludesTax: taxRules.priceIncludesTax })
      .from(taxRules)
      .where(eq(taxRules.eventId, p("eventId"))),
  ),
  discounts: fixed((db) =>
    db
      .select()
      .from(discounts)
      .where(and(eq(discounts.eventId, p("eventId")), eq(discounts.active, true))),
  ),
  discountItems: fixed((db) =>
    db
      .select({ discountId: discountItems.discountId, itemId: discountItems.itemId })
      .from(discountItems)
      .innerJoin(discounts, eq(discounts.id, discountItems.discountId))
      .where(and(eq(discounts.eventId, p("eventId")), eq(discounts.active, true))),
  ),
  items: fixed((db) =>
    db
      .select()
      .from(items)
      .where(and(sql`${items.eventId} IN ${org}`, inList(items.id, "ids"))),
  ),
  variations: fixed((db) =>
    db
      .select({ v: itemVariations })
      .from(itemVariations)
      .innerJoin(items, eq(items.id, itemVariations.itemId))
      .where(and(eq(items.eventId, p("eventId")), inList(itemVariations.id, "ids"))),
  ),
  subevents: fixed((db) =>
    db
      .select()
      .from(subevents)
      .where(and(sql`${subevents.eventId} IN ${org}`, inList(subevents.id, "ids"))),
  ),
  subeventItems: fixed((db) => db.select().from(subeventItems).where(inList(subeventItems.subeventId, "ids"))),
  subeventVariations: fixed((db) =>
    db.select().from(subeventItemVariations).where(inList(subeventItemVariations.subeventId, "ids")),
  ),
  vouchers: fixed((db) =>
    db
      .select()
      .from(vouchers)
      .where(and(eq(vouchers.eventId, p("eventId")), inList(sql`lower(${vouchers.code})`, "codes"))),
  ),
  questions: fixed((db) =>
    db
      .select()
      .from(questions)
      .where(and(sql`${questions.eventId} IN ${org}`, inList(questions.id, "ids"))),
  ),
  questionItems: fixed((db) => db.select().from(questionItems).where(inList(questionItems.questionId, "ids"))),
  options: fixed((db) =>
    db
      .select()
      .from(questionOptions)
      .where(and(eq(questionOptions.eventId, p("eventId")), inList(questionOptions.questionId, "ids"))),
  ),
  foreignTaxRules: fixed((db) =>
    db
      .select({ id: taxRules.id })
      .from(taxRules)
      .where(
        and(
          sql`${taxRules.eventId} IN ${org}`,
          sql`${taxRules.eventId} <> ${p("eventId")}`,
          inList(taxRules.id, "ids"),
        ),
      ),
  ),
  customer: fixed((db) =>
    db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.organizerId, p("organizerId")), eq(customers.identifier, p("identifier")))),
  ),
  orderCodes: fixed((db) =>
    db
      .select({ code: orders.code })
      .from(orders)
      .where(and(eq(orders.eventId, p("eventId")), inList(orders.code, "codes"))),
  ),
  secrets: fixed((db) =>
    db
      .select({ secret: orderPositions.secret })
      .from(orderPositions)
      .where(and(eq(orderPositions.eventId, p("eventId")), inList(orderPositions.secret, "secrets"))),
  ),
};

/** The event's stamp, settings (its own and its organizer's), tax rules and active discounts. */
function addEventQueries(db: DB, organizerId: number, eventId: number, add: AddQuery) {
  const ids = { organizerId, eventId };
  add("stamp", inventoryStampQuery(db, eventId));
  add("eventSettings", Q.eventSettings.bind(db, ids));
  add("orgSettings", Q.orgSettings.bind(db, ids));
  add("taxRules", Q.taxRules.bind(db, ids));
  add("discounts", Q.discounts.bind(db, ids));
  add("discountItems", Q.discountItems.bind(db, ids));
}

/** The items, variations, dates, vouchers and questions the request names (each list one statement). */
function addReferencedQueries(db: DB, organizerId: number, eventId: number, refs: SalesRefs, add: AddQuery) {
  const named = (list: readonly (number | string)[]) => ({ organizerId, eventId, ids: listValue(list) });
  if (refs.itemIds.length) add("items", Q.items.bind(db, named(refs.itemIds)));
  if (refs.variationIds.length) add("variations", Q.variations.bind(db, named(refs.variationIds)));
  if (refs.subeventIds.length) {
    const dates = named(refs.subeventIds);
    add("subevents", Q.subevents.bind(db, dates));
    add("subeventItems", Q.subeventItems.bind(db, dates));
    add("subeventVariations", Q.subeventVariations.bind(db, dates));
  }
  if (refs.voucherCodes.length) {
    const codes = listValue(refs.voucherCodes.map((c) => c.toLowerCase()));
    add("vouchers", Q.vouchers.bind(db, { eventId, codes }));
  }
  if (refs.questionIds.length) {
    const asked = named(refs.questionIds);
    add("questions", Q.questions.bind(db, asked));
    add("questionItems", Q.questionItems.bind(db, asked));
    add("options", Q.options.bind(db, asked));
  }
}

/** The named seats, of the event's plan and of the dates' plans. */
function addSeatQueries(db: DB, eventId: number, refs: SalesRefs, add: AddQuery) {
  // ≤ 20 dates × 2 + 40 guids + 1 parameters per statement
  const subChunks = refs.subeventIds.length ? chunks([...new Set(refs.subeventIds)], 20) : [[]];
  for (const subIds of subChunks) {
    for (const guids of chunks([...new Set(refs.seatGuids)], 40)) {
      const plans = sql`(${refs.eventSeatingPlanId ?? -1}${
        subIds.length
          ? sql`, ${sql.join(
              subIds.map(
                (id) => sql`(SELECT seating_plan_id FROM subevents WHERE id = ${id} AND event_id = ${eventId})`,
              ),
              sql`, `,
            )}`
          : sql``
      })`;
      add(
        "seats",
        db
          .select()
          .from(seatingPlanSeats)
          .where(and(sql`${seatingPlanSeats.planId} IN ${plans}`, inArray(seatingPlanSeats.seatGuid, guids))),
      );
    }
  }
}

/**
 * What the request's other names are checked against: foreign tax rules, the customer, the
 * on-sale queues, the signing key, taken order codes and ticket secrets.
 */
function addCheckQueries(db: DB, organizerId: number, eventId: number, refs: SalesRefs, add: AddQuery) {
  if (refs.taxRuleIds?.length)
    add("foreignTaxRules", Q.foreignTaxRules.bind(db, { organizerId, eventId, ids: listValue(refs.taxRuleIds) }));
  if (refs.customer) add("customer", Q.customer.bind(db, { organizerId, identifier: refs.customer }));
  add("queues", queuesOfDatesQuery(db, eventId, refs.subeventIds));
  if (refs.signingKeyScheme) add("signingKey", signingKeyQuery(db, eventId, refs.signingKeyScheme));
  if (refs.orderCodes?.length) add("orderCodes", Q.orderCodes.bind(db, { eventId, codes: listValue(refs.orderCodes) }));
  if (refs.secrets?.length) add("secrets", Q.secrets.bind(db, { eventId, secrets: listValue(refs.secrets) }));
}

/** The catalog the rows describe; rows of another event of the organizer count as foreign. */
function catalogOfRows(rows: RowsOf, eventId: number, refs: SalesRefs): SalesCatalogRows {
  const settings = (kind: string) =>
    Object.fromEntries(rows<{ key: string; value: unknown }>(kind).map((r) => [r.key, r.value]));
  const own = <T extends { id: number; eventId: number }>(kind: string) => {
    const all = rows<T>(kind);
    return { mine: all.filter((r) => r.eventId === eventId), others: all.filter((r) => r.eventId !== eventId) };
  };
  const itemRows = own<ItemRow>("items");
  const subeventRows = own<SubeventRow>("subevents");
  const questionRows = own<QuestionRow>("questions");
  return {
    items: new Map(itemRows.mine.map((i) => [i.id, i])),
    variations: new Map(rows<{ v: VariationRow }>("variations").map((r) => [r.v.id, r.v])),
    subevents: new Map(subeventRows.mine.map((s) => [s.id, s])),
    subeventItemPrice: new Map(
      rows<typeof subeventItems.$inferSelect>("subeventItems").map((r) => [`${r.subeventId}:${r.itemId}`, r]),
    ),
    subeventVariationPrice: new Map(
      rows<typeof subeventItemVariations.$inferSelect>("subeventVariations").map((r) => [
        `${r.subeventId}:${r.variationId}`,
        r,
      ]),
    ),
    taxRules: new Map(rows<TaxRuleRow>("taxRules").map((t) => [t.id, t])),
    vouchers: new Map(rows<VoucherRow>("vouchers").map((v) => [v.code.toLowerCase(), v])),
    questions: questionsOfRows(rows, questionRows.mine),
    seats: new Map(rows<SeatRow>("seats").map((s) => [`${s.planId}:${s.seatGuid}`, s])),
    discounts: discountRulesOfRows(rows),
    storedSettings: { event: settings("eventSettings"), organizer: settings("orgSettings") },
    stamp: rows<{ modifiedAt: number }>("stamp")[0]?.modifiedAt ?? 0,
    customerId: refs.customer ? (rows<{ id: number }>("customer")[0]?.id ?? null) : undefined,
    takenOrderCodes: new Set(rows<{ code: string }>("orderCodes").map((r) => r.code)),
    foreign: {
      items: new Set(itemRows.others.map((r) => r.id)),
      subevents: new Set(subeventRows.others.map((r) => r.id)),
      questions: new Set(questionRows.others.map((r) => r.id)),
      taxRules: new Set(rows<{ id: number }>("foreignTaxRules").map((r) => r.id)),
    },
    takenSecrets: new Set(rows<{ secret: string }>("secrets").map((r) => r.secret)),
    signingKey: refs.signingKeyScheme ? (rows<SigningKeyRow>("signingKey")[0] ?? null) : undefined,
    queues: rows<OnsaleQueueRow>("queues"),
  };
}

/** The active discounts with the items each is limited to. */
function discountRulesOfRows(rows: RowsOf): DiscountRuleRow[] {
  const discountLinks = rows<{ discountId: number; itemId: number }>("discountItems");
  return rows<typeof discounts.$inferSelect>("discounts").map((d) => ({
    id: d.id,
    active: d.active,
    position: d.position,
    salesChannels: d.salesChannels,
    availableFrom: d.availableFrom,
    availableUntil: d.availableUntil,
    subeventMode: d.subeventMode,
    conditionAllProducts: d.conditionAllProducts,
    conditionLimitProducts: discountLinks.filter((l) => l.discountId === d.id).map((l) => l.itemId),
    conditionApplyToAddons: d.conditionApplyToAddons,
    conditionIgnoreVoucherDiscounted: d.conditionIgnoreVoucherDiscounted,
    conditionMinCount: d.conditionMinCount,
    conditionMinValue: d.conditionMinValue,
    benefitDiscountMatchingPercent: d.benefitDiscountMatchingPercent,
    benefitOnlyApplyToCheapestNMatches: d.benefitOnlyApplyToCheapestNMatches,
  }));
}

/** The named questions of the event with the items they ask about and their options. */
function questionsOfRows(rows: RowsOf, mine: QuestionRow[]): SalesCatalogRows["questions"] {
  const questionMap: SalesCatalogRows["questions"] = new Map();
  for (const q of mine) questionMap.set(q.id, { question: q, itemIds: new Set(), options: new Map() });
  for (const l of rows<{ questionId: number; itemId: number }>("questionItems"))
    questionMap.get(l.questionId)?.itemIds.add(l.itemId);
  for (const o of rows<OptionRow>("options")) questionMap.get(o.questionId)?.options.set(o.id, o);
  return questionMap;
}

/**
 * Which of `secrets` tickets of the event have outside the order `code`: after an order
 * write failed, whether another order took one of its given secrets in the meantime.
 */
export async function secretsTakenByOthers(
  db: DB,
  eventId: number,
  secrets: string[],
  code: string,
): Promise<Set<string>> {
  const taken = new Set<string>();
  for (const part of chunks([...new Set(secrets)], MAX_PARAMS - 10)) {
    const rows = await db
      .select({ secret: orderPositions.secret })
      .from(orderPositions)
      .innerJoin(orders, eq(orders.id, orderPositions.orderId))
      .where(
        and(eq(orderPositions.eventId, eventId), inArray(orderPositions.secret, part), sql`${orders.code} <> ${code}`),
      );
    for (const r of rows) taken.add(r.secret);
  }
  return taken;
}
