/**
 * Cart positions (docs/api.md; experimental there): the input and the services that
 * reserve and release them. Reservations are decided by the event object: quota, seats and
 * vouchers; an expired cart stops blocking by itself. Not validated, as docs/api.md says: sales
 * time frames, whether sales started or ended, add-on constraints, prices (any sent price is
 * accepted) or voucher-only items.
 */
import { z } from "zod";
import { cartForDeletion, cartsByHoldKeys, type CartRowRecord } from "../../db/carts";
import { randomString } from "../../lib/crypto";
import { withEventObject } from "../../objects/client";
import type { CartGroup, CartRow, Decision } from "../../objects/event/types";
import type { EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { SALES_CHANNELS } from "../../rules/events";
import { Failure, notFound, Problems, validationError } from "../../lib/failure";
import { dateTime, money } from "../../rules/fields";
import {
  collectRefs,
  positionFields,
  preparePosition,
  type PositionInput,
  type PreparedPosition,
  seatName,
} from "./positions";
import { cartRefusalErrors } from "../../rules/refusals";
import type { Refusal } from "../../rules/inventory/index";
import { i18nText, type I18n } from "../../lib/i18n";
import { loadSalesCatalog, type SalesCatalog } from "./sales-catalog";
import { passSaleGate, type SaleCaller } from "../waiting-room/gate";

/** A cart position names its price, nested ones too: nothing prices a cart (see above). */
const cartPositionFields = { ...positionFields, price: money() };

const nestedPosition = z.object(cartPositionFields);

/** The body of a cart position (POST, and each entry of bulk_create). */
export const cartInput = z.object({
  ...cartPositionFields,
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
export type CartInput = z.output<typeof cartInput>;

/** A cart position as stored, with its add-ons and bundled positions. */
export type CartRecord = { position: CartRowRecord; children: CartRowRecord[] };

/** A requested position with its add-ons and bundled positions: its rows, and their names by demand index. */
type PreparedGroup = { group: CartGroup; positions: PreparedPosition[]; itemNames: I18n[] };

/** Nested positions take the base position's date unless they name their own. */
const withDate = (p: z.output<typeof nestedPosition>, input: CartInput): PositionInput =>
  ({ ...p, subevent: p.subevent ?? input.subevent }) as PositionInput;

/** Validates one requested position with its add-ons and bundled positions; null after collecting its errors. */
function prepareGroup(
  ctx: EventContext,
  input: CartInput,
  catalog: SalesCatalog,
  problems: Problems,
): PreparedGroup | null {
  const { event, now } = ctx;
  const channel = input.sales_channel ?? "web";
  if (!Object.hasOwn(SALES_CHANNELS, channel)) problems.add("sales_channel", `"${channel}" is not a valid choice.`);
  const base = preparePosition(
    input as PositionInput,
    0,
    { event, catalog, kind: "cart", isAddon: false, isBundled: false, now },
    problems,
  );
  const nested = (list: z.output<typeof nestedPosition>[] | undefined, field: "addons" | "bundled") => {
    const out: PreparedPosition[] = [];
    const each = (list ?? []).map((p, i) => {
      const own = new Problems();
      const r = preparePosition(
        withDate(p, input),
        i + 1,
        { event, catalog, kind: "cart", isAddon: field === "addons", isBundled: field === "bundled", now },
        own,
      );
      if (r) out.push(r);
      return own.errors;
    });
    problems.nest(field, each);
    return out;
  };
  const addons = nested(input.addons, "addons");
  const bundled = nested(input.bundled, "bundled");
  if (problems.has() || !base) return null;

  const expires = input.expires ?? now + Number(catalog.settings.reservation_time ?? 30) * 60_000;
  const cartId = input.cart_id ?? `${randomString(48)}@api`;
  const positions = [base, ...addons, ...bundled];
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
  return {
    positions,
    itemNames: positions.map((p) => catalog.items.get(p.itemId)!.name),
    group: { holdKeys, cartId, expires, demands: positions.map((p) => p.demand), rows },
  };
}

/** The refusal of a cart position, as pretix's cart endpoint answers it (see `cartRefusalErrors`). */
function cartRefusal(group: PreparedGroup, refusals: Refusal[], single: boolean): Failure {
  const { fields, quota } = cartRefusalErrors(refusals, {
    item: (i) => i18nText(group.itemNames[i]),
    seat: (i) => {
      const seat = group.positions[i]?.seat;
      return seat ? seatName(seat) : "";
    },
    voucher: () => "",
  });
  // pretix raises a quota without room as a bare message: a list on its own, or in bulk_create
  // the entry's non_field_errors
  if (quota.length && single && Object.keys(fields).length === 0)
    return new Failure("invalid", quota[0]!, { body: quota });
  if (quota.length) fields.non_field_errors = [...quota, ...(fields.non_field_errors ?? [])];
  return validationError(fields);
}

/**
 * Reserves cart positions, each input on its own (bulk_create is not atomic): the catalog is
 * read once for all of them, the event object decides on all groups in one call. Returns per
 * input the stored position with its children, or the failure of that input (invalid input,
 * or the object's refusal). An object that cannot serve fails the whole call. A seat an earlier
 * entry of the same request asked for is refused to the later one, as pretix does.
 */
export const createCartPositions = survivingD1Faults(async function createCartPositions(
  ctx: EventContext,
  inputs: CartInput[],
  caller: SaleCaller,
  opts: { single?: boolean } = {},
): Promise<(CartRecord | Failure)[]> {
  const { event, db } = ctx;
  const refs = collectRefs(
    inputs.flatMap((i) => [
      i as PositionInput,
      ...(i.addons ?? []).map((a) => withDate(a, i)),
      ...(i.bundled ?? []).map((a) => withDate(a, i)),
    ]),
  );
  const catalog = await loadSalesCatalog(db, ctx.organizer.id, event.id, {
    ...refs,
    eventSeatingPlanId: event.seatingPlanId,
  });
  // behind an active on-sale queue the whole request needs an admission (carts count no orders)
  const sales = inputs.flatMap((i) =>
    [i, ...(i.addons ?? []), ...(i.bundled ?? [])].map((p) => ({
      subeventId: p.subevent ?? i.subevent ?? null,
      channel: i.sales_channel ?? "web",
    })),
  );
  await passSaleGate(ctx, catalog.queues, sales, caller);
  const seatsAsked = new Set<string>();
  const prepared = inputs.map((input) => {
    const problems = new Problems();
    const group = prepareGroup(ctx, input, catalog, problems);
    if (!group) return validationError(problems.errors);
    const seats = group.positions.filter((p) => p.seat).map((p) => `${p.subeventId ?? ""}:${p.seat!.seatGuid}`);
    if (seats.some((k) => seatsAsked.has(k)))
      return validationError({ non_field_errors: ["You can not select the same seat multiple times."] });
    for (const k of seats) seatsAsked.add(k);
    return group;
  });
  const accepted = prepared.filter((p): p is PreparedGroup => !(p instanceof Failure));
  const groups = accepted.map((p) => p.group);
  const decisions = groups.length
    ? await withEventObject<Decision[]>(ctx.env, event.id, (s, call) => s.reserveCarts(call, catalog.stamp, groups))
    : [];
  const rows = await readAfterWrite(() =>
    cartsByHoldKeys(
      db,
      event.id,
      groups.flatMap((g) => g.holdKeys),
    ),
  );
  const byKey = new Map(rows.map((r) => [r.holdKey, r]));
  let g = 0;
  return prepared.map((p) => {
    if (p instanceof Failure) return p;
    const decision = decisions[g]!;
    const [baseKey, ...childKeys] = groups[g++]!.holdKeys;
    if (!decision.ok) return cartRefusal(p, decision.refusals, opts.single ?? false);
    return { position: byKey.get(baseKey!)!, children: childKeys.map((k) => byKey.get(k)!) };
  });
});

/** Reserves one cart position (with its add-ons and bundled positions), or fails. */
export const createCartPosition = survivingD1Faults(async function createCartPosition(
  ctx: EventContext,
  input: CartInput,
  caller: SaleCaller,
): Promise<CartRecord> {
  const [result] = await createCartPositions(ctx, [input], caller, { single: true });
  if (result instanceof Failure) throw result;
  return result!;
});

/** Releases a cart position and its children through the event object; 404 when it is not (or no longer) there. */
export const deleteCartPosition = survivingD1Faults(async function deleteCartPosition(
  ctx: EventContext,
  id: number,
): Promise<void> {
  const { holdKeys, own } = await cartForDeletion(ctx.db, ctx.event.id, id);
  if (!own) throw notFound();
  const deleted = await withEventObject<string[]>(ctx.env, ctx.event.id, (s, call) => s.deleteCarts(call, holdKeys));
  if (!deleted.includes(own.holdKey)) throw notFound();
});
