/**
 * The order refund resource as pretix's orders.rst shapes it (`local_id`, `state`, `source`,
 * `amount`, `payment`, `created`, `execution_date`, `comment`, `provider`), with `details` as
 * pretix's newer API has it (empty: the service keeps no provider details of refunds).
 */
import { z } from "zod";
import type { RefundJson } from "../services/orders/order-reads";
import { REFUND_SOURCES, REFUND_STATES } from "../services/stored-values";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";
import { dateTime, money, object } from "../http/responses";

export const refundResponse = z
  .object({
    local_id: z.number().int(),
    state: z.enum(REFUND_STATES),
    source: z.enum(REFUND_SOURCES),
    amount: money(),
    payment: z.number().int().nullable().meta({ description: "The `local_id` of the refunded payment." }),
    created: dateTime(),
    execution_date: dateTime().nullable(),
    comment: z.string().nullable(),
    provider: z.string(),
    details: object(),
  })
  .meta({ id: "OrderRefund" });
export type RefundResponse = z.infer<typeof refundResponse>;

export function serializeRefund(r: RefundJson): RefundResponse {
  return {
    local_id: r.local_id,
    state: r.state as RefundResponse["state"],
    source: r.source as RefundResponse["source"],
    amount: formatMoney(r.amount),
    payment: r.payment,
    created: toIso(r.created)!,
    execution_date: toIso(r.execution_date),
    comment: r.comment,
    provider: r.provider,
    details: {},
  };
}
