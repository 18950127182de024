/**
 * Cart positions (spec "Cart positions"; experimental there). Reservations are decided by the
 * event object: quota, seats and vouchers; an expired cart stops blocking by itself. The
 * endpoint does not validate sales time frames, whether sales started or ended, add-on
 * constraints, prices (any sent price is accepted) or voucher-only items — as the spec says.
 */
import { Hono } from "hono";
import { z } from "zod";
import { cartById, cartChildren, cartCount, cartPage, cartPageChildren, cartsByHoldKeys, cartWithChildren, type CartRowRecord } from "../db/carts";
import { loadSalesCatalog, type SalesCatalog } from "../domain/sales-catalog";
import { SALES_CHANNELS } from "../domain/events";
import { buildName } from "../domain/person-names";
import { collectRefs, preparePosition, type PositionInput, type PreparedPosition, seatName } from "../domain/positions";
import { randomString } from "../lib/crypto";
import { toIso } from "../lib/datetime";
import { formatMoney } from "../lib/money";
import { withEventObject } from "../objects/client";
import type { CartGroup, CartRow, Decision } from "../objects/event-object";
import { setPageGenerated } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { type FieldErrors, notFound, validationError } from "../domain/failure";
import { dateTime } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { issuesToFieldErrors, jsonBody, pathId } from "../http/validation";
import { serializeAnswer, serializeSeat } from "./sales-common";
import { positionFields } from "../domain/positions";
import { refusalErrors } from "../domain/refusals";

const nestedPosition = z.object({ ...positionFields });
const cartInput = z.object({
  ...positionFields,
  cart_id: z
    .string()
    .max(255)
    .refine((v) => v.endsWith("@api"), { message: 'Cart ID should end in "@api".' })
    .optional(),
  expires: dateTime().optional(),
  includes_tax: z.boolean().optional(),
  sales_channel: z.string().optional(),
  addons: z.array(nestedPosition).max(100).optional(),
  bundled: z.array(nestedPosition).max(100).optional(),
});
type CartInput = z.output<typeof cartInput>;

export function serializeCart(c: CartRowRecord, children: CartRowRecord[] = []): Record<string, unknown> {
  const mine = children.filter((x) => x.addonTo === c.id);
  return {
    id: c.id,
    cart_id: c.cartId,
    datetime: toIso(c.datetime),
    expires: toIso(c.expires),
    item: c.itemId,
    variation: c.variationId,
    price: formatMoney(c.price),
    attendee_name: buildName(c.attendeeNameParts),
    attendee_name_parts: c.attendeeNameParts,
    attendee_email: c.attendeeEmail,
    voucher: c.voucherId,
    addon_to: c.addonTo,
    is_bundled: c.isBundled,
    subevent: c.subeventId,
    includes_tax: c.includesTax,
    sales_channel: c.salesChannel,
    seat: serializeSeat(c.seat, c.seatId, c.seatName),
    answers: c.answers.map(serializeAnswer),
    addons: mine.filter((x) => !x.isBundled).map((x) => serializeCart(x)),
    bundled: mine.filter((x) => x.isBundled).map((x) => serializeCart(x)),
  };
}

type PreparedGroup = { group: CartGroup; positions: PreparedPosition[] };

/** Validates one requested position with its add-ons and bundled positions. */
function prepareGroup(c: AppContext, input: CartInput, catalog: SalesCatalog, now: number): { ok: true; prepared: PreparedGroup } | { ok: false; errors: FieldErrors } {
  const event = c.var.event;
  const errors: FieldErrors = {};
  const channel = input.sales_channel ?? "web";
  if (!Object.hasOwn(SALES_CHANNELS, channel)) errors.sales_channel = [`"${channel}" is not a valid choice.`];
  const base = preparePosition(input as PositionInput, 0, { event, catalog, kind: "cart", isAddon: false, isBundled: false, now });
  if (!base.ok) Object.assign(errors, base.errors);
  const nested = (list: z.output<typeof nestedPosition>[] | undefined, field: "addons" | "bundled") => {
    const out: PreparedPosition[] = [];
    const listErrors: FieldErrors[] = [];
    let failed = false;
    (list ?? []).forEach((p, i) => {
      const r = preparePosition({ ...p, subevent: p.subevent ?? input.subevent } as PositionInput, i + 1, { event, catalog, kind: "cart", isAddon: field === "addons", isBundled: field === "bundled", now });
      if (r.ok) {
        out.push(r.position);
        listErrors.push({});
      } else {
        failed = true;
        listErrors.push(r.errors);
      }
    });
    if (failed) errors[field] = listErrors;
    return out;
  };
  const addons = nested(input.addons, "addons");
  const bundled = nested(input.bundled, "bundled");
  if (Object.keys(errors).length || !base.ok) return { ok: false, errors };

  const expires = input.expires ?? now + Number(catalog.settings.reservation_time ?? 30) * 60_000;
  const cartId = input.cart_id ?? `${randomString(48)}@api`;
  const positions = [base.position, ...addons, ...bundled];
  const holdKeys = positions.map(() => crypto.randomUUID());
  const rows: CartRow[] = positions.map((p, i) => ({
    eventId: event.id,
    cartId,
    holdKey: holdKeys[i]!,
    datetime: now,
    expires,
    itemId: p.itemId,
    variationId: p.variationId,
    subeventId: p.subeventId,
    price: p.price.gross,
    attendeeNameParts: p.attendeeNameParts,
    attendeeEmail: p.attendeeEmail,
    voucherId: p.voucher?.id ?? null,
    addonToHoldKey: i === 0 ? null : holdKeys[0]!,
    isBundled: p.isBundled,
    includesTax: input.includes_tax ?? true,
    seat: p.seat?.seatGuid ?? null,
    seatId: p.seat?.id ?? null,
    seatName: p.seat ? seatName(p.seat) : null,
    salesChannel: channel,
    answers: p.answers,
  }));
  return { ok: true, prepared: { positions, group: { holdKeys, cartId, expires, demands: positions.map((p) => p.demand), rows } } };
}

/** Decides and stores a list of groups; returns per input the created base row id or errors. */
async function createCarts(c: AppContext, inputs: CartInput[]) {
  const event = c.var.event;
  const now = Date.now();
  const refs = collectRefs(inputs.flatMap((i) => [i, ...(i.addons ?? []).map((a) => ({ ...a, subevent: a.subevent ?? i.subevent })), ...(i.bundled ?? []).map((a) => ({ ...a, subevent: a.subevent ?? i.subevent }))]) as PositionInput[]);
  const catalog = await loadSalesCatalog(c.var.db, c.var.organizer.id, event.id, { ...refs, eventSeatingPlanId: event.seatingPlanId });
  const prepared = inputs.map((i) => prepareGroup(c, i, catalog, now));
  const groups = prepared.filter((p): p is { ok: true; prepared: PreparedGroup } => p.ok).map((p) => p.prepared.group);
  const decisions = groups.length ? await withEventObject<Decision[]>(c.env, event.id, (s) => s.reserveCarts(catalog.stamp, groups)) : [];
  const rows = await cartsByHoldKeys(c.var.db, event.id, groups.flatMap((g) => g.holdKeys));
  const byKey = new Map(rows.map((r) => [r.holdKey, r]));
  let g = 0;
  return prepared.map((p) => {
    if (!p.ok) return { ok: false as const, errors: p.errors };
    const decision = decisions[g]!;
    const [baseKey, ...childKeys] = groups[g++]!.holdKeys;
    if (!decision.ok) return { ok: false as const, errors: refusalErrors(decision.refusals) };
    return { ok: true as const, data: serializeCart(byKey.get(baseKey!)!, childKeys.map((k) => byKey.get(k)!)) };
  });
}

export const cartRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/cartpositions";
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");

cartRoutes.get(base, read, async (c) => {
  const db = c.var.db;
  const page = pageRequest(c);
  setPageGenerated(c, Date.now());
  const eventId = c.var.event.id;
  const [[total], rows, children] = await db.batch([
    cartCount(db, eventId),
    cartPage(db, eventId, page.limit, page.offset),
    cartPageChildren(db, eventId, page.limit, page.offset),
  ]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map((r) => serializeCart(r, children))));
});

cartRoutes.get(`${base}/:id`, read, async (c) => {
  const db = c.var.db;
  const id = pathId(c, "id");
  const [[row], children] = await db.batch([cartById(db, c.var.event.id, id), cartChildren(db, c.var.event.id, id)]);
  if (!row) throw notFound();
  return c.json(serializeCart(row, children));
});

cartRoutes.post(base, write, jsonBody(cartInput), async (c) => {
  const [result] = await createCarts(c, [c.req.valid("json")]);
  if (!result!.ok) throw validationError(result!.errors);
  return c.json(result!.data, 201);
});

cartRoutes.post(`${base}/bulk_create`, write, jsonBody(z.array(z.unknown()).max(1000)), async (c) => {
  const raw = c.req.valid("json");
  // Each entry is validated on its own: one bad entry does not fail the others.
  const parsed = raw.map((entry) => cartInput.safeParse(entry));
  const valid = parsed.flatMap((p) => (p.success ? [p.data] : []));
  const created = valid.length ? await createCarts(c, valid) : [];
  let v = 0;
  const results = parsed.map((p) => {
    if (!p.success) return { success: false, errors: issuesToFieldErrors(p.error.issues), data: null };
    const r = created[v++]!;
    return r.ok ? { success: true, errors: null, data: r.data } : { success: false, errors: r.errors, data: null };
  });
  return c.json({ results }, 200);
});

cartRoutes.delete(`${base}/:id`, write, async (c) => {
  const db = c.var.db;
  const id = pathId(c, "id");
  const [rows, [own]] = await db.batch([cartWithChildren(db, c.var.event.id, id), cartById(db, c.var.event.id, id)]);
  if (!own) throw notFound();
  const deleted = await withEventObject<string[]>(c.env, c.var.event.id, (s) => s.deleteCarts(rows.map((r) => r.holdKey)));
  if (!deleted.includes(own.holdKey)) throw notFound();
  return c.body(null, 204);
});
