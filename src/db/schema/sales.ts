/**
 * Selling: vouchers, cart positions, orders with positions, fees and payments
 * (pretix docs vouchers.rst, carts.rst, orders.rst). Capacity decisions on these
 * rows are taken by the event's Durable Object (src/objects/event/); it is the only
 * writer of order status, cart rows and voucher redemption counts.
 */
import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { quotas, taxRules } from "./catalog";
import { type NameParts, customers } from "./customers";
import { events, subevents } from "./events";
import { itemVariations, items } from "./items";

export const PRICE_MODES = ["none", "set", "subtract", "percent"] as const;

export type PriceMode = (typeof PRICE_MODES)[number];

/** The unique index of a voucher code in its event (any case): SQLite names it when it refuses a code. */
export const VOUCHER_CODE_INDEX = "vouchers_event_code_lower_uq";

export const vouchers = sqliteTable(
  "vouchers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    code: text("code").notNull(),
    maxUsages: integer("max_usages").notNull().default(1),
    minUsages: integer("min_usages").notNull().default(1),
    /** Kept by the event's Durable Object: positions of pending and paid orders using the voucher. */
    redeemed: integer("redeemed").notNull().default(0),
    validUntil: integer("valid_until"),
    blockQuota: integer("block_quota", { mode: "boolean" }).notNull().default(false),
    allowIgnoreQuota: integer("allow_ignore_quota", { mode: "boolean" }).notNull().default(false),
    priceMode: text("price_mode", { enum: PRICE_MODES }).notNull().default("none"),
    /** Hundredths: money for `set` / `subtract`, percent for `percent`. */
    value: integer("value").notNull().default(0),
    itemId: integer("item_id").references(() => items.id, { onDelete: "cascade" }),
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "cascade" }),
    quotaId: integer("quota_id").references(() => quotas.id, { onDelete: "cascade" }),
    seat: text("seat"),
    tag: text("tag").notNull().default(""),
    comment: text("comment").notNull().default(""),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    showHiddenItems: integer("show_hidden_items", { mode: "boolean" }).notNull().default(true),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [
    // codes are compared case-insensitively everywhere: unique as the API compares them
    uniqueIndex(VOUCHER_CODE_INDEX).on(t.eventId, sql`lower(${t.code})`),
    index("vouchers_event_tag_idx").on(t.eventId, t.tag),
    index("vouchers_item_idx").on(t.itemId),
    index("vouchers_quota_idx").on(t.quotaId),
  ],
);

/** An answer as stored with a position: identifiers as they were when answered. */
export type Answer = {
  question: number;
  answer: string;
  options: number[];
  question_identifier: string;
  option_identifiers: string[];
};

export const cartPositions = sqliteTable(
  "cart_positions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "cascade" }),
    cartId: text("cart_id").notNull(),
    /** The reservation's key in the event object's ledger. */
    holdKey: text("hold_key").notNull().unique(),
    datetime: integer("datetime").notNull(),
    expires: integer("expires").notNull(),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "cascade" }),
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "cascade" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "cascade" }),
    price: integer("price").notNull(),
    attendeeNameParts: text("attendee_name_parts", { mode: "json" }).$type<NameParts>().notNull(),
    attendeeEmail: text("attendee_email"),
    voucherId: integer("voucher_id").references(() => vouchers.id, { onDelete: "set null" }),
    addonTo: integer("addon_to"),
    isBundled: integer("is_bundled", { mode: "boolean" }).notNull().default(false),
    includesTax: integer("includes_tax", { mode: "boolean" }).notNull().default(true),
    /** seat_guid, with the seat's id and name in the plan when the position was made. */
    seat: text("seat"),
    seatId: integer("seat_id"),
    seatName: text("seat_name"),
    salesChannel: text("sales_channel").notNull().default("web"),
    answers: text("answers", { mode: "json" }).$type<Answer[]>().notNull(),
  },
  (t) => [
    index("cart_positions_event_cart_idx").on(t.eventId, t.cartId),
    index("cart_positions_expires_idx").on(t.expires),
  ],
);

export const ORDER_STATUSES = ["n", "p", "e", "c"] as const;

export type OrderStatus = (typeof ORDER_STATUSES)[number];

export type InvoiceAddress = {
  is_business: boolean;
  company: string;
  name_parts: NameParts;
  street: string;
  zipcode: string;
  city: string;
  country: string;
  state: string;
  internal_reference: string;
  vat_id: string;
  last_modified: number;
};

/** Orders. Status: n pending, p paid, e expired, c canceled. */
export const orders = sqliteTable(
  "orders",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "restrict" }),
    code: text("code").notNull(),
    status: text("status", { enum: ORDER_STATUSES }).notNull(),
    testmode: integer("testmode", { mode: "boolean" }).notNull().default(false),
    secret: text("secret").notNull(),
    email: text("email"),
    phone: text("phone"),
    locale: text("locale").notNull().default("en"),
    salesChannel: text("sales_channel").notNull().default("web"),
    datetime: integer("datetime").notNull(),
    expires: integer("expires").notNull(),
    total: integer("total").notNull(),
    comment: text("comment").notNull().default(""),
    checkinAttention: integer("checkin_attention", { mode: "boolean" }).notNull().default(false),
    requireApproval: integer("require_approval", { mode: "boolean" }).notNull().default(false),
    invoiceAddress: text("invoice_address", { mode: "json" }).$type<InvoiceAddress | null>(),
    customerId: integer("customer_id").references(() => customers.id, { onDelete: "set null" }),
    cancellationDate: integer("cancellation_date"),
    lastModified: integer("last_modified").notNull(),
    /**
     * The event's organizer, kept with the order (set by a trigger on insert, migrations/0025):
     * the organizer's orders list walks one index in each ordering across its events.
     */
    organizerId: integer("organizer_id"),
  },
  (t) => [
    uniqueIndex("orders_event_code_uq").on(t.eventId, t.code),
    index("orders_event_datetime_idx").on(t.eventId, t.datetime),
    index("orders_event_modified_idx").on(t.eventId, t.lastModified),
    index("orders_status_expires_idx").on(t.status, t.expires),
    index("orders_customer_idx").on(t.customerId),
    // orderings of the orders list (status, cancellation_date) and of a check-in list's tickets (order__email)
    index("orders_event_status_idx").on(t.eventId, t.status),
    index("orders_event_email_idx").on(t.eventId, t.email),
    // the orders list's `email` filter (any case)
    index("orders_event_email_lower_idx").on(t.eventId, sql`lower(${t.email})`),
    index("orders_event_cancellation_idx").on(t.eventId, t.cancellationDate),
    // the orderings of the organizer's orders list (and of its tickets by their orders), across its events
    index("orders_organizer_datetime_idx").on(t.organizerId, t.datetime),
    index("orders_organizer_code_idx").on(t.organizerId, t.code),
    index("orders_organizer_status_idx").on(t.organizerId, t.status),
    index("orders_organizer_modified_idx").on(t.organizerId, t.lastModified),
    index("orders_organizer_cancellation_idx").on(t.organizerId, t.cancellationDate),
  ],
);

export const orderPositions = sqliteTable(
  "order_positions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    eventId: integer("event_id")
      .notNull()
      .references(() => events.id, { onDelete: "restrict" }),
    positionid: integer("positionid").notNull(),
    itemId: integer("item_id")
      .notNull()
      .references(() => items.id, { onDelete: "restrict" }),
    variationId: integer("variation_id").references(() => itemVariations.id, { onDelete: "restrict" }),
    subeventId: integer("subevent_id").references(() => subevents.id, { onDelete: "restrict" }),
    price: integer("price").notNull(),
    attendeeName: text("attendee_name"),
    attendeeNameParts: text("attendee_name_parts", { mode: "json" }).$type<NameParts>().notNull(),
    attendeeEmail: text("attendee_email"),
    voucherId: integer("voucher_id").references(() => vouchers.id, { onDelete: "set null" }),
    taxRate: integer("tax_rate").notNull().default(0),
    taxValue: integer("tax_value").notNull().default(0),
    taxRuleId: integer("tax_rule_id").references(() => taxRules.id, { onDelete: "restrict" }),
    /** Unique within the event (pretix: any text up to 255 characters, as tickets printed elsewhere carry it). */
    secret: text("secret").notNull(),
    addonTo: integer("addon_to"),
    isBundled: integer("is_bundled", { mode: "boolean" }).notNull().default(false),
    pseudonymizationId: text("pseudonymization_id").notNull(),
    seat: text("seat"),
    seatId: integer("seat_id"),
    seatName: text("seat_name"),
    answers: text("answers", { mode: "json" }).$type<Answer[]>().notNull(),
    canceled: integer("canceled", { mode: "boolean" }).notNull().default(false),
    /** The ticket's validity window (item `validity_*` at purchase; pretix orders.rst `valid_from` / `valid_until`). */
    validFrom: integer("valid_from"),
    validUntil: integer("valid_until"),
    /**
     * The order's status, kept with each of its positions (written with the order and in the
     * same batch as every status change, db/payments.ts): a check-in list's tickets are counted
     * and paged from one index of this table, without visiting each order (docs/scaling.md).
     */
    orderStatus: text("order_status", { enum: ORDER_STATUSES }).notNull().default("n"),
    /**
     * The name lists sort tickets by: the attendee's name, or for an add-on without one its base
     * position's (pretix `Coalesce(attendee_name_cached, addon_to__attendee_name_cached)`).
     * Written with the position; names do not change afterwards.
     */
    sortName: text("sort_name"),
    /** pretix orders.rst `blocked`: names of the blocks on the ticket (`admin`, `api:...`), null when it is not blocked. */
    blocked: text("blocked", { mode: "json" }).$type<string[] | null>(),
  },
  (t) => [
    uniqueIndex("order_positions_order_positionid_uq").on(t.orderId, t.positionid),
    uniqueIndex("order_positions_event_secret_uq").on(t.eventId, t.secret),
    index("order_positions_event_idx").on(t.eventId, t.id),
    // a check-in list's tickets: counted from the first when a filter narrows them (a list's own total is
    // summed from position_tallies, migration 0016), paged in each documented ordering from the others
    index("order_positions_tickets_idx").on(t.eventId, t.canceled, t.orderStatus, t.itemId, t.subeventId),
    // the default ordering; it ends with the id and carries what a list tests (status, product,
    // date), so that a deep page's skipped tickets are stepped over in the index alone
    index("order_positions_named_first_idx").on(
      t.eventId,
      t.canceled,
      sql`(${t.sortName} IS NULL)`,
      t.sortName,
      t.positionid,
      t.id,
      t.orderStatus,
      t.itemId,
      t.subeventId,
    ),
    // the default ordering among one order status (a list without pending orders: paid ones): a
    // deep page steps over the skipped tickets without testing any (db/checkin/tickets.ts positionKeys)
    index("order_positions_status_named_first_idx").on(
      t.eventId,
      t.canceled,
      t.orderStatus,
      sql`(${t.sortName} IS NULL)`,
      t.sortName,
      t.positionid,
      t.id,
      t.itemId,
      t.subeventId,
    ),
    index("order_positions_sort_name_idx").on(t.eventId, t.canceled, t.sortName),
    index("order_positions_positionid_idx").on(t.eventId, t.canceled, t.positionid),
    index("order_positions_item_idx").on(t.itemId),
    index("order_positions_variation_idx").on(t.variationId),
    index("order_positions_subevent_idx").on(t.subeventId),
    index("order_positions_voucher_idx").on(t.voucherId),
    index("order_positions_tax_rule_idx").on(t.taxRuleId),
    // the positions list's `pseudonymization_id` filter
    index("order_positions_event_pseudonymization_idx").on(t.eventId, t.pseudonymizationId),
  ],
);

export const orderFees = sqliteTable(
  "order_fees",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    feeType: text("fee_type").notNull(),
    value: integer("value").notNull(),
    description: text("description").notNull().default(""),
    internalType: text("internal_type").notNull().default(""),
    taxRate: integer("tax_rate").notNull().default(0),
    taxValue: integer("tax_value").notNull().default(0),
    taxRuleId: integer("tax_rule_id").references(() => taxRules.id, { onDelete: "restrict" }),
    canceled: integer("canceled", { mode: "boolean" }).notNull().default(false),
  },
  (t) => [index("order_fees_order_idx").on(t.orderId), index("order_fees_tax_rule_idx").on(t.taxRuleId)],
);

export const PAYMENT_STATES = ["created", "pending", "confirmed", "canceled", "failed", "refunded"] as const;

export type PaymentState = (typeof PAYMENT_STATES)[number];

export const orderPayments = sqliteTable(
  "order_payments",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    orderId: integer("order_id")
      .notNull()
      .references(() => orders.id, { onDelete: "cascade" }),
    localId: integer("local_id").notNull(),
    state: text("state", { enum: PAYMENT_STATES }).notNull(),
    amount: integer("amount").notNull(),
    provider: text("provider").notNull(),
    created: integer("created").notNull(),
    paymentDate: integer("payment_date"),
    info: text("info", { mode: "json" }).$type<Record<string, unknown>>().notNull(),
  },
  (t) => [uniqueIndex("order_payments_order_local_uq").on(t.orderId, t.localId)],
);
