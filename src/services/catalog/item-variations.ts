/**
 * Variations of an item (docs/api.md; pretix docs item_variations.rst): the services
 * behind the nested endpoint. Only items created with variations take new ones; the last
 * variation of an item, and variations that were ordered or are reserved in a cart, are kept.
 */
import { lookUpReferences } from "../../db/catalog-references";
import {
  deleteVariationRow,
  findVariation,
  insertVariation,
  updateVariationRow,
  variationDeleteBlockers,
  type VariationRecord,
  type VariationValues,
} from "../../db/item-variations";
import type { ItemRow } from "../../db/items";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { forbidden, inUse, notFound, Problems } from "../../lib/failure";
import { type VariationInput, variationState } from "./item-input";
import { MESSAGES, raced, reportTo } from "../../rules/item-rules";
import { loadItemRow } from "./items";

/** The variation of the item, or 404. */
export async function loadVariation(ctx: EventContext, itemId: number, variationId: number): Promise<VariationRecord> {
  const rec = await findVariation(ctx.db, itemId, variationId);
  if (!rec) throw notFound();
  return rec;
}

/** Checks a variation's input (rules, membership types of the organizer) and turns it into values. */
async function prepareVariation(
  ctx: EventContext,
  item: ItemRow,
  input: VariationInput,
  mode: WriteMode,
  current: VariationRecord | null,
) {
  const errors = new Problems();
  const values = variationState(ctx.event, item, input, mode, current, reportTo(errors));
  const sentTypes = input.require_membership_types ?? (mode === "put" ? [] : undefined);
  if (sentTypes?.length) {
    const found = await lookUpReferences(ctx.db, ctx.event.id, ctx.event.organizerId, { membershipTypes: sentTypes });
    for (const id of new Set(sentTypes))
      if (!found.membershipTypes.has(id)) errors.add("require_membership_types", MESSAGES.objectMissing(id));
  }
  errors.throwIfAny();
  return { values, membershipTypeIds: sentTypes === undefined ? undefined : [...new Set(sentTypes)] };
}

/** Adds a variation to an item created with variations (403 for one without). */
export async function createVariation(
  ctx: EventContext,
  itemId: number,
  input: VariationInput,
): Promise<{ item: ItemRow; variation: VariationRecord }> {
  const { db, event } = ctx;
  const item = await loadItemRow(ctx, itemId);
  if (!item.hasVariations) throw forbidden(MESSAGES.noVariations);
  const p = await prepareVariation(ctx, item, input, "create", null);
  const id = await insertVariation(
    db,
    event.id,
    event.organizerId,
    item.id,
    { values: p.values as VariationValues, membershipTypeIds: p.membershipTypeIds ?? [] },
    ctx.now,
  ).catch(raced);
  return { item, variation: await loadVariation(ctx, item.id, id) };
}

/** Changes a variation: PUT (`mode` "put": omitted fields return to their defaults) or PATCH. */
export async function changeVariation(
  ctx: EventContext,
  itemId: number,
  variationId: number,
  input: VariationInput,
  mode: ChangeMode,
): Promise<{ item: ItemRow; variation: VariationRecord }> {
  const { db, event } = ctx;
  const item = await loadItemRow(ctx, itemId);
  const current = await loadVariation(ctx, item.id, variationId);
  const p = await prepareVariation(ctx, item, input, mode, current);
  const ok = await updateVariationRow(
    db,
    event.id,
    event.organizerId,
    item.id,
    variationId,
    p.values,
    p.membershipTypeIds,
    ctx.now,
  ).catch(raced);
  if (!ok) throw notFound();
  return { item, variation: await loadVariation(ctx, item.id, variationId) };
}

/** Deletes a variation unless it was ordered, is reserved in a cart, or is the item's last one (403). */
export async function deleteVariation(ctx: EventContext, itemId: number, variationId: number): Promise<void> {
  const { db, event } = ctx;
  const item = await loadItemRow(ctx, itemId);
  const { variation } = await loadVariation(ctx, item.id, variationId);
  const refuse = async () => {
    const blockers = await variationDeleteBlockers(db, item.id, variation.id, ctx.now);
    if (blockers.ordered) throw inUse(MESSAGES.variationOrdered);
    if (blockers.inCart) throw inUse(MESSAGES.variationInCart);
    if (blockers.variations <= 1) throw inUse(MESSAGES.onlyVariation);
  };
  await refuse();
  if (!(await deleteVariationRow(db, event.id, item.id, variation.id, ctx.now))) {
    // something changed between the checks and the deletion
    await refuse();
    throw notFound();
  }
}
