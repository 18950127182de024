/**
 * The D1 side of an order change (pretix docs orders.rst "Changing order contents"): one batch,
 * conditional on the order being pending or paid and unmodified since the caller read it. Its
 * first statement moves the order's `last_modified` to the change's time; every other statement
 * applies only if that happened, so a stale change writes nothing and a replay nothing twice.
 * The ledger (`reconcileTransactions`) and the webhook call are written in the same batch.
 */
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Statement } from "./batch";
import type { DB } from "./client";
import type { FeeInsert, PositionInsert } from "./order-writes";
import { sortNameOf } from "./order-writes";
import { statement } from "./raw";
import { type Answer, itemAddons, type NameParts, orderFees, orderPositions, orders, vouchers } from "./schema";
import { type TicketChange, ticketChangeStatements } from "./ticket-secrets";
import { reconcileTransactions } from "./transactions";
import { notificationStatement, ORDER_ACTIONS } from "./webhooks";

/** A position's new values (only the columns that change are set). */
export type PositionPatch = {
  id: number;
  set: Partial<{
    itemId: number;
    variationId: number | null;
    subeventId: number | null;
    seat: string | null;
    seatId: number | null;
    seatName: string | null;
    price: number;
    taxRate: number;
    taxValue: number;
    taxRuleId: number | null;
    attendeeName: string | null;
    attendeeNameParts: NameParts;
    attendeeEmail: string | null;
    answers: Answer[];
    validFrom: number | null;
    validUntil: number | null;
  }>;
};

export type FeePatch = { id: number; value: number; taxRate: number; taxValue: number; taxRuleId: number | null };

/** Everything one change writes. `creates` name their base by its number in the order. */
export type ChangeWrite = {
  orderId: number;
  eventId: number;
  code: string;
  /** The order's `last_modified` as the caller read it: the change applies only to that version. */
  expectedModified: number;
  /** The change's time (the order's new `last_modified`; greater than `expectedModified`). */
  now: number;
  total: number;
  /** A paid order whose new total is more than it was paid becomes pending, expiring then (pretix's order change). */
  pendingExpires: number;
  patches: PositionPatch[];
  cancelPositionIds: number[];
  creates: (PositionInsert & { baseName: string | null })[];
  feePatches: FeePatch[];
  cancelFeeIds: number[];
  feeCreates: FeeInsert[];
  /** Voucher uses given back by canceled positions (voucher id → count). */
  voucherReleases: [number, number][];
  /** New secrets of tickets whose product, date or validity changed (signed secrets encode them). */
  tickets: TicketChange[];
};

/** The order is at the change's version: the first statement of the batch moved it there. */
function applied(w: ChangeWrite): SQL {
  return sql`EXISTS (SELECT 1 FROM orders o WHERE o.id = ${w.orderId} AND o.last_modified = ${w.now})`;
}

/** What an order was paid, as pretix's `payment_refund_sum`: payments received less refunds made or under way. */
function paidSum(orderId: number): SQL {
  return sql`(SELECT coalesce(sum(y.amount), 0) FROM order_payments y WHERE y.order_id = ${orderId} AND y.state IN ('confirmed', 'refunded'))
    - (SELECT coalesce(sum(r.amount), 0) FROM order_refunds r WHERE r.order_id = ${orderId} AND r.state IN ('done', 'transit', 'created'))`;
}

/** The statements of a change; the first returns the order's id when the change applies. */
export function changeWriteStatements(db: DB, w: ChangeWrite): Statement[] {
  const done = applied(w);
  const underpaid = sql`${orders.status} = 'p' AND ${w.total} > ${paidSum(w.orderId)}`;
  const stmts: Statement[] = [
    db
      .update(orders)
      .set({
        total: w.total,
        lastModified: w.now,
        status: sql`CASE WHEN ${underpaid} THEN 'n' ELSE ${orders.status} END`,
        expires: sql`CASE WHEN ${underpaid} THEN max(${orders.expires}, ${w.pendingExpires}) ELSE ${orders.expires} END`,
      })
      .where(
        and(
          eq(orders.id, w.orderId),
          eq(orders.eventId, w.eventId),
          inArray(orders.status, ["n", "p"]),
          eq(orders.lastModified, w.expectedModified),
        ),
      )
      .returning({ id: orders.id }),
  ];
  const mine = (id: number) => and(eq(orderPositions.id, id), eq(orderPositions.orderId, w.orderId), done);
  for (const p of w.patches) {
    if (Object.keys(p.set).length) stmts.push(db.update(orderPositions).set(p.set).where(mine(p.id)));
  }
  for (const id of w.cancelPositionIds) stmts.push(db.update(orderPositions).set({ canceled: true }).where(mine(id)));
  // the positions' copy of the order's status (a paid order may be pending now)
  stmts.push(
    db
      .update(orderPositions)
      .set({ orderStatus: sql`(SELECT o.status FROM orders o WHERE o.id = ${w.orderId})` })
      .where(and(eq(orderPositions.orderId, w.orderId), done)),
  );
  for (const c of w.creates) stmts.push(positionInsert(db, w, c, done));
  const fee = (id: number) => and(eq(orderFees.id, id), eq(orderFees.orderId, w.orderId), done);
  for (const f of w.feePatches) {
    const { id, ...set } = f;
    stmts.push(db.update(orderFees).set(set).where(fee(id)));
  }
  for (const id of w.cancelFeeIds) stmts.push(db.update(orderFees).set({ canceled: true }).where(fee(id)));
  for (const f of w.feeCreates) {
    stmts.push(
      statement(
        db,
        sql`INSERT INTO order_fees (order_id, fee_type, value, description, internal_type, tax_rate, tax_value, tax_rule_id, canceled)
          SELECT ${w.orderId}, ${f.feeType}, ${f.value}, ${f.description ?? ""}, ${f.internalType ?? ""}, ${f.taxRate ?? 0},
            ${f.taxValue ?? 0}, ${f.taxRuleId ?? null}, 0 WHERE ${done}`,
      ),
    );
  }
  for (const [voucherId, n] of w.voucherReleases) {
    stmts.push(
      db
        .update(vouchers)
        .set({ redeemed: sql`max(0, ${vouchers.redeemed} - ${n})` })
        .where(and(eq(vouchers.id, voucherId), eq(vouchers.eventId, w.eventId), done)),
    );
  }
  if (w.tickets.length)
    stmts.push(...ticketChangeStatements(db, w.eventId, w.orderId, w.tickets, w.now, { condition: done }));
  stmts.push(
    notificationStatement(db, {
      eventId: w.eventId,
      code: w.code,
      actions: [ORDER_ACTIONS.changed],
      now: w.now,
      condition: done,
    }),
  );
  // what the order owes after the change, in the transactions ledger (nothing when nothing changed)
  stmts.push(reconcileTransactions(db, w.orderId, w.now, w.now));
  return stmts;
}

/** A new position of the order, inserted only when the change applies. */
function positionInsert(db: DB, w: ChangeWrite, c: ChangeWrite["creates"][number], done: SQL): Statement {
  const addonTo =
    c.addonToPositionid === null
      ? sql`NULL`
      : sql`(SELECT p2.id FROM order_positions p2 WHERE p2.order_id = ${w.orderId} AND p2.positionid = ${c.addonToPositionid})`;
  return statement(
    db,
    sql`INSERT INTO order_positions (order_id, event_id, positionid, item_id, variation_id, subevent_id, price,
        attendee_name, attendee_name_parts, attendee_email, voucher_id, tax_rate, tax_value, tax_rule_id, secret, addon_to,
        is_bundled, pseudonymization_id, seat, seat_id, seat_name, answers, canceled, valid_from, valid_until, order_status, sort_name)
      SELECT ${w.orderId}, ${w.eventId}, ${c.positionid}, ${c.itemId}, ${c.variationId ?? null}, ${c.subeventId ?? null}, ${c.price},
        ${c.attendeeName ?? null}, ${JSON.stringify(c.attendeeNameParts)}, ${c.attendeeEmail ?? null}, ${c.voucherId ?? null},
        ${c.taxRate ?? 0}, ${c.taxValue ?? 0}, ${c.taxRuleId ?? null}, ${c.secret}, ${addonTo}, 0, ${c.pseudonymizationId},
        ${c.seat ?? null}, ${c.seatId ?? null}, ${c.seatName ?? null}, ${JSON.stringify(c.answers)}, 0, ${c.validFrom ?? null},
        ${c.validUntil ?? null}, (SELECT o.status FROM orders o WHERE o.id = ${w.orderId}),
        ${sortNameOf(c.attendeeName, c.addonToPositionid === null ? undefined : c.baseName)}
      WHERE ${done}`,
  );
}

/** The order's `last_modified` and status now (after a write whose outcome is unknown); undefined: no such order. */
export async function orderVersion(db: DB, orderId: number): Promise<{ m: number; status: string } | undefined> {
  return db.select({ m: orders.lastModified, status: orders.status }).from(orders).where(eq(orders.id, orderId)).get();
}

/** Which of `categories` the base item allows as add-ons (pretix item add-ons). */
export async function addonCategoriesOf(db: DB, baseItemIds: number[]): Promise<Map<number, Set<number>>> {
  const out = new Map<number, Set<number>>();
  if (baseItemIds.length === 0) return out;
  const rows = await db
    .select({ itemId: itemAddons.itemId, categoryId: itemAddons.addonCategoryId })
    .from(itemAddons)
    .where(inArray(itemAddons.itemId, baseItemIds));
  for (const r of rows) {
    let set = out.get(r.itemId);
    if (!set) out.set(r.itemId, (set = new Set()));
    set.add(r.categoryId);
  }
  return out;
}
