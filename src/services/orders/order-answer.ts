/**
 * An order answered at the event's object (objects/event/orders-answered.ts), as the API reads
 * it: the record `findOrder` returns once D1 has the order, built from what was written and the
 * ids the object gave, so that the creation's answer and a later read agree (but for
 * `last_modified`, the time D1 got the order); and its tickets as scans show them.
 */
import type { OrderWrite } from "../../db/inventory";
import type { OrderRecord, PositionJson } from "../../db/orders";
import type { AnsweredOrder, ScanRowTemplate } from "../../objects/event/types";
import type { SalesCatalog } from "./sales-catalog";

/** The stored settings an order read from D1 carries for its ticket downloads (db/settings.ts `ticketSettingsSql`). */
const TICKET_SETTINGS = [
  "ticket_download",
  "ticket_download_addons",
  "ticket_download_nonadm",
  "ticket_download_pending",
];

const bit = (b: boolean | null | undefined) => (b ? 1 : 0);

/** The event's stored ticket download settings, as an order read from D1 carries them. */
const ticketSettingsOf = (stored: Record<string, unknown>) =>
  Object.fromEntries(TICKET_SETTINGS.filter((k) => Object.hasOwn(stored, k)).map((k) => [k, stored[k]]));

/** What decides a ticket's downloads from its item: [admission, generate_tickets] as D1 reads them. */
const ticketItemOf = (
  item: { admission: boolean; generateTickets: boolean | null } | undefined,
): [number, number | null] => {
  const generate = item?.generateTickets ?? null;
  return [bit(item?.admission), generate === null ? null : bit(generate)];
};

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-orders (issue 36)
export function answeredOrderRecord(
  a: AnsweredOrder,
  catalog: Pick<SalesCatalog, "items" | "storedEventSettings">,
  customer: string | null,
): OrderRecord {
  const { order: o, positions, fees, payments } = a.write;
  const idOf = new Map(positions.map((p) => [p.positionid, p.id!]));
  const stored = catalog.storedEventSettings;
  const positionJson = (p: (typeof positions)[number]): PositionJson => ({
    id: p.id!,
    positionid: p.positionid,
    item: p.itemId,
    variation: p.variationId ?? null,
    subevent: p.subeventId ?? null,
    price: p.price,
    attendee_name: p.attendeeName ?? null,
    attendee_name_parts: p.attendeeNameParts,
    attendee_email: p.attendeeEmail ?? null,
    voucher: p.voucherId ?? null,
    tax_rate: p.taxRate ?? 0,
    tax_value: p.taxValue ?? 0,
    tax_rule: p.taxRuleId ?? null,
    secret: p.secret,
    addon_to: p.addonToPositionid === null ? null : (idOf.get(p.addonToPositionid) ?? null),
    is_bundled: bit(p.isBundled),
    pseudonymization_id: p.pseudonymizationId,
    seat: p.seat ?? null,
    seat_id: p.seatId ?? null,
    seat_name: p.seatName ?? null,
    answers: p.answers,
    canceled: bit(p.canceled),
    valid_from: p.validFrom ?? null,
    valid_until: p.validUntil ?? null,
    blocked: null,
    checkins: a.autoCheckins
      .filter((c) => c.positionid === p.positionid)
      .map((c) => ({
        id: c.id!,
        list: c.listId,
        type: "entry" as const,
        datetime: o.datetime,
        device: null,
        auto_checked_in: 1,
      }))
      .sort((x, y) => x.id - y.id),
  });
  return {
    order: {
      id: o.id!,
      eventId: o.eventId,
      code: o.code,
      status: o.status,
      testmode: o.testmode ?? false,
      secret: o.secret,
      email: o.email ?? null,
      phone: o.phone ?? null,
      locale: o.locale ?? "en",
      salesChannel: o.salesChannel ?? "web",
      datetime: o.datetime,
      expires: o.expires,
      total: o.total,
      comment: o.comment ?? "",
      checkinAttention: o.checkinAttention ?? false,
      requireApproval: o.requireApproval ?? false,
      invoiceAddress: o.invoiceAddress ?? null,
      customerId: o.customerId ?? null,
      cancellationDate: o.cancellationDate ?? null,
      lastModified: o.lastModified,
      organizerId: o.organizerId ?? null,
    },
    customer,
    positions: [...positions].sort((x, y) => x.positionid - y.positionid).map(positionJson),
    fees: fees.map((f) => ({
      id: f.id!,
      fee_type: f.feeType,
      value: f.value,
      description: f.description ?? "",
      internal_type: f.internalType ?? "",
      tax_rate: f.taxRate ?? 0,
      tax_value: f.taxValue ?? 0,
      tax_rule: f.taxRuleId ?? null,
      canceled: bit(f.canceled),
    })),
    payments: [...payments]
      .sort((x, y) => x.localId - y.localId)
      .map((y) => ({
        id: y.id!,
        local_id: y.localId,
        state: y.state,
        amount: y.amount,
        provider: y.provider,
        created: y.created,
        payment_date: y.paymentDate ?? null,
        info: y.info ?? {},
      })),
    refunds: [],
    ticketFacts: {
      items: Object.fromEntries(positions.map((p) => [String(p.id), ticketItemOf(catalog.items.get(p.itemId))])),
      settings: ticketSettingsOf(stored),
    },
    invoicing: { mode: (stored.invoice_generate as string | undefined) ?? null, live: 0 },
  };
}

/**
 * The tickets of an order about to be placed as scans show them (db/checkin/ticket-rows.ts), but
 * for their ids: the event object answers their scans from these until D1 has the order.
 */
export function scanRowTemplates(
  w: OrderWrite,
  catalog: Pick<SalesCatalog, "items" | "variations" | "storedEventSettings">,
  eventSlug: string,
): ScanRowTemplate[] {
  const o = w.order;
  const byNumber = new Map(w.positions.map((p) => [p.positionid, p]));
  const ticketSettings = JSON.stringify(ticketSettingsOf(catalog.storedEventSettings));
  return w.positions.map((p) => {
    const item = catalog.items.get(p.itemId);
    const variation = p.variationId != null ? catalog.variations.get(p.variationId) : undefined;
    const base = p.addonToPositionid === null ? undefined : byNumber.get(p.addonToPositionid);
    return {
      eventId: p.eventId,
      orderCode: o.code,
      orderStatus: o.status,
      orderLocale: o.locale ?? "en",
      orderRequireApproval: bit(o.requireApproval),
      orderCheckinAttention: bit(o.checkinAttention),
      invoiceNameParts: o.invoiceAddress ? JSON.stringify(o.invoiceAddress.name_parts) : null,
      positionid: p.positionid,
      itemId: p.itemId,
      variationId: p.variationId ?? null,
      subeventId: p.subeventId ?? null,
      price: p.price,
      attendeeName: p.attendeeName ?? null,
      attendeeNameParts: JSON.stringify(p.attendeeNameParts),
      attendeeEmail: p.attendeeEmail ?? null,
      parentAttendeeName: base ? (base.attendeeName ?? null) : null,
      parentAttendeeNameParts: base ? JSON.stringify(base.attendeeNameParts) : null,
      voucherId: p.voucherId ?? null,
      taxRate: p.taxRate ?? 0,
      taxValue: p.taxValue ?? 0,
      taxRuleId: p.taxRuleId ?? null,
      secret: p.secret,
      isBundled: bit(p.isBundled),
      pseudonymizationId: p.pseudonymizationId,
      seat: p.seat ?? null,
      seatId: p.seatId ?? null,
      seatName: p.seatName ?? null,
      answers: JSON.stringify(p.answers),
      canceled: 0,
      validFrom: p.validFrom ?? null,
      validUntil: p.validUntil ?? null,
      blocked: null,
      itemAttention: bit(item?.checkinAttention),
      variationAttention: variation ? bit(variation.checkinAttention) : null,
      itemCheckinText: item?.checkinText ?? null,
      variationCheckinText: variation ? (variation.checkinText ?? null) : null,
      eventSlug,
      ticketItem: JSON.stringify(ticketItemOf(item)),
      ticketSettings,
    };
  });
}
