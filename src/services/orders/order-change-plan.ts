/**
 * An order change planned from the order as read and the catalog (pretix docs orders.rst
 * "Changing order contents"): each patched or created position is checked and priced by the
 * same `preparePosition` as order creation; what it keeps, cancels, creates and the demands the
 * event object checks. Field errors are collected in the shape of the request.
 */
import type { FeeJson, OrderRecord, PositionJson } from "../../db/orders";
import type { ChangeWrite, FeePatch, PositionPatch } from "../../db/order-changes";
import type { FeeInsert } from "../../db/order-writes";
import type { EventRow } from "../../db/tenancy";
import { Failure, type FieldErrors, invalidPk, Problems } from "../../lib/failure";
import type { Demand } from "../../rules/inventory/index";
import { tax, type Taxed } from "../../rules/pricing";
import type { OrderChangeInput, PositionCreateBody, PositionPatchBody } from "./order-change-input";
import { preparePosition, type PositionInput, type PreparedPosition, seatName } from "./positions";
import type { SalesCatalog } from "./sales-catalog";
import { feeInsert } from "./order-input";

/** pretix answers an order change it cannot make with a bare list of messages. */
export const changeRefusal = (message: string) => new Failure("invalid", message, { body: [message] });

const TWICE = "You cannot specify the same object twice.";
const UNKNOWN_BASE = "The specified addon_to refers to an unknown position ID for this order.";
const ADDON_NOT_ALLOWED = "The selected base position does not allow you to add this product as an add-on.";
export const ORDER_EMPTY = "An order cannot be empty.";

/** What the event object is asked about, each demand with what it stands for (the request's entry). */
export type PlannedDemand = { demand: Demand; label: { item: number; seat: string | null } };

export type ChangePlan = Omit<
  ChangeWrite,
  "orderId" | "eventId" | "code" | "expectedModified" | "now" | "total" | "pendingExpires"
> & {
  total: number;
  /** The inventory stamp of the catalog the plan was made on. */
  stamp: number;
  /** The event's effective settings (the payment term of an order that becomes pending). */
  settings: Record<string, unknown>;
  kept: Demand[];
  demands: PlannedDemand[];
  /** New positions before their secrets and validity (the service adds them). */
  prepared: { body: PositionCreateBody; p: PreparedPosition; positionid: number; addonTo: number | null }[];
};

type Ctx = { event: EventRow; catalog: SalesCatalog; now: number; addonCategories: Map<number, Set<number>> };

/** The order's positions and fees named by the request: each must be the order's, not canceled, named once. */
export function checkReferences(r: OrderRecord, input: OrderChangeInput): void {
  const errors = new Problems();
  const positions = new Map(r.positions.filter((p) => !p.canceled).map((p) => [p.id, p]));
  const fees = new Map(r.fees.filter((f) => !f.canceled).map((f) => [f.id, f]));
  const seen = new Set<string>();
  const check = (field: string, list: { position?: number; fee?: number }[] | undefined, kind: "position" | "fee") => {
    if (!list) return;
    const each = list.map((x): FieldErrors => {
      const id = (kind === "position" ? x.position : x.fee)!;
      const known = kind === "position" ? positions.has(id) : fees.has(id);
      if (!known) return { [kind]: [invalidPk(id)] };
      const key = `${field}:${id}`;
      if (seen.has(key)) return { [kind]: [TWICE] };
      seen.add(key);
      return {};
    });
    if (each.some((e) => Object.keys(e).length)) errors.nest(field, each);
  };
  check("patch_positions", input.patch_positions, "position");
  check("cancel_positions", input.cancel_positions, "position");
  check("split_positions", input.split_positions, "position");
  check("patch_fees", input.patch_fees, "fee");
  check("cancel_fees", input.cancel_fees, "fee");
  errors.throwIfAny();
}

/** The demand a position of the order makes as it is. */
export function demandOfPosition(p: PositionJson): Demand {
  return { itemId: p.item, variationId: p.variation, subeventId: p.subevent, seat: p.seat, voucherId: p.voucher };
}

const taxRule = (catalog: SalesCatalog, id: number | null) => (id === null ? null : (catalog.taxRules.get(id) ?? null));

/** The position input a patch amounts to: the position as it is, with the patch's fields over it. */
function patchedInput(pos: PositionJson, b: PositionPatchBody): PositionInput {
  const itemChanged = b.item !== undefined && b.item !== pos.item;
  const input: PositionInput = {
    item: b.item ?? pos.item,
    variation: b.variation !== undefined ? b.variation : itemChanged ? undefined : pos.variation,
    subevent: b.subevent !== undefined ? b.subevent : pos.subevent,
    seat: b.seat !== undefined ? b.seat : pos.seat,
    price: b.price ?? pos.price,
    attendee_email: b.attendee_email !== undefined ? b.attendee_email : pos.attendee_email,
    answers: b.answers ?? [],
  };
  if (b.attendee_name !== undefined || b.attendee_name_parts !== undefined) {
    input.attendee_name = b.attendee_name;
    input.attendee_name_parts = b.attendee_name_parts;
  } else if (Object.keys(pos.attendee_name_parts ?? {}).length) {
    input.attendee_name_parts = pos.attendee_name_parts;
  } else input.attendee_name = pos.attendee_name;
  return input;
}

/** One patched position: its new columns, and its new demand when product, date or seat change. */
function planPatch(
  ctx: Ctx,
  pos: PositionJson,
  b: PositionPatchBody,
  errors: Problems,
): { patch: PositionPatch; demand: Demand | null } | null {
  const { catalog, event } = ctx;
  if (b.item !== undefined && !catalog.items.has(b.item)) {
    errors.add("item", invalidPk(b.item));
    return null;
  }
  if (b.tax_rule != null && !catalog.taxRules.has(b.tax_rule)) errors.add("tax_rule", invalidPk(b.tax_rule));
  const p = preparePosition(
    patchedInput(pos, b),
    0,
    { event, catalog, kind: "order", isAddon: pos.addon_to !== null, isBundled: false, now: ctx.now },
    errors,
  );
  if (!p || errors.has()) return null;
  const set: PositionPatch["set"] = {};
  const moved =
    p.itemId !== pos.item ||
    p.variationId !== pos.variation ||
    p.subeventId !== pos.subevent ||
    (p.seat?.seatGuid ?? null) !== pos.seat;
  if (moved) {
    Object.assign(set, { itemId: p.itemId, variationId: p.variationId, subeventId: p.subeventId });
    Object.assign(set, { seat: p.seat?.seatGuid ?? null, seatId: p.seat?.id ?? null });
    set.seatName = p.seat ? seatName(p.seat) : null;
  }
  if (b.price !== undefined || b.tax_rule !== undefined || p.itemId !== pos.item) {
    // pretix keeps the price when the product changes, taxed by the new product's rule
    const ruleId = b.tax_rule !== undefined ? b.tax_rule : p.itemId !== pos.item ? p.price.taxRuleId : pos.tax_rule;
    const t = tax(b.price ?? pos.price, taxRule(catalog, ruleId), event.currency, true);
    Object.assign(set, { price: t.gross, taxRate: t.taxRate, taxValue: t.taxValue, taxRuleId: t.taxRuleId });
  }
  if (b.attendee_name !== undefined || b.attendee_name_parts !== undefined)
    Object.assign(set, { attendeeName: p.attendeeName, attendeeNameParts: p.attendeeNameParts });
  if (b.attendee_email !== undefined) set.attendeeEmail = p.attendeeEmail;
  if (b.answers !== undefined) set.answers = p.answers;
  if (b.valid_from !== undefined) set.validFrom = b.valid_from;
  if (b.valid_until !== undefined) set.validUntil = b.valid_until;
  return { patch: { id: pos.id, set }, demand: moved ? { ...p.demand, voucherId: pos.voucher } : null };
}

/** The positions left after the cancellations (a base's add-ons go with it, as in pretix). */
function canceledIds(r: OrderRecord, input: OrderChangeInput): Set<number> {
  const out = new Set((input.cancel_positions ?? []).map((c) => c.position));
  for (const p of r.positions) if (!p.canceled && p.addon_to !== null && out.has(p.addon_to)) out.add(p.id);
  return out;
}

/** One new position: checked, priced, its base found and allowed. */
function planCreate(
  ctx: Ctx,
  live: Map<number, PositionJson>,
  b: PositionCreateBody,
  index: number,
  errors: Problems,
): PreparedPosition | null {
  if (!ctx.catalog.items.has(b.item)) {
    errors.add("item", invalidPk(b.item));
    return null;
  }
  const base = b.addon_to != null ? [...live.values()].find((p) => p.positionid === b.addon_to) : undefined;
  if (b.addon_to != null && !base) errors.add("addon_to", UNKNOWN_BASE);
  const p = preparePosition(
    b as PositionInput,
    index,
    {
      event: ctx.event,
      catalog: ctx.catalog,
      kind: "order",
      isAddon: base !== undefined,
      isBundled: false,
      now: ctx.now,
    },
    errors,
  );
  if (!p || errors.has()) return null;
  if (base) {
    const category = ctx.catalog.items.get(p.itemId)!.categoryId;
    if (category === null || !ctx.addonCategories.get(base.item)?.has(category))
      errors.add("addon_to", ADDON_NOT_ALLOWED);
  }
  return errors.has() ? null : p;
}

/** A fee's value and tax (`keepNet`: recalculated from its net value). */
function taxedFee(ctx: Ctx, value: number, ruleId: number | null): Taxed {
  return tax(value, taxRule(ctx.catalog, ruleId), ctx.event.currency, true);
}

/** Recalculated taxes of a position or fee (pretix `recalculate_taxes`): the gross kept, or the net. */
function recalculated(
  ctx: Ctx,
  price: number,
  taxValue: number,
  ruleId: number | null,
  keep: "keep_net" | "keep_gross",
) {
  const rule = taxRule(ctx.catalog, ruleId);
  if (!rule) return null;
  if (keep === "keep_gross") return tax(price, rule, ctx.event.currency, true);
  return tax(price - taxValue, { ...rule, priceIncludesTax: false }, ctx.event.currency, false);
}

/** Plans the positions: patches, cancellations, creations, and what the event object checks. */
function planPositions(ctx: Ctx, r: OrderRecord, input: OrderChangeInput, errors: Problems) {
  const live = new Map(r.positions.filter((p) => !p.canceled).map((p) => [p.id, p]));
  const canceled = canceledIds(r, input);
  const patches: PositionPatch[] = [];
  const demands: PlannedDemand[] = [];
  const moved = new Set<number>();
  const patchErrors = (input.patch_positions ?? []).map((pp) => {
    const own = new Problems();
    const planned = planPatch(ctx, live.get(pp.position)!, pp.body, own);
    if (planned && !canceled.has(pp.position)) {
      patches.push(planned.patch);
      if (planned.demand) {
        moved.add(pp.position);
        demands.push({ demand: planned.demand, label: { item: planned.demand.itemId, seat: planned.demand.seat } });
      }
    }
    return own.has() ? ({ body: own.errors } as FieldErrors) : ({} as FieldErrors);
  });
  if (patchErrors.some((e) => Object.keys(e).length)) errors.nest("patch_positions", patchErrors);
  const kept = [...live.values()].filter((p) => !canceled.has(p.id) && !moved.has(p.id)).map(demandOfPosition);
  let next = Math.max(0, ...r.positions.map((p) => p.positionid));
  const prepared: ChangePlan["prepared"] = [];
  const remaining = new Map([...live].filter(([id]) => !canceled.has(id)));
  const createErrors = (input.create_positions ?? []).map((b, i) => {
    const own = new Problems();
    const p = planCreate(ctx, remaining, b, i, own);
    if (p) {
      prepared.push({ body: b, p, positionid: ++next, addonTo: b.addon_to ?? null });
      demands.push({ demand: p.demand, label: { item: p.itemId, seat: p.seat?.seatGuid ?? null } });
    }
    return own.errors;
  });
  if (createErrors.some((e) => Object.keys(e).length)) errors.nest("create_positions", createErrors);
  return { live, canceled, patches, demands, kept, prepared };
}

/** Plans the fees: patched values, cancellations, new fees. */
function planFees(ctx: Ctx, r: OrderRecord, input: OrderChangeInput, errors: Problems) {
  const fees = new Map(r.fees.filter((f) => !f.canceled).map((f) => [f.id, f]));
  const feePatches: FeePatch[] = (input.patch_fees ?? [])
    .filter((f) => f.body.value !== undefined)
    .map((f) => {
      const t = taxedFee(ctx, f.body.value!, fees.get(f.fee)!.tax_rule);
      return { id: f.fee, value: t.gross, taxRate: t.taxRate, taxValue: t.taxValue, taxRuleId: t.taxRuleId };
    });
  const feeErrors = (input.create_fees ?? []).map(
    (f): FieldErrors =>
      f.tax_rule != null && !ctx.catalog.taxRules.has(f.tax_rule) ? { tax_rule: [invalidPk(f.tax_rule)] } : {},
  );
  if (feeErrors.some((e) => Object.keys(e).length)) errors.nest("create_fees", feeErrors);
  const feeCreates: FeeInsert[] = (input.create_fees ?? []).map((f) =>
    feeInsert(f, taxRule(ctx.catalog, f.tax_rule ?? null), ctx.event.currency),
  );
  return { fees, feePatches, cancelFeeIds: (input.cancel_fees ?? []).map((f) => f.fee), feeCreates };
}

/** Applies `recalculate_taxes` to every remaining position and fee (over what the change sets already). */
function recalculateTaxes(
  ctx: Ctx,
  keep: "keep_net" | "keep_gross",
  live: PositionJson[],
  patches: PositionPatch[],
  fees: FeeJson[],
  feePatches: FeePatch[],
): void {
  for (const pos of live) {
    let patch = patches.find((x) => x.id === pos.id);
    const price = patch?.set.price ?? pos.price;
    const ruleId = patch?.set.taxRuleId !== undefined ? patch.set.taxRuleId : pos.tax_rule;
    const t = recalculated(ctx, price, patch?.set.taxValue ?? pos.tax_value, ruleId, keep);
    if (!t || price === 0) continue;
    if (!patch) patches.push((patch = { id: pos.id, set: {} }));
    Object.assign(patch.set, { price: t.gross, taxRate: t.taxRate, taxValue: t.taxValue, taxRuleId: t.taxRuleId });
  }
  for (const f of fees) {
    const patched = feePatches.find((x) => x.id === f.id);
    const t = recalculated(ctx, patched?.value ?? f.value, patched?.taxValue ?? f.tax_value, f.tax_rule, keep);
    if (!t) continue;
    const row = { id: f.id, value: t.gross, taxRate: t.taxRate, taxValue: t.taxValue, taxRuleId: t.taxRuleId };
    if (patched) Object.assign(patched, row);
    else feePatches.push(row);
  }
}

/** The whole plan, or the request's field errors / pretix's refusal. */
export function planChange(ctx: Ctx, r: OrderRecord, input: OrderChangeInput, stamp: number): ChangePlan {
  const errors = new Problems();
  const pos = planPositions(ctx, r, input, errors);
  const fee = planFees(ctx, r, input, errors);
  errors.throwIfAny();
  if (input.split_positions?.length)
    throw changeRefusal("This service does not split orders: split_positions is not offered.");
  const remaining = [...pos.live.values()].filter((p) => !pos.canceled.has(p.id));
  if (remaining.length + pos.prepared.length === 0) throw changeRefusal(ORDER_EMPTY);
  const cancelFees = new Set(fee.cancelFeeIds);
  const remainingFees = [...fee.fees.values()].filter((f) => !cancelFees.has(f.id));
  if (input.recalculate_taxes)
    recalculateTaxes(ctx, input.recalculate_taxes, remaining, pos.patches, remainingFees, fee.feePatches);
  const priceOf = (p: PositionJson) => pos.patches.find((x) => x.id === p.id)?.set.price ?? p.price;
  const feeValue = (f: FeeJson) => fee.feePatches.find((x) => x.id === f.id)?.value ?? f.value;
  const total =
    remaining.reduce((s, p) => s + priceOf(p), 0) +
    pos.prepared.reduce((s, c) => s + c.p.price.gross, 0) +
    remainingFees.reduce((s, f) => s + feeValue(f), 0) +
    fee.feeCreates.reduce((s, f) => s + (f.value ?? 0), 0);
  if (total < 0) throw changeRefusal("The order total may not be negative.");
  const released = new Map<number, number>();
  for (const p of r.positions)
    if (pos.canceled.has(p.id) && p.voucher !== null) released.set(p.voucher, (released.get(p.voucher) ?? 0) + 1);
  return {
    total,
    stamp,
    settings: ctx.catalog.settings,
    kept: pos.kept,
    demands: pos.demands,
    prepared: pos.prepared,
    patches: pos.patches,
    cancelPositionIds: [...pos.canceled],
    creates: [],
    feePatches: fee.feePatches,
    cancelFeeIds: fee.cancelFeeIds,
    feeCreates: fee.feeCreates,
    voucherReleases: [...released],
    tickets: [],
  };
}
