/**
 * Ticket downloads as pretix offers them (pretix docs orders.rst: `downloads`, `.../download/pdf/` of
 * orders and positions; only `pdf`): which orders and positions have tickets, and the PDF rendered on
 * the documents queue and cached in R2 under a fingerprint of what it is drawn from, as pretix caches
 * its tickets: 409 until the file exists, 400 for a layout the renderer cannot use (docs/documents.md).
 */
import { dispatchDocuments } from "../../lib/queues";
import type { DB } from "../../db/client";
import { eventById } from "../../db/invoices";
import { findOrder, type OrderRecord, type PositionJson, type TicketFacts } from "../../db/orders";
import type { EventRow } from "../../db/tenancy";
import { ticketRenderFacts, type TicketRenderFacts } from "../../db/tickets";
import type { Env } from "../../lib/env";
import { sha256Hex } from "../../lib/crypto";
import { loadFont, notReady } from "./documents";
import { Failure, forbidden, isFailure, notFound } from "../../lib/failure";
import { effectiveSettings } from "../events/settings";
import { EVENT_SETTINGS } from "../events/settings-keys";
import { DEFAULT_LAYOUT } from "./ticket-default-layout";
import { readLayout, renderTicketPdf, type TicketDocument } from "./ticket-render";
import type { TicketEventData, TicketPositionData } from "./ticket-variables";

export type Download = { output: string; url: string };

/** Raised when the rendering changes in a way that makes earlier files stale. */
const RENDERER_VERSION = 1;

function setting(facts: TicketFacts, key: string): boolean {
  const stored = facts.settings[key];
  return typeof stored === "boolean" ? stored : (EVENT_SETTINGS[key]!.default as boolean);
}

/** Whether the order's tickets can be downloaded in its status (pretix's rule). */
export function orderTicketsAvailable(r: {
  order: { status: string; requireApproval: boolean };
  ticketFacts: TicketFacts;
}): boolean {
  const o = r.order;
  if (o.status === "p") return true;
  return o.status === "n" && !o.requireApproval && setting(r.ticketFacts, "ticket_download_pending");
}

/** Whether a position has a ticket (pretix's `generate_ticket`). */
export function positionHasTicket(p: Pick<PositionJson, "id" | "addon_to" | "canceled">, facts: TicketFacts): boolean {
  if (p.canceled === 1) return false;
  const [admission, generate] = facts.items[String(p.id)] ?? [0, null];
  if (generate !== null) return generate === 1;
  return (
    (setting(facts, "ticket_download_addons") || p.addon_to === null) &&
    (setting(facts, "ticket_download_nonadm") || admission === 1)
  );
}

export type DownloadUrls = { order: string; position: (id: number) => string };

/** API download URLs (pretix's paths). */
export function apiDownloadUrls(base: string, organizerSlug: string, eventSlug: string, code: string): DownloadUrls {
  const ev = `${base}/api/v1/organizers/${organizerSlug}/events/${eventSlug}`;
  return { order: `${ev}/orders/${code}/download/pdf/`, position: (id) => `${ev}/orderpositions/${id}/download/pdf/` };
}

/** The customer's download links below the order page (`url`), which the order's secret protects. */
export function pageDownloadUrls(orderPageUrl: string): DownloadUrls {
  return { order: `${orderPageUrl}download/pdf/`, position: (id) => `${orderPageUrl}download/pdf/${id}/` };
}

/** The `downloads` of an order and of each of its positions (position id → list). */
export function orderDownloads(
  r: OrderRecord,
  urls: DownloadUrls,
): { order: Download[]; positions: Map<number, Download[]> } {
  const positions = new Map<number, Download[]>();
  if (!orderTicketsAvailable(r)) return { order: [], positions };
  for (const p of r.positions)
    if (positionHasTicket(p, r.ticketFacts)) positions.set(p.id, [{ output: "pdf", url: urls.position(p.id) }]);
  return { order: positions.size ? [{ output: "pdf", url: urls.order }] : [], positions };
}

/**
 * The `downloads` of a position read on its own (a check-in list's ticket): the same rules as in
 * its order, from its order's status, its item's [admission, generate_tickets] and the event's
 * stored ticket_download settings.
 */
export function positionDownloads(
  p: {
    id: number;
    addonTo: number | null;
    orderStatus: string;
    orderRequireApproval: boolean;
    item: [number, number | null];
    settings: Record<string, unknown>;
  },
  urls: DownloadUrls,
): Download[] {
  const ticketFacts: TicketFacts = { items: { [String(p.id)]: p.item }, settings: p.settings };
  if (
    !orderTicketsAvailable({ order: { status: p.orderStatus, requireApproval: p.orderRequireApproval }, ticketFacts })
  )
    return [];
  return positionHasTicket({ id: p.id, addon_to: p.addonTo, canceled: 0 }, ticketFacts)
    ? [{ output: "pdf", url: urls.position(p.id) }]
    : [];
}

/** Whether customers see download links on their order page (event setting `ticket_download`). */
export function customerDownloadsEnabled(r: OrderRecord): boolean {
  return setting(r.ticketFacts, "ticket_download");
}

// ---- what a ticket file is made of ----

type LayoutRef = { name: string; elements: unknown[]; background: string | null };

/** Everything a ticket file is drawn from, and the R2 key of the file for exactly that. */
export type TicketPlan = {
  key: string;
  positions: TicketPositionData[];
  order: TicketDocument["order"];
  event: TicketEventData;
  layouts: Map<number, LayoutRef>;
};

/**
 * The plan of the ticket file of one position (`positionId`) or of the order's tickets
 * (null): data read in one batch. Fails with `forbidden` when the position has no ticket or
 * the order none at all.
 */
export async function ticketPlan(
  db: DB,
  event: EventRow,
  r: OrderRecord,
  positionId: number | null,
): Promise<TicketPlan> {
  const active = r.positions.filter((p) => p.canceled !== 1);
  const chosen = chosenPositions(r, active, positionId);
  const facts = await ticketRenderFacts(db, {
    organizerId: event.organizerId,
    eventId: event.id,
    itemIds: chosen.map((p) => p.item),
    subeventIds: active.map((p) => p.subevent).filter((x): x is number => x !== null),
    seatIds: active.map((p) => p.seat_id).filter((x): x is number => x !== null),
    salesChannel: r.order.salesChannel,
  });
  const byId = new Map(active.map((p) => [p.id, p]));
  const positions = chosen.map((p) => positionData(p, active, byId, facts, event.itemMetaProperties));
  const eventData = ticketEventData(event, facts);
  const order = {
    code: r.order.code,
    email: r.order.email,
    phone: r.order.phone,
    datetime: r.order.datetime,
    locale: r.order.locale,
    invoiceAddress: r.order.invoiceAddress,
  };
  const layouts = ticketLayouts(chosen, facts);
  const fingerprint = await sha256Hex(
    JSON.stringify({ v: RENDERER_VERSION, positions, order, event: eventData, layouts: [...layouts] }),
  );
  const key = `tickets/${event.id}/${r.order.id}/${positionId ?? "order"}-${fingerprint.slice(0, 32)}.pdf`;
  return { key, positions, order, event: eventData, layouts };
}

/** The positions a ticket file shows: the one asked for, or all of the order's with tickets; fails when none. */
function chosenPositions(r: OrderRecord, active: PositionJson[], positionId: number | null): PositionJson[] {
  const chosen =
    positionId === null
      ? active.filter((p) => positionHasTicket(p, r.ticketFacts))
      : active.filter((p) => p.id === positionId);
  if (positionId !== null && chosen.length === 0) throw notFound();
  if (positionId !== null && !positionHasTicket(chosen[0]!, r.ticketFacts))
    throw forbidden("Downloads are not enabled for this product.");
  if (chosen.length === 0) throw forbidden("This order has no tickets to download.");
  return chosen;
}

/** What a position's ticket is drawn from; an add-on takes its base position's attendee, seat and answers where it has none. */
function positionData(
  p: PositionJson,
  active: PositionJson[],
  byId: Map<number, PositionJson>,
  facts: TicketRenderFacts,
  itemMetaDefaults: Record<string, string>,
): TicketPositionData {
  const item = facts.items.get(p.item);
  const variation = p.variation !== null ? facts.variations.get(p.variation) : undefined;
  const sub = p.subevent !== null ? facts.subevents.get(p.subevent) : undefined;
  const parent = p.addon_to !== null ? byId.get(p.addon_to) : undefined;
  const addons = active.filter((a) => a.addon_to === p.id);
  const answers: Record<string, string> = {};
  // pretix: an add-on without its own answer shows its base position's
  for (const a of [...(parent?.answers ?? []), ...p.answers]) answers[a.question_identifier] = a.answer;
  return {
    id: p.id,
    positionid: p.positionid,
    secret: p.secret,
    pseudonymizationId: p.pseudonymization_id,
    price: p.price,
    priceWithAddons: p.price + addons.reduce((s, a) => s + a.price, 0),
    attendeeName: p.attendee_name ?? parent?.attendee_name ?? null,
    attendeeNameParts: Object.keys(p.attendee_name_parts).length
      ? p.attendee_name_parts
      : (parent?.attendee_name_parts ?? {}),
    attendeeEmail: p.attendee_email ?? parent?.attendee_email ?? null,
    item: {
      name: item?.name ?? {},
      description: item?.description ?? null,
      category: item?.categoryId != null ? (facts.categories.get(item.categoryId) ?? null) : null,
      meta: { ...itemMetaDefaults, ...(item?.metaData ?? {}) },
    },
    variation: variation
      ? { value: variation.value, description: variation.description, meta: variation.metaData }
      : null,
    subevent: sub
      ? {
          name: sub.name,
          dateFrom: sub.dateFrom,
          dateTo: sub.dateTo,
          dateAdmission: sub.dateAdmission,
          location: sub.location,
        }
      : null,
    seat: seatOf(p, facts) ?? seatOf(parent, facts),
    addons: addons.map((a) => ({
      item: facts.items.get(a.item)?.name ?? {},
      variation: a.variation !== null ? (facts.variations.get(a.variation)?.value ?? null) : null,
    })),
    answers,
  };
}

/** A position's seat with its zone, row and number, or null without one. */
function seatOf(x: PositionJson | undefined, facts: TicketRenderFacts): TicketPositionData["seat"] {
  if (!x || x.seat_name === null) return null;
  const s = x.seat_id !== null ? facts.seats.get(x.seat_id) : undefined;
  return { name: x.seat_name, zone: s?.zoneName ?? "", row: s?.rowName ?? "", number: s?.seatNumber ?? "" };
}

/** The event's data a ticket shows, with the organizer's name and the effective settings it uses. */
function ticketEventData(event: EventRow, facts: TicketRenderFacts): TicketEventData {
  const settings = effectiveSettings(facts.eventSettings, EVENT_SETTINGS, effectiveSettings(facts.organizerSettings));
  return {
    name: event.name,
    seriesName: event.name,
    dateFrom: event.dateFrom,
    dateTo: event.dateTo,
    dateAdmission: event.dateAdmission,
    location: event.location,
    timezone: event.timezone,
    currency: event.currency,
    seating: event.seatingPlanId !== null,
    organizer: facts.organizerName,
    organizerInfoText: (settings.organizer_info_text as Record<string, string> | null) ?? null,
    nameScheme: (settings.name_scheme as string) ?? "full",
    meta: facts.meta,
  };
}

/** Each chosen position's layout: its product's, the event's default, or the built-in one. */
function ticketLayouts(chosen: PositionJson[], facts: TicketRenderFacts): Map<number, LayoutRef> {
  const layouts = new Map<number, LayoutRef>();
  for (const p of chosen) {
    const id = facts.assignments.get(p.item) ?? facts.defaultLayoutId;
    const row = id !== null ? facts.layouts.get(id) : undefined;
    const layout = row
      ? { name: row.name, elements: row.layout, background: row.background }
      : { name: "Default", elements: DEFAULT_LAYOUT, background: null };
    readLayout(layout.name, layout.elements); // an unusable layout fails here, before anything is queued
    layouts.set(p.id, layout);
  }
  return layouts;
}

/** Why a ticket file could not be rendered, stored beside its key. */
type RenderFailure = { code: "invalid" | "unavailable"; message: string };

/**
 * The ticket file of a position (or of the order: null), for an order whose tickets can be
 * downloaded: its body when rendered; otherwise rendering is queued and the caller gets
 * `not_ready` (409), or the recorded failure (400 for an unusable layout, 503 when the
 * deployment must fix something).
 */
export async function ticketPdf(
  env: Env,
  db: DB,
  event: EventRow,
  r: OrderRecord,
  positionId: number | null,
): Promise<{ body: ReadableStream; filename: string }> {
  if (!orderTicketsAvailable(r)) {
    throw forbidden(
      r.order.status === "n"
        ? "Downloads are not available for pending orders."
        : "Downloads are not available for canceled or expired orders.",
    );
  }
  const plan = await ticketPlan(db, event, r, positionId);
  const object = await env.FILES.get(plan.key);
  const slug = (s: string) => s.replace(/[^\w-]/g, "");
  const filename = `${slug(event.slug)}-${r.order.code}${positionId === null ? "" : `-${plan.positions[0]!.positionid}`}.pdf`;
  if (object) return { body: object.body, filename };
  const failed = await env.FILES.get(`${plan.key}.error`);
  if (failed) {
    const f = (await failed.json()) as RenderFailure;
    if (f.code === "invalid") throw new Failure("invalid", f.message);
    // a deployment problem may be fixed by now: the next request tries again
    await env.FILES.delete(`${plan.key}.error`);
    await dispatchDocuments(env, [{ kind: "ticket-pdf", eventId: event.id, code: r.order.code, positionId }]);
    throw new Failure("unavailable", f.message);
  }
  await dispatchDocuments(env, [{ kind: "ticket-pdf", eventId: event.id, code: r.order.code, positionId }]);
  throw notReady("ticket file");
}

/**
 * Renders a ticket file for the order's current data (the documents queue). Idempotent: a file
 * that exists is left alone, and one key is written whole. An unusable layout, or missing
 * fonts, is recorded beside the key; other failures are retried by the queue (the last attempt
 * records them too). Older files of the same position are removed.
 */
export async function renderTicketFile(
  env: Env,
  db: DB,
  msg: { eventId: number; code: string; positionId: number | null },
  lastAttempt: boolean,
  now = Date.now(),
): Promise<void> {
  const event = await eventById(db, msg.eventId);
  if (!event) return;
  const r = await findOrder(db, event.id, msg.code);
  if (!r) return;
  let plan: TicketPlan;
  try {
    plan = await ticketPlan(db, event, r, msg.positionId);
  } catch (e) {
    // the position is gone or has no ticket any more, or the layout became unusable: downloads say so
    if (isFailure(e)) return;
    throw e;
  }
  if (await env.FILES.head(plan.key)) return;
  const record = (f: RenderFailure) =>
    env.FILES.put(`${plan.key}.error`, JSON.stringify(f), { httpMetadata: { contentType: "application/json" } });
  try {
    const layouts = new Map<number, { name: string; elements: unknown[]; background: Uint8Array | null }>();
    const backgrounds = new Map<string, Uint8Array>();
    for (const [id, l] of plan.layouts) {
      let bg: Uint8Array | null = null;
      if (l.background) {
        bg = backgrounds.get(l.background) ?? null;
        if (!bg) {
          const object = await env.FILES.get(`media/${l.background}`);
          if (!object)
            throw new Failure(
              "invalid",
              `The ticket layout "${l.name}" cannot be rendered: its background file is missing.`,
            );
          bg = new Uint8Array(await object.arrayBuffer());
          backgrounds.set(l.background, bg);
        }
      }
      layouts.set(id, { name: l.name, elements: l.elements, background: bg });
    }
    const bytes = await renderTicketPdf(
      { positions: plan.positions, order: plan.order, event: plan.event, layouts },
      (face) => loadFont(env, face),
      now,
    );
    await env.FILES.put(plan.key, bytes, { httpMetadata: { contentType: "application/pdf" } });
  } catch (e) {
    if (isFailure(e, "invalid") || isFailure(e, "unavailable")) {
      await record({ code: e.code as RenderFailure["code"], message: e.message });
      return;
    }
    if (lastAttempt)
      await record({
        code: "unavailable",
        message: `The ticket could not be rendered: ${e instanceof Error ? e.message : String(e)}`,
      });
    throw e;
  }
  // files of the same position (or order) drawn from older data
  const prefix = plan.key.slice(0, plan.key.lastIndexOf("-") + 1);
  const listed = await env.FILES.list({ prefix });
  const stale = listed.objects.map((o) => o.key).filter((k) => k !== plan.key);
  if (stale.length) await env.FILES.delete(stale);
}
