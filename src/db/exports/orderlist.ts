/**
 * The reads of the `orderlist` export: its orders, their positions and their fees, each a page
 * at a time by keyset (ordered by the order's time), filtered by the export's inputs; and the
 * tax rates and payment providers whose columns the sheets have.
 */
import { type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { readBatch, readRows, type Row } from "../raw";
import { after, and, countOf, eventIn, PROVIDERS } from "./common";

/** The inputs of an order export as conditions take them: the dates as instants, `to` exclusive. */
export type OrderFilter = {
  eventIds: readonly number[];
  paidOnly: boolean;
  /** The order's time. */
  from: number | null;
  to: number | null;
  /** The date of one of the order's tickets (a date of the series, or the event's). */
  eventFrom: number | null;
  eventTo: number | null;
};

/** Conditions on orders (alias `o`). */
function orderConditions(f: OrderFilter): SQL[] {
  const out: SQL[] = [eventIn(sql`o.event_id`, f.eventIds)];
  if (f.paidOnly) out.push(sql`o.status = 'p'`);
  if (f.from !== null) out.push(sql`o.datetime >= ${f.from}`);
  if (f.to !== null) out.push(sql`o.datetime < ${f.to}`);
  const dateOf = sql`coalesce((SELECT s2.date_from FROM subevents s2 WHERE s2.id = p2.subevent_id), (SELECT e2.date_from FROM events e2 WHERE e2.id = o.event_id))`;
  if (f.eventFrom !== null)
    out.push(sql`EXISTS (SELECT 1 FROM order_positions p2 WHERE p2.order_id = o.id AND ${dateOf} >= ${f.eventFrom})`);
  if (f.eventTo !== null)
    out.push(sql`EXISTS (SELECT 1 FROM order_positions p2 WHERE p2.order_id = o.id AND ${dateOf} < ${f.eventTo})`);
  return out;
}

/** The tax rates of the events' positions and fees, and the payment providers of their orders (`free` left out). */
export async function orderListFacts(
  db: DB,
  eventIds: readonly number[],
): Promise<{ taxRates: number[]; paymentProviders: string[] }> {
  const [rates, providers] = await readBatch(db, [
    sql`SELECT DISTINCT tax_rate FROM (
          SELECT p.tax_rate FROM order_positions p WHERE ${eventIn(sql`p.event_id`, eventIds)}
          UNION SELECT f.tax_rate FROM order_fees f JOIN orders o ON o.id = f.order_id WHERE ${eventIn(sql`o.event_id`, eventIds)}
        ) ORDER BY tax_rate`,
    sql`SELECT DISTINCT pay.provider FROM order_payments pay JOIN orders o ON o.id = pay.order_id
        WHERE ${eventIn(sql`o.event_id`, eventIds)} AND pay.provider <> 'free' ORDER BY pay.provider`,
  ]);
  return {
    taxRates: rates!.map((r) => Number(r.tax_rate)),
    paymentProviders: providers!.map((r) => String(r.provider)),
  };
}

// ---- orders ----

export function countOrders(db: DB, f: OrderFilter): Promise<number> {
  return countOf(db, sql`SELECT count(*) AS n FROM orders o WHERE ${and(orderConditions(f))}`);
}

/**
 * A page of orders with their totals (last payment, fees, positions, providers), and for the
 * page's orders their sums per tax rate (positions and fees) and what each provider was paid.
 */
export async function orderPage(
  db: DB,
  f: OrderFilter,
  cursor: unknown,
  limit: number,
): Promise<{ orders: Row[]; taxes: Row[]; paid: Row[] }> {
  const where = and([...orderConditions(f), after(cursor, sql`o.datetime, o.id`)]);
  const pageIds = sql`SELECT o.id FROM orders o WHERE ${where} ORDER BY o.datetime, o.id LIMIT ${limit}`;
  const [orders, taxes, paid] = await readBatch(db, [
    sql`SELECT o.id, o.event_id, o.code, o.total, o.status, o.email, o.phone, o.datetime, o.invoice_address, o.locale, o.sales_channel,
               o.checkin_attention, o.comment,
               (SELECT max(pay.payment_date) FROM order_payments pay WHERE pay.order_id = o.id AND pay.state IN ('confirmed', 'refunded')) AS last_payment,
               (SELECT coalesce(sum(f.value), 0) FROM order_fees f WHERE f.order_id = o.id AND f.canceled = 0) AS fees,
               (SELECT count(*) FROM order_positions p WHERE p.order_id = o.id AND p.canceled = 0) AS positions,
               ${PROVIDERS} AS providers
        FROM orders o WHERE ${where} ORDER BY o.datetime, o.id LIMIT ${limit}`,
    sql`SELECT order_id, tax_rate, sum(gross) AS gross, sum(tax) AS tax FROM (
          SELECT order_id, tax_rate, price AS gross, tax_value AS tax FROM order_positions WHERE canceled = 0 AND order_id IN (${pageIds})
          UNION ALL
          SELECT order_id, tax_rate, value, tax_value FROM order_fees WHERE canceled = 0 AND order_id IN (${pageIds})
        ) GROUP BY order_id, tax_rate`,
    sql`SELECT order_id, provider, sum(amount) AS amount FROM order_payments
        WHERE state IN ('confirmed', 'refunded') AND order_id IN (${pageIds}) GROUP BY order_id, provider`,
  ]);
  return { orders: orders!, taxes: taxes!, paid: paid! };
}

// ---- positions ----

export function countPositions(db: DB, f: OrderFilter): Promise<number> {
  return countOf(
    db,
    sql`SELECT count(*) AS n FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE p.canceled = 0 AND ${and(orderConditions(f))}`,
  );
}

/** A page of the tickets not canceled, with their order, product, variation, tax rule, voucher, date and seat. */
export function positionPage(db: DB, f: OrderFilter, cursor: unknown, limit: number): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT p.id, p.positionid, p.price, p.tax_rate, p.tax_value, p.attendee_name, p.attendee_name_parts, p.attendee_email,
               p.pseudonymization_id, p.seat, p.seat_name, p.answers,
               o.id AS order_id, o.event_id, o.code, o.status, o.email, o.phone, o.datetime, o.comment, o.invoice_address, o.sales_channel, o.locale,
               i.name AS item_name, v.value AS variation_name, tr.name AS tax_rule_name, vo.code AS voucher_code,
               se.name AS subevent_name, se.date_from AS subevent_from, se.date_to AS subevent_to,
               s.zone_name, s.row_name, s.seat_number,
               ${PROVIDERS} AS providers
        FROM order_positions p
        JOIN orders o ON o.id = p.order_id
        JOIN items i ON i.id = p.item_id
        LEFT JOIN item_variations v ON v.id = p.variation_id
        LEFT JOIN tax_rules tr ON tr.id = p.tax_rule_id
        LEFT JOIN vouchers vo ON vo.id = p.voucher_id
        LEFT JOIN subevents se ON se.id = p.subevent_id
        LEFT JOIN seating_plan_seats s ON s.id = p.seat_id
        WHERE p.canceled = 0 AND ${and(orderConditions(f))} AND ${after(cursor, sql`o.datetime, o.id, p.positionid`)}
        ORDER BY o.datetime, o.id, p.positionid LIMIT ${limit}`,
  );
}

// ---- fees ----

export function countFees(db: DB, f: OrderFilter): Promise<number> {
  return countOf(
    db,
    sql`SELECT count(*) AS n FROM order_fees f JOIN orders o ON o.id = f.order_id WHERE f.canceled = 0 AND ${and(orderConditions(f))}`,
  );
}

/** A page of the fees not canceled, with their order and tax rule. */
export function feePage(db: DB, f: OrderFilter, cursor: unknown, limit: number): Promise<Row[]> {
  return readRows(
    db,
    sql`SELECT f.id, f.fee_type, f.description, f.value, f.tax_rate, f.tax_value, tr.name AS tax_rule_name,
               o.id AS order_id, o.event_id, o.code, o.status, o.email, o.phone, o.datetime, o.invoice_address, ${PROVIDERS} AS providers
        FROM order_fees f JOIN orders o ON o.id = f.order_id LEFT JOIN tax_rules tr ON tr.id = f.tax_rule_id
        WHERE f.canceled = 0 AND ${and(orderConditions(f))} AND ${after(cursor, sql`o.datetime, o.id, f.id`)}
        ORDER BY o.datetime, o.id, f.id LIMIT ${limit}`,
  );
}
