/**
 * The check-in resources as pretix's checkinlists.rst and checkin.rst shape them: the list, its
 * status, a list's ticket (an order position with its check-ins on the list), a scan's answer,
 * a failed scan and the check-in history. One response schema per resource and serializers
 * typed by them.
 */
import { z } from "zod";
import type {
  CheckinListRecord,
  CheckinJson,
  ScanCounts,
  CheckinPositionRow,
  CheckinRow,
} from "../services/checkin/checkin-reads";
import type { Answer } from "../services/stored-values";
import { buildName, type NameParts } from "../rules/person-names";
import { apiDownloadUrls, positionDownloads } from "../services/tickets/tickets";
import { dateTime, id, object } from "../http/responses";
import { i18nText, type I18n } from "../lib/i18n";
import { toIso } from "../lib/datetime";
import { excludeFields, type PositionResponse, positionResponse, serializePosition } from "./orders-serializers";

export { excludeFields };

// ---- check-in list ----

export const checkinListResponse = z
  .object({
    id: id(),
    name: z.string(),
    all_products: z.boolean(),
    limit_products: z.array(id()),
    subevent: z.union([id(), object()]).nullable(),
    position_count: z.number().int(),
    checkin_count: z.number().int(),
    include_pending: z.boolean(),
    auto_checkin_sales_channels: z.array(z.string()),
    allow_multiple_entries: z.boolean(),
    allow_entry_after_exit: z.boolean(),
    rules: object(),
    exit_all_at: dateTime().nullable(),
    addon_match: z.boolean(),
  })
  .meta({ id: "CheckinList" });
export type CheckinListResponse = z.infer<typeof checkinListResponse>;

/** A list; `subevents` holds expanded dates (expand=subevent); `exclude` drops fields (pretix: e.g. `checkin_count`). */
export function serializeCheckinList(
  r: CheckinListRecord,
  opts: { subevents?: Map<number, Record<string, unknown>>; exclude?: readonly string[] } = {},
): Partial<CheckinListResponse> {
  const l = r.list;
  const out: CheckinListResponse = {
    id: l.id,
    name: l.name,
    all_products: l.allProducts,
    limit_products: JSON.parse(r.limitProducts) as number[],
    subevent: l.subeventId === null ? null : (opts.subevents?.get(l.subeventId) ?? l.subeventId),
    position_count: r.positionCount,
    checkin_count: r.checkinCount,
    include_pending: l.includePending,
    auto_checkin_sales_channels: l.autoCheckinSalesChannels,
    allow_multiple_entries: l.allowMultipleEntries,
    allow_entry_after_exit: l.allowEntryAfterExit,
    rules: l.rules,
    exit_all_at: toIso(l.exitAllAt),
    addon_match: l.addonMatch,
  };
  return excludeFields(out, opts.exclude ?? []);
}

// ---- status ----

export const checkinListStatusResponse = z
  .object({
    checkin_count: z.number().int(),
    position_count: z.number().int(),
    inside_count: z.number().int(),
    /**
     * Beyond pretix: the list's scans by how they reached the service. `online`: successful scans
     * decided when made; `uploaded`: successful scans made offline and uploaded later (the scanner
     * sent `force`; a repeated upload of one scan, same `nonce`, counts once); `automatic`:
     * check-ins and exits the service made itself; `failed_online` / `failed_uploaded`: refused
     * scans, decided here or reported by offline scanners.
     */
    scans: z.object({
      online: z.number().int(),
      uploaded: z.number().int(),
      automatic: z.number().int(),
      failed_online: z.number().int(),
      failed_uploaded: z.number().int(),
    }),
    event: z.object({ name: z.string() }),
    items: z.array(
      z.object({
        name: z.string(),
        id: id(),
        checkin_count: z.number().int(),
        admission: z.boolean(),
        position_count: z.number().int(),
        variations: z.array(
          z.object({ value: z.string(), id: id(), checkin_count: z.number().int(), position_count: z.number().int() }),
        ),
      }),
    ),
  })
  .meta({ id: "CheckinListStatus" });
export type CheckinListStatusResponse = z.infer<typeof checkinListStatusResponse>;

export type StatusRows = {
  totals: { positions: number; checkins: number; inside: number };
  itemCounts: { k: number | null; positions: number; checkins: number }[];
  variationCounts: { k: number | null; positions: number; checkins: number }[];
  items: { id: number; name: I18n; admission: boolean }[];
  variations: { id: number; itemId: number; value: I18n }[];
  eventName: I18n;
  scans: ScanCounts;
};

/** The status; names in the event's language (pretix: `str()` of the names under the event's locale). */
export function serializeCheckinListStatus(s: StatusRows, locale: string): CheckinListStatusResponse {
  const byItem = new Map(s.itemCounts.map((c) => [c.k, c]));
  const byVariation = new Map(s.variationCounts.map((c) => [c.k, c]));
  return {
    checkin_count: s.totals.checkins,
    position_count: s.totals.positions,
    inside_count: s.totals.inside,
    scans: {
      online: s.scans.online,
      uploaded: s.scans.uploaded,
      automatic: s.scans.automatic,
      failed_online: s.scans.failedOnline,
      failed_uploaded: s.scans.failedUploaded,
    },
    event: { name: i18nText(s.eventName, locale) },
    items: s.items.map((i) => ({
      name: i18nText(i.name, locale),
      id: i.id,
      checkin_count: byItem.get(i.id)?.checkins ?? 0,
      admission: i.admission,
      position_count: byItem.get(i.id)?.positions ?? 0,
      variations: s.variations
        .filter((v) => v.itemId === i.id)
        .map((v) => ({
          value: i18nText(v.value, locale),
          id: v.id,
          checkin_count: byVariation.get(v.id)?.checkins ?? 0,
          position_count: byVariation.get(v.id)?.positions ?? 0,
        })),
    })),
  };
}

// ---- a list's ticket ----

export const checkinPositionResponse = positionResponse
  .extend({
    item: z.union([id(), object()]),
    variation: z.union([id(), object()]).nullable(),
    subevent: z.union([id(), object()]).nullable(),
    require_attention: z.boolean(),
    order__status: z.enum(["n", "p", "e", "c"]),
    order__valid_if_pending: z.boolean(),
    order__require_approval: z.boolean(),
    order__locale: z.string(),
  })
  .meta({ id: "CheckinPosition" });
export type CheckinPositionResponse = z.infer<typeof checkinPositionResponse>;

/** What `expand` replaced: full objects of items, variations and dates, by id. */
export type Expanded = {
  items?: Map<number, Record<string, unknown>>;
  variations?: Map<number, Record<string, unknown>>;
  subevents?: Map<number, Record<string, unknown>>;
};

/** Where download URLs point: the service's public base and the organizer (the event is the ticket's). */
export type DownloadBase = { baseUrl: string; organizerSlug: string };

/**
 * A ticket read as lists read it (db/checkin/ticket-rows.ts), as the order position resource:
 * its `downloads` as its order's positions have them, `canceled` kept for the caller.
 */
export function serializeListedPosition(r: CheckinPositionRow, at: DownloadBase): PositionResponse {
  const downloads =
    r.canceled === 1
      ? []
      : positionDownloads(
          {
            id: r.id,
            addonTo: r.addonTo,
            orderStatus: r.orderStatus,
            orderRequireApproval: r.orderRequireApproval === 1,
            item: JSON.parse(r.ticketItem) as [number, number | null],
            settings: JSON.parse(r.ticketSettings) as Record<string, unknown>,
          },
          apiDownloadUrls(at.baseUrl, at.organizerSlug, r.eventSlug, r.orderCode),
        );
  return serializePosition(
    {
      id: r.id,
      positionid: r.positionid,
      item: r.itemId,
      variation: r.variationId,
      subevent: r.subeventId,
      price: r.price,
      attendee_name: r.attendeeName,
      attendee_name_parts: JSON.parse(r.attendeeNameParts) as Record<string, string>,
      attendee_email: r.attendeeEmail,
      voucher: r.voucherId,
      tax_rate: r.taxRate,
      tax_value: r.taxValue,
      tax_rule: r.taxRuleId,
      secret: r.secret,
      addon_to: r.addonTo,
      is_bundled: r.isBundled,
      pseudonymization_id: r.pseudonymizationId,
      seat: r.seat,
      seat_id: r.seatId,
      seat_name: r.seatName,
      answers: JSON.parse(r.answers) as Answer[],
      canceled: r.canceled,
      valid_from: r.validFrom,
      valid_until: r.validUntil,
      blocked: r.blocked === null ? null : (JSON.parse(r.blocked) as string[]),
      checkins: JSON.parse(r.checkins) as CheckinJson[],
    },
    r.orderCode,
    downloads,
  );
}

/**
 * A list's ticket: the order position with only the list's check-ins, `require_attention`
 * (order, product or variation flag), the order's status fields, and `attendee_name` with
 * `attendee_name_parts` falling back to the parent ticket's, then to the invoice address's
 * (pretix: the parts go with the name they come from).
 */
export function serializeCheckinPosition(
  r: CheckinPositionRow,
  at: DownloadBase,
  expanded: Expanded = {},
): CheckinPositionResponse {
  const base = serializeListedPosition(r, at);
  let name = r.attendeeName || null;
  let nameParts = base.attendee_name_parts;
  if (!name && r.addonTo !== null) {
    name = r.parentAttendeeName || null;
    nameParts = r.parentAttendeeNameParts ? (JSON.parse(r.parentAttendeeNameParts) as Record<string, string>) : {};
  }
  if (!name && r.invoiceNameParts) {
    nameParts = JSON.parse(r.invoiceNameParts) as Record<string, string>;
    name = buildName(nameParts as NameParts) || null;
  }
  return {
    ...base,
    item: expanded.items?.get(r.itemId) ?? r.itemId,
    variation: r.variationId === null ? null : (expanded.variations?.get(r.variationId) ?? r.variationId),
    subevent: r.subeventId === null ? null : (expanded.subevents?.get(r.subeventId) ?? r.subeventId),
    attendee_name: name,
    attendee_name_parts: nameParts,
    require_attention: r.orderCheckinAttention === 1 || r.itemAttention === 1 || r.variationAttention === 1,
    order__status: r.orderStatus as CheckinPositionResponse["order__status"],
    order__valid_if_pending: false,
    order__require_approval: r.orderRequireApproval === 1,
    order__locale: r.orderLocale,
  };
}

/** What scanners show for a ticket (pretix `checkin_texts`): the variation's text, then the product's. */
export function checkinTexts(r: Pick<CheckinPositionRow, "itemCheckinText" | "variationCheckinText">): string[] {
  return [r.variationCheckinText, r.itemCheckinText].filter((t): t is string => !!t && t.trim() !== "");
}

// ---- a scan's answer (checkinrpc/redeem and the per-list redeem) ----

export const miniListResponse = z.object({
  id: id(),
  name: z.string(),
  event: z.string(),
  subevent: id().nullable(),
  include_pending: z.boolean(),
});

export const redeemResponse = z
  .object({
    status: z.enum(["ok", "incomplete", "error"]),
    reason: z.string().optional(),
    reason_explanation: z.string().nullable().optional(),
    detail: z.string().optional(),
    require_attention: z.boolean(),
    checkin_texts: z.array(z.string()),
    position: object().optional(),
    list: miniListResponse.optional(),
    questions: z.array(object()).optional(),
  })
  .meta({ id: "RedeemAnswer" });
export type RedeemResponse = z.infer<typeof redeemResponse>;

// ---- failed scans and the check-in history ----

export const failedCheckinResponse = z
  .object({
    error_reason: z.string(),
    error_explanation: z.string().nullable(),
    raw_barcode: z.string(),
    raw_item: id().nullable(),
    raw_variation: id().nullable(),
    raw_subevent: id().nullable(),
    nonce: z.string().nullable(),
    datetime: dateTime(),
    type: z.enum(["entry", "exit"]),
    position: id().nullable(),
  })
  .meta({ id: "FailedCheckin" });
export type FailedCheckinResponse = z.infer<typeof failedCheckinResponse>;

/** A failed scan as stored (the row's fields the answer shows). */
export type FailedCheckinRecord = Pick<
  CheckinRow,
  | "errorReason"
  | "errorExplanation"
  | "rawBarcode"
  | "rawItem"
  | "rawVariation"
  | "rawSubevent"
  | "nonce"
  | "datetime"
  | "type"
  | "positionId"
>;

export function serializeFailedCheckin(c: FailedCheckinRecord): FailedCheckinResponse {
  return {
    error_reason: c.errorReason ?? "error",
    error_explanation: c.errorExplanation,
    raw_barcode: c.rawBarcode ?? "",
    raw_item: c.rawItem,
    raw_variation: c.rawVariation,
    raw_subevent: c.rawSubevent,
    nonce: c.nonce,
    datetime: toIso(c.datetime),
    type: c.type,
    position: c.positionId,
  };
}

/** A row of the check-in history (pretix checkin.rst "Check-in history"), failed scans included. */
export const checkinHistoryResponse = z
  .object({
    id: id(),
    successful: z.boolean(),
    error_reason: z.string().nullable(),
    error_explanation: z.string().nullable(),
    position: id().nullable(),
    datetime: dateTime(),
    created: dateTime(),
    list: id(),
    auto_checked_in: z.boolean(),
    gate: id().nullable(),
    device: id().nullable(),
    device_id: z.number().int().nullable(),
    type: z.enum(["entry", "exit"]),
  })
  .meta({ id: "Checkin" });

export function serializeHistory(
  c: CheckinRow & { deviceNumber: number | null },
): z.infer<typeof checkinHistoryResponse> {
  return {
    id: c.id,
    successful: c.successful,
    error_reason: c.errorReason,
    error_explanation: c.errorExplanation,
    position: c.positionId,
    datetime: toIso(c.datetime),
    created: toIso(c.created),
    list: c.listId,
    auto_checked_in: c.autoCheckedIn,
    gate: null,
    device: c.deviceId,
    device_id: c.deviceNumber,
    type: c.type,
  };
}
