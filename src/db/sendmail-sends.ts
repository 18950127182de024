/**
 * What automated email rules send: the rules whose time may have come (with their event or
 * date), the orders and positions a rule reaches, and the statements that write a mail together
 * with its record in `sendmail_rule_sends` — the mail only when the record does not exist yet,
 * in one transaction, so each mail goes out once however often (or however overlapping) the
 * cron runs.
 */
import { getTableColumns, sql, type SQL } from "drizzle-orm";
import type { DB } from "./client";
import { readBatch, type Row } from "./raw";
import type { MailInsert } from "./mail";
import { mailOutbox, sendmailRuleDone, sendmailRuleSends } from "./schema";

const DAY = 86_400_000;

/** A rule together with the event, or one date of a series, it may be due for. */
export type RuleCandidate = {
  ruleId: number;
  organizerId: number;
  organizerSlug: string;
  organizerName: string;
  eventId: number;
  eventSlug: string;
  eventName: string;
  timezone: string;
  currency: string;
  /** 0: the event itself. */
  subeventId: number;
  dateFrom: number;
  dateTo: number | null;
  subject: string;
  template: string;
  allProducts: boolean;
  items: number[];
  includePending: boolean;
  dateIsAbsolute: boolean;
  sendDate: number | null;
  sendOffsetDays: number | null;
  sendOffsetTime: string | null;
  offsetToEventEnd: boolean;
  offsetIsAfter: boolean;
  sendTo: string;
};

const RULE_COLUMNS = sql`r.id AS rule_id, r.subject, r.template, r.all_products, r.include_pending, r.date_is_absolute, r.send_date,
  r.send_offset_days, r.send_offset_time, r.offset_to_event_end, r.offset_is_after, r.send_to,
  (SELECT json_group_array(item_id) FROM sendmail_rule_items WHERE rule_id = r.id) AS items,
  e.id AS event_id, e.slug AS event_slug, e.name AS event_name, e.timezone, e.currency,
  o.id AS organizer_id, o.slug AS organizer_slug, o.name AS organizer_name`;

/**
 * The base instant of a rule's offset is within a few days of its send time, so a window of
 * base dates around now finds every rule that may be due (the exact time is computed by the
 * caller in the event's timezone).
 */
function windowCondition(dateFrom: SQL, dateTo: SQL, now: number, graceMs: number): SQL {
  const base = sql`(CASE WHEN r.offset_to_event_end = 1 THEN coalesce(${dateTo}, ${dateFrom}) ELSE ${dateFrom} END)`;
  const shift = sql`(CASE WHEN r.offset_is_after = 1 THEN r.send_offset_days ELSE -r.send_offset_days END) * ${DAY}`;
  return sql`((r.date_is_absolute = 1 AND r.send_date BETWEEN ${now - graceMs} AND ${now})
    OR (r.date_is_absolute = 0 AND r.send_offset_days IS NOT NULL AND ${base} + ${shift} BETWEEN ${now - graceMs - 2 * DAY} AND ${now + 2 * DAY}))`;
}

/** Enabled rules of events and of the dates of series that may be due and have not completed. */
export async function ruleCandidates(db: DB, now: number, graceMs: number): Promise<RuleCandidate[]> {
  const [single, series] = await readBatch(db, [
    sql`SELECT ${RULE_COLUMNS}, 0 AS subevent_id, e.date_from, e.date_to
        FROM sendmail_rules r JOIN events e ON e.id = r.event_id JOIN organizers o ON o.id = e.organizer_id
        WHERE r.enabled = 1 AND e.has_subevents = 0 AND ${windowCondition(sql`e.date_from`, sql`e.date_to`, now, graceMs)}
          AND NOT EXISTS (SELECT 1 FROM sendmail_rule_done d WHERE d.rule_id = r.id AND d.subevent_id = 0)`,
    sql`SELECT ${RULE_COLUMNS}, s.id AS subevent_id, s.date_from, s.date_to
        FROM sendmail_rules r JOIN events e ON e.id = r.event_id JOIN organizers o ON o.id = e.organizer_id
        JOIN subevents s ON s.event_id = e.id
        WHERE r.enabled = 1 AND e.has_subevents = 1 AND ${windowCondition(sql`s.date_from`, sql`s.date_to`, now, graceMs)}
          AND NOT EXISTS (SELECT 1 FROM sendmail_rule_done d WHERE d.rule_id = r.id AND d.subevent_id = s.id)`,
  ]);
  return [...single!, ...series!].map((r) => ({
    ruleId: Number(r.rule_id),
    organizerId: Number(r.organizer_id),
    organizerSlug: String(r.organizer_slug),
    organizerName: String(r.organizer_name),
    eventId: Number(r.event_id),
    eventSlug: String(r.event_slug),
    eventName: String(r.event_name),
    timezone: String(r.timezone),
    currency: String(r.currency),
    subeventId: Number(r.subevent_id),
    dateFrom: Number(r.date_from),
    dateTo: r.date_to === null ? null : Number(r.date_to),
    subject: String(r.subject),
    template: String(r.template),
    allProducts: Boolean(r.all_products),
    items: JSON.parse(String(r.items)) as number[],
    includePending: Boolean(r.include_pending),
    dateIsAbsolute: Boolean(r.date_is_absolute),
    sendDate: r.send_date === null ? null : Number(r.send_date),
    sendOffsetDays: r.send_offset_days === null ? null : Number(r.send_offset_days),
    sendOffsetTime: r.send_offset_time === null ? null : String(r.send_offset_time),
    offsetToEventEnd: Boolean(r.offset_to_event_end),
    offsetIsAfter: Boolean(r.offset_is_after),
    sendTo: String(r.send_to),
  }));
}

export type RecipientOrder = Row & { id: number };

/**
 * The next orders (by id, after `afterId`) a rule reaches for the event or date, with their
 * positions (not canceled): paid orders, and pending ones not awaiting approval with
 * `include_pending` (pretix: restrict_to_status from include_pending); with a date, orders that
 * have a position of that date; with products, orders that have a position of one of them.
 * Orders the rule has written to already are skipped.
 */
export async function ruleRecipients(
  db: DB,
  c: RuleCandidate,
  afterId: number,
  limit: number,
): Promise<{ orders: RecipientOrder[]; positions: Row[] }> {
  const conditions: SQL[] = [sql`o.event_id = ${c.eventId}`, sql`o.id > ${afterId}`];
  conditions.push(
    c.includePending ? sql`(o.status = 'p' OR (o.status = 'n' AND o.require_approval = 0))` : sql`o.status = 'p'`,
  );
  if (c.subeventId) {
    conditions.push(
      sql`EXISTS (SELECT 1 FROM order_positions p WHERE p.order_id = o.id AND p.canceled = 0 AND p.subevent_id = ${c.subeventId})`,
    );
  }
  if (!c.allProducts) {
    conditions.push(sql`EXISTS (SELECT 1 FROM order_positions p WHERE p.order_id = o.id AND p.canceled = 0
      AND p.item_id IN (SELECT item_id FROM sendmail_rule_items WHERE rule_id = ${c.ruleId}))`);
  }
  conditions.push(
    sql`NOT EXISTS (SELECT 1 FROM sendmail_rule_sends s WHERE s.rule_id = ${c.ruleId} AND s.subevent_id = ${c.subeventId} AND s.order_id = o.id)`,
  );
  const where = sql.join(conditions, sql` AND `);
  const ids = sql`SELECT o.id FROM orders o WHERE ${where} ORDER BY o.id LIMIT ${limit}`;
  const [orders, positions] = await readBatch(db, [
    sql`SELECT o.id, o.code, o.secret, o.email, o.locale, o.total, o.expires, o.invoice_address FROM orders o WHERE ${where} ORDER BY o.id LIMIT ${limit}`,
    sql`SELECT p.id, p.order_id, p.positionid, p.item_id, p.subevent_id, p.attendee_name_parts, p.attendee_email
        FROM order_positions p WHERE p.canceled = 0 AND p.order_id IN (${ids}) ORDER BY p.order_id, p.positionid`,
  ]);
  return { orders: orders as RecipientOrder[], positions: positions! };
}

/** The key of one mail of a rule: the order's mail (`positionId` 0) or an attendee's. */
export type SendKey = { ruleId: number; subeventId: number; orderId: number; positionId: number };

function sendExists(k: SendKey): SQL {
  return sql`EXISTS (SELECT 1 FROM sendmail_rule_sends WHERE rule_id = ${k.ruleId} AND subevent_id = ${k.subeventId} AND order_id = ${k.orderId} AND position_id = ${k.positionId})`;
}

/**
 * The statements of one mail: the outbox row, written only while the mail's record does not
 * exist (returns its id), then the record. Run them in one batch.
 */
export function ruleMailStatements(db: DB, key: SendKey, mail: MailInsert, now: number) {
  const values = mail as Record<string, unknown>;
  const columns = Object.entries(getTableColumns(mailOutbox)).map(([name]) =>
    name === "id" ? sql`NULL` : sql`${values[name] ?? null}`,
  );
  const insertMail = db
    .insert(mailOutbox)
    .select(sql`SELECT ${sql.join(columns, sql`, `)} WHERE NOT ${sendExists(key)}`)
    .returning({ id: mailOutbox.id });
  const record = db
    .insert(sendmailRuleSends)
    .values({ ...key, createdAt: now })
    .onConflictDoNothing();
  return [insertMail, record] as const;
}

/** The rule has gone through every recipient of the event or date (pretix: state "completed"). */
export function ruleDoneStatement(db: DB, c: { ruleId: number; subeventId: number }, sendAt: number, now: number) {
  return db
    .insert(sendmailRuleDone)
    .values({ ruleId: c.ruleId, subeventId: c.subeventId, sendAt, completedAt: now })
    .onConflictDoNothing();
}
