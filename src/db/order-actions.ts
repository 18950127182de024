/**
 * The D1 side of pretix's order state operations beyond a bare status change (pretix docs
 * orders.rst "Order state operations"): a new payment term (`extend`), an approval (`approve`,
 * `deny`), a cancellation that keeps the order with a fee (`mark_canceled` with
 * `cancellation_fee`), and the order's own fields (`PATCH`, the status kept). They ride on the status change's one conditional batch
 * (payments.ts `statusWriteStatements`), under its precondition, so they apply with it or not at all.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { orderFees, orderPositions, type orders, vouchers } from "./schema";

/** The order's fields a client may change (pretix docs orders.rst "Updating order fields"). */
export type OrderFields = Partial<
  Pick<
    typeof orders.$inferInsert,
    "email" | "phone" | "locale" | "comment" | "checkinAttention" | "invoiceAddress" | "expires"
  >
>;

/** What a status change does besides the status (all optional; none: a bare status change). */
export type StatusExtra = {
  /** Fields of the order set with it (`PATCH`, which keeps the status). */
  fields?: OrderFields;
  /** The webhook actions that report the change, in place of the status's own (pretix's names). */
  actions?: string[];
  /** The order's new payment term (`extend`). */
  expires?: number;
  /** The order's `require_approval` afterwards (`approve`: false). */
  requireApproval?: boolean;
  /** The change holds only while the order's `require_approval` is this (`approve`, `deny`). */
  whileRequireApproval?: boolean;
  /**
   * pretix's cancellation with a fee: every position and fee is canceled, a fee of type
   * `cancellation` of this value (cents) is added and becomes the total; the status stays.
   */
  cancellationFee?: number;
};

/** The precondition the extra adds to the status change's own (null: none). */
export function extraGate(orderId: number, x: StatusExtra | undefined): SQL | null {
  if (!x) return null;
  const parts: SQL[] = [];
  if (x.whileRequireApproval !== undefined)
    parts.push(
      sql`(SELECT o.require_approval FROM orders o WHERE o.id = ${orderId}) = ${x.whileRequireApproval ? 1 : 0}`,
    );
  // a replay of the same term writes nothing (and reports nothing) twice
  if (x.expires !== undefined)
    parts.push(sql`(SELECT o.expires FROM orders o WHERE o.id = ${orderId}) <> ${x.expires}`);
  // a cancellation with a fee applies once: while a position is not canceled
  if (x.cancellationFee !== undefined)
    parts.push(sql`EXISTS (SELECT 1 FROM order_positions p WHERE p.order_id = ${orderId} AND p.canceled = 0)`);
  return parts.length ? sql.join(parts, sql` AND `) : null;
}

/** The order's columns the extra sets with the status. */
export function extraOrderColumns(x: StatusExtra | undefined): Partial<typeof orders.$inferInsert> {
  if (!x) return {};
  return {
    ...x.fields,
    ...(x.expires !== undefined ? { expires: x.expires } : {}),
    ...(x.requireApproval !== undefined ? { requireApproval: x.requireApproval } : {}),
    ...(x.cancellationFee !== undefined ? { total: x.cancellationFee } : {}),
  };
}

/**
 * Before the order's update, under the change's gate: a cancellation with a fee gives the
 * positions' voucher uses back, cancels the order's fees and adds the cancellation fee.
 */
export function extraBeforeStatements(
  db: DB,
  eventId: number,
  orderId: number,
  x: StatusExtra | undefined,
  voucherUses: Map<number, number>,
  gate: SQL,
): BatchItem<"sqlite">[] {
  if (x?.cancellationFee === undefined) return [];
  const stmts: BatchItem<"sqlite">[] = [];
  for (const [voucherId, n] of voucherUses)
    stmts.push(
      db
        .update(vouchers)
        .set({ redeemed: sql`max(0, ${vouchers.redeemed} - ${n})` })
        .where(and(eq(vouchers.id, voucherId), eq(vouchers.eventId, eventId), gate)),
    );
  stmts.push(
    db
      .update(orderFees)
      .set({ canceled: true })
      .where(and(eq(orderFees.orderId, orderId), eq(orderFees.canceled, false), gate)),
  );
  // drizzle lists every column of the table, id first: NULL lets SQLite assign it
  stmts.push(
    db
      .insert(orderFees)
      .select(
        sql`SELECT NULL, o.id, 'cancellation', ${x.cancellationFee}, '', '', 0, 0, NULL, 0 FROM orders o WHERE o.id = ${orderId} AND ${gate}`,
      ),
  );
  return stmts;
}

/**
 * After the order's update: a cancellation with a fee cancels the positions, when this batch
 * changed the order (its `last_modified` is the change's; idempotent on a replay).
 */
export function extraAfterStatements(
  db: DB,
  orderId: number,
  x: StatusExtra | undefined,
  now: number,
): BatchItem<"sqlite">[] {
  if (x?.cancellationFee === undefined) return [];
  return [
    db
      .update(orderPositions)
      .set({ canceled: true })
      .where(
        and(
          eq(orderPositions.orderId, orderId),
          sql`(SELECT o.last_modified FROM orders o WHERE o.id = ${orderId}) = ${now}`,
        ),
      ),
  ];
}
