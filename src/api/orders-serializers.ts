/** The order resource as pretix's orders.rst shapes it (the part the spec and the service use). */
import type { FeeJson, OrderRecord, PaymentJson, PositionJson } from "../db/orders";
import type { InvoiceAddress } from "../db/schema";
import { OPEN_PAYMENT_STATES } from "../domain/payments";
import { buildName } from "../domain/person-names";
import { toIso } from "../lib/datetime";
import { formatDecimal, formatMoney } from "../lib/money";
import type { AppContext } from "../http/context";
import { eventPublicUrl } from "../http/urls";
import { serializeAnswer, serializeSeat } from "./sales-common";

/** The customer's order page, and the payment pages below it. */
export function orderUrl(c: AppContext, orgSlug: string, eventSlug: string, code: string, secret: string): string {
  return `${eventPublicUrl(c, orgSlug, eventSlug)}order/${code}/${secret}/`;
}

/** The `url` of an order of the request's organizer and event. */
export function orderUrlOf(c: AppContext, r: OrderRecord): string {
  return orderUrl(c, c.var.organizer.slug, c.var.event.slug, r.order.code, r.order.secret);
}

/** The payment page of a payment (below the order's `url`). */
export function paymentUrl(orderUrl: string, localId: number): string {
  return `${orderUrl}pay/${localId}/`;
}

export function serializePosition(p: PositionJson, orderCode: string) {
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
    checkins: [],
    answers: p.answers.map(serializeAnswer),
    downloads: [],
  };
}

export function serializeFee(f: FeeJson) {
  return {
    fee_type: f.fee_type,
    value: formatMoney(f.value),
    description: f.description,
    internal_type: f.internal_type,
    tax_rate: formatDecimal(f.tax_rate),
    tax_value: formatMoney(f.tax_value),
    tax_rule: f.tax_rule,
  };
}

export function serializePayment(y: PaymentJson, url: string | null) {
  const open = OPEN_PAYMENT_STATES.includes(y.state);
  return {
    local_id: y.local_id,
    state: y.state,
    amount: formatMoney(y.amount),
    created: toIso(y.created),
    payment_date: toIso(y.payment_date),
    provider: y.provider,
    payment_url: open && url ? paymentUrl(url, y.local_id) : null,
    details: {},
  };
}

export function serializeInvoiceAddress(a: InvoiceAddress | null) {
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

export function serializeOrder(c: AppContext, r: OrderRecord) {
  const o = r.order;
  const url = orderUrlOf(c, r);
  return {
    code: o.code,
    event: c.var.event.slug,
    status: o.status,
    testmode: o.testmode,
    secret: o.secret,
    email: o.email,
    phone: o.phone,
    locale: o.locale,
    sales_channel: o.salesChannel,
    datetime: toIso(o.datetime),
    expires: toIso(o.expires),
    total: formatMoney(o.total),
    comment: o.comment,
    checkin_attention: o.checkinAttention,
    require_approval: o.requireApproval,
    invoice_address: serializeInvoiceAddress(o.invoiceAddress),
    customer: r.customer,
    positions: r.positions.filter((p) => p.canceled !== 1).map((p) => serializePosition(p, o.code)),
    fees: r.fees.filter((f) => f.canceled !== 1).map(serializeFee),
    downloads: [],
    payments: r.payments.map((y) => serializePayment(y, url)),
    refunds: [],
    last_modified: toIso(o.lastModified),
    cancellation_date: toIso(o.cancellationDate),
    url,
  };
}
