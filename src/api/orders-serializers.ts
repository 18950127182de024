/**
 * The order resource as pretix's orders.rst shapes it (the part the service uses):
 * one response schema per resource (order, position, fee, payment, invoice address) and the
 * serializers typed by them.
 */
import { z } from "zod";
import type { FeeJson, OrderRecord, PaymentJson, PositionJson } from "../services/orders/order-reads";
import type { InvoiceAddress } from "../services/stored-values";
import { OPEN_PAYMENT_STATES } from "../rules/payments";
import { buildName } from "../rules/person-names";
import { apiDownloadUrls, type Download, orderDownloads } from "../services/tickets/tickets";
import { orderUrl, paymentUrl } from "../rules/urls";
import { dateTime, decimalString, id, money, object, url } from "../http/responses";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";
import { answerResponse, seatResponse, serializeAnswer, serializeSeat } from "./orders-position-parts";
import { refundResponse, serializeRefund } from "./refunds-serializers";

export const positionResponse = z
  .object({
    id: id(),
    order: z.string(),
    positionid: z.number().int(),
    item: id(),
    variation: id().nullable(),
    price: money(),
    attendee_name: z.string().nullable(),
    attendee_name_parts: z.record(z.string(), z.string()),
    attendee_email: z.string().nullable(),
    voucher: id().nullable(),
    tax_rate: decimalString(),
    tax_value: money(),
    tax_rule: id().nullable(),
    secret: z.string(),
    addon_to: id().nullable(),
    subevent: id().nullable(),
    pseudonymization_id: z.string(),
    seat: seatResponse.nullable(),
    is_bundled: z.boolean(),
    /** The ticket's validity window (pretix orders.rst): admitted from `valid_from` until `valid_until`, null for no bound. */
    valid_from: dateTime().nullable(),
    valid_until: dateTime().nullable(),
    /** pretix: the names of the ticket's blocks (`admin`, `api:...`), or null when it may be used. */
    blocked: z.array(z.string()).nullable(),
    /** Successful check-ins on every list (pretix orders.rst: `list`, `type`, `gate`, `device`, `datetime`, `auto_checked_in`). */
    checkins: z.array(
      z.object({
        id: id(),
        list: id(),
        type: z.enum(["entry", "exit"]),
        gate: id().nullable(),
        device: id().nullable(),
        datetime: dateTime(),
        auto_checked_in: z.boolean(),
      }),
    ),
    answers: z.array(answerResponse),
    downloads: z.array(z.object({ output: z.string(), url: url() })),
  })
  .meta({ id: "OrderPosition" });
export type PositionResponse = z.infer<typeof positionResponse>;

export const feeResponse = z
  .object({
    /** pretix: the fee's id (a change names the fee by it). */
    id: id(),
    fee_type: z.string(),
    value: money(),
    description: z.string(),
    internal_type: z.string(),
    tax_rate: decimalString(),
    tax_value: money(),
    tax_rule: id().nullable(),
  })
  .meta({ id: "OrderFee" });

export const paymentResponse = z
  .object({
    local_id: z.number().int(),
    state: z.string(),
    amount: money(),
    created: dateTime(),
    payment_date: dateTime().nullable(),
    provider: z.string(),
    payment_url: url().nullable(),
    details: object(),
  })
  .meta({ id: "OrderPayment" });
export type PaymentResponse = z.infer<typeof paymentResponse>;

export const invoiceAddressResponse = z
  .object({
    last_modified: dateTime().nullable(),
    is_business: z.boolean(),
    company: z.string(),
    name: z.string(),
    name_parts: z.record(z.string(), z.string()),
    street: z.string(),
    zipcode: z.string(),
    city: z.string(),
    country: z.string(),
    state: z.string(),
    internal_reference: z.string(),
    vat_id: z.string(),
    vat_id_validated: z.boolean(),
  })
  .meta({ id: "InvoiceAddress" });

export const orderResponse = z
  .object({
    code: z.string(),
    event: z.string(),
    status: z.enum(["n", "p", "e", "c"]),
    testmode: z.boolean(),
    secret: z.string(),
    email: z.string().nullable(),
    phone: z.string().nullable(),
    locale: z.string(),
    sales_channel: z.string(),
    datetime: dateTime(),
    expires: dateTime().nullable(),
    total: money(),
    comment: z.string(),
    checkin_attention: z.boolean(),
    require_approval: z.boolean(),
    invoice_address: invoiceAddressResponse.nullable(),
    customer: z.string().nullable(),
    positions: z.array(positionResponse),
    fees: z.array(feeResponse),
    downloads: z.array(z.object({ output: z.string(), url: url() })),
    payments: z.array(paymentResponse),
    refunds: z.array(refundResponse),
    last_modified: dateTime(),
    cancellation_date: dateTime().nullable(),
    url: url(),
  })
  .meta({ id: "Order" });
export type OrderResponse = z.infer<typeof orderResponse>;

/** Where an order's customer-facing pages are: the base URL and the event's slugs. */
export type OrderLocation = { baseUrl: string; organizerSlug: string; eventSlug: string };

export function orderUrlAt(at: OrderLocation, r: OrderRecord): string {
  return orderUrl(at.baseUrl, at.organizerSlug, at.eventSlug, r.order.code, r.order.secret);
}

/** A position; `downloads` as the order's download options give them (orderDownloads, services/tickets/tickets.ts). */
export function serializePosition(p: PositionJson, orderCode: string, downloads: Download[] = []): PositionResponse {
  return {
    id: p.id,
    order: orderCode,
    positionid: p.positionid,
    item: p.item,
    variation: p.variation,
    price: formatMoney(p.price),
    attendee_name: p.attendee_name,
    attendee_name_parts: p.attendee_name_parts,
    attendee_email: p.attendee_email,
    voucher: p.voucher,
    tax_rate: formatDecimal(p.tax_rate),
    tax_value: formatMoney(p.tax_value),
    tax_rule: p.tax_rule,
    secret: p.secret,
    addon_to: p.addon_to,
    subevent: p.subevent,
    pseudonymization_id: p.pseudonymization_id,
    seat: serializeSeat(p.seat, p.seat_id, p.seat_name),
    is_bundled: p.is_bundled === 1,
    valid_from: toIso(p.valid_from),
    valid_until: toIso(p.valid_until),
    blocked: p.blocked?.length ? p.blocked : null,
    checkins: (p.checkins ?? []).map((c) => ({
      id: c.id,
      list: c.list,
      type: c.type,
      gate: null,
      device: c.device,
      datetime: toIso(c.datetime),
      auto_checked_in: c.auto_checked_in === 1,
    })),
    answers: p.answers.map(serializeAnswer),
    downloads,
  };
}

export function serializeFee(f: FeeJson): z.infer<typeof feeResponse> {
  return {
    id: f.id,
    fee_type: f.fee_type,
    value: formatMoney(f.value),
    description: f.description,
    internal_type: f.internal_type,
    tax_rate: formatDecimal(f.tax_rate),
    tax_value: formatMoney(f.tax_value),
    tax_rule: f.tax_rule,
  };
}

/** A payment; `orderPageUrl` (the order's `url`) gives open payments their `payment_url`. */
export function serializePayment(y: PaymentJson, orderPageUrl: string | null): PaymentResponse {
  const open = OPEN_PAYMENT_STATES.includes(y.state);
  return {
    local_id: y.local_id,
    state: y.state,
    amount: formatMoney(y.amount),
    created: toIso(y.created)!,
    payment_date: toIso(y.payment_date),
    provider: y.provider,
    payment_url: open && orderPageUrl ? paymentUrl(orderPageUrl, y.local_id) : null,
    details: paymentDetails(y),
  };
}

/**
 * pretix's provider details of a payment: for Stripe the PaymentIntent's id (`id`, pretix's
 * key) and the Checkout Session; nothing for the other providers.
 */
function paymentDetails(y: PaymentJson): Record<string, unknown> {
  if (y.provider !== "stripe") return {};
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  return { id: text(y.info?.payment_intent), checkout_session: text(y.info?.checkout_session) };
}

export function serializeInvoiceAddress(a: InvoiceAddress | null): z.infer<typeof invoiceAddressResponse> | null {
  if (!a) return null;
  return {
    last_modified: toIso(a.last_modified),
    is_business: a.is_business,
    company: a.company,
    name: buildName(a.name_parts) ?? "",
    name_parts: a.name_parts,
    street: a.street,
    zipcode: a.zipcode,
    city: a.city,
    country: a.country,
    state: a.state,
    internal_reference: a.internal_reference,
    vat_id: a.vat_id,
    vat_id_validated: false,
  };
}

export function serializeOrder(at: OrderLocation, r: OrderRecord): OrderResponse {
  const o = r.order;
  const url = orderUrlAt(at, r);
  const downloads = orderDownloads(r, apiDownloadUrls(at.baseUrl, at.organizerSlug, at.eventSlug, o.code));
  return {
    code: o.code,
    event: at.eventSlug,
    status: o.status,
    testmode: o.testmode,
    secret: o.secret,
    email: o.email,
    phone: o.phone,
    locale: o.locale,
    sales_channel: o.salesChannel,
    datetime: toIso(o.datetime)!,
    expires: toIso(o.expires),
    total: formatMoney(o.total),
    comment: o.comment,
    checkin_attention: o.checkinAttention,
    require_approval: o.requireApproval,
    invoice_address: serializeInvoiceAddress(o.invoiceAddress),
    customer: r.customer,
    positions: r.positions
      .filter((p) => p.canceled !== 1)
      .map((p) => serializePosition(p, o.code, downloads.positions.get(p.id))),
    fees: r.fees.filter((f) => f.canceled !== 1).map(serializeFee),
    downloads: downloads.order,
    payments: r.payments.map((y) => serializePayment(y, url)),
    refunds: r.refunds.map(serializeRefund),
    last_modified: toIso(o.lastModified)!,
    cancellation_date: toIso(o.cancellationDate),
    url,
  };
}

/** pretix's `exclude`: field names (top level, or `parent.child` one level down). */
export function excludeFields<T extends Record<string, unknown>>(obj: T, exclude: readonly string[]): Partial<T> {
  if (exclude.length === 0) return obj;
  const out: Record<string, unknown> = { ...obj };
  for (const path of exclude) {
    const [head, rest] = path.split(".", 2) as [string, string | undefined];
    if (!Object.hasOwn(out, head)) continue;
    if (rest === undefined) delete out[head];
    else if (Array.isArray(out[head]))
      out[head] = (out[head] as Record<string, unknown>[]).map((e) =>
        e && typeof e === "object" ? excludeFields(e, [rest]) : e,
      );
    else if (out[head] && typeof out[head] === "object")
      out[head] = excludeFields(out[head] as Record<string, unknown>, [rest]);
  }
  return out as Partial<T>;
}
