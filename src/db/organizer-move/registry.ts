/**
 * Which rows of a data group's database belong to one organizer: every table of the schema is
 * here, either with the condition that finds the organizer's rows (parents before children, the
 * order rows are copied in) or with the reason it is not moved. For the operator's move of an
 * organizer to another group (./steps.ts, docs/scaling.md "Moving an organizer").
 */

/** How a table's rows take part in a move. */
export type TableRule =
  /** Copied, verified, then deleted from the source. `where` selects the organizer's rows ({o}: its id). */
  | { table: string; kind: "owned"; where: string }
  /** Users: shared by organizers; copied when missing in the target, never deleted from the source. */
  | { table: string; kind: "shared"; where: string }
  /** Filled by triggers as the owned rows are written: never copied; its rows go with the organizer's. */
  | { table: string; kind: "derived"; where: string };

const EVENTS = "SELECT id FROM events WHERE organizer_id = {o}";
const ITEMS = `SELECT id FROM items WHERE event_id IN (${EVENTS})`;
const ORDERS = `SELECT id FROM orders WHERE event_id IN (${EVENTS})`;
const TEAMS = "SELECT id FROM teams WHERE organizer_id = {o}";

const owned = (table: string, where: string): TableRule => ({ table, kind: "owned", where });
const ofOrganizer = (table: string) => owned(table, "organizer_id = {o}");
const ofEvents = (table: string) => owned(table, `event_id IN (${EVENTS})`);
const under = (table: string, column: string, parent: string) =>
  owned(table, `${column} IN (SELECT id FROM ${parent} WHERE event_id IN (${EVENTS}))`);

/** Every organizer table, parents before children (deletes run in the reverse order). */
export const MOVED_TABLES: TableRule[] = [
  owned("organizers", "id = {o}"),
  ofOrganizer("organizer_settings"),
  ofOrganizer("invoice_counters"),
  { table: "users", kind: "shared", where: `id IN (SELECT user_id FROM team_members WHERE team_id IN (${TEAMS}))` },
  ofOrganizer("teams"),
  owned("team_members", `team_id IN (${TEAMS})`),
  owned("team_api_tokens", `team_id IN (${TEAMS})`),
  owned("team_invites", `team_id IN (${TEAMS})`),
  ofOrganizer("devices"),
  ofOrganizer("customers"),
  ofOrganizer("membership_types"),
  ofOrganizer("memberships"),
  ofOrganizer("event_meta_properties"),
  ofOrganizer("seating_plans"),
  owned("seating_plan_seats", "plan_id IN (SELECT id FROM seating_plans WHERE organizer_id = {o})"),
  ofOrganizer("events"),
  owned("team_events", `team_id IN (${TEAMS})`),
  owned("device_events", "device_id IN (SELECT id FROM devices WHERE organizer_id = {o})"),
  ofEvents("event_settings"),
  ofEvents("event_meta_values"),
  owned("change_stamps", `scope IN (SELECT 'event:' || id FROM events WHERE organizer_id = {o})`),
  ofEvents("tax_rules"),
  ofEvents("subevents"),
  under("subevent_meta_values", "subevent_id", "subevents"),
  ofEvents("item_categories"),
  ofEvents("quotas"),
  ofEvents("items"),
  owned("item_variations", `item_id IN (${ITEMS})`),
  owned("item_addons", `item_id IN (${ITEMS})`),
  owned("item_bundles", `item_id IN (${ITEMS})`),
  owned("item_membership_types", `item_id IN (${ITEMS})`),
  owned("variation_membership_types", `variation_id IN (SELECT id FROM item_variations WHERE item_id IN (${ITEMS}))`),
  under("quota_items", "quota_id", "quotas"),
  under("subevent_items", "subevent_id", "subevents"),
  under("subevent_item_variations", "subevent_id", "subevents"),
  ofEvents("questions"),
  ofEvents("question_options"),
  under("question_items", "question_id", "questions"),
  ofEvents("discounts"),
  under("discount_items", "discount_id", "discounts"),
  ofEvents("vouchers"),
  ofEvents("waitinglist_entries"),
  ofEvents("ticket_layouts"),
  under("ticket_layout_items", "layout_id", "ticket_layouts"),
  ofEvents("ticket_signing_keys"),
  ofEvents("checkin_lists"),
  under("checkin_list_items", "list_id", "checkin_lists"),
  ofEvents("sendmail_rules"),
  under("sendmail_rule_items", "rule_id", "sendmail_rules"),
  under("sendmail_rule_done", "rule_id", "sendmail_rules"),
  ofEvents("onsale_queues"),
  // written by the triggers of orders and order_positions: deleted after them (the reverse order)
  { table: "order_tallies", kind: "derived", where: `event_id IN (${EVENTS})` },
  { table: "position_tallies", kind: "derived", where: `event_id IN (${EVENTS})` },
  ofEvents("cart_positions"),
  ofEvents("orders"),
  ofEvents("order_positions"),
  owned("order_fees", `order_id IN (${ORDERS})`),
  owned("order_payments", `order_id IN (${ORDERS})`),
  owned("order_refunds", `order_id IN (${ORDERS})`),
  ofEvents("order_transactions"),
  under("sendmail_rule_sends", "rule_id", "sendmail_rules"),
  ofEvents("checkins"),
  ofEvents("blocked_secrets"),
  ofEvents("revoked_secrets"),
  ofOrganizer("invoices"),
  owned("gift_cards", "issuer_id = {o}"),
  owned("gift_card_acceptances", "issuer_id = {o} AND acceptor_id = {o}"),
  owned("gift_card_transactions", "card_id IN (SELECT id FROM gift_cards WHERE issuer_id = {o})"),
  ofOrganizer("stripe_objects"),
  ofOrganizer("stripe_events"),
  ofOrganizer("webhooks"),
  owned("webhook_events", "webhook_id IN (SELECT id FROM webhooks WHERE organizer_id = {o})"),
  ofOrganizer("webhook_calls"),
  owned("mail_outbox", `organizer_id = {o} OR event_id IN (${EVENTS})`),
  ofOrganizer("export_jobs"),
];

/** The tables of a data database that hold no organizer's rows, and why. */
export const NOT_MOVED: Record<string, string> = {
  d1_migrations: "the schema's version, the same in every group",
  sqlite_sequence: "each database's id counters; the move sets the target's back into its own range",
  _cf_KV: "D1's own metadata",
  _cf_METADATA: "D1's own metadata",
  sweep_marks: "the cron's progress through this database, no organizer's",
  idempotency_keys: "replay records of retried requests, kept a day; a retry after a move runs again",
  uploaded_files: "short-lived uploads waiting to be used by a request; the files themselves stay in R2",
  orders_search: "full-text index kept by triggers on orders",
  order_positions_search: "full-text index kept by triggers on order_positions",
};

/** Tables SQLite makes for a full-text index (their names start with the index's). */
export function isIndexShadow(table: string): boolean {
  return /^(orders_search|order_positions_search)_(data|idx|docsize|config|content)$/.test(table);
}

/** A rule's condition for one organizer. */
export function whereOf(rule: TableRule, organizerId: number): string {
  if (!Number.isSafeInteger(organizerId) || organizerId < 1) throw new Error(`invalid organizer id ${organizerId}`);
  return rule.where.replaceAll("{o}", String(organizerId));
}
