/**
 * Add-ons and bundles of an item (spec open point 5; pretix docs item_add-ons.rst and
 * item_bundles.rst): the services behind the nested endpoints. An add-on offers a category of
 * the same event, once per item; a bundle includes an item (and variation) of the same event
 * that has no bundles of its own.
 */
import { lookUpReferences } from "../db/catalog-references";
import {
  type AddonRow,
  type AddonValues,
  type BundleRow,
  type BundleValues,
  deleteAddonRow,
  deleteBundleRow,
  findAddon,
  findBundle,
  insertAddon,
  insertBundle,
  updateAddonRow,
  updateBundleRow,
} from "../db/item-addons-bundles";
import type { ItemRow } from "../db/items";
import type { ChangeMode, EventContext } from "./context";
import { notFound, Problems } from "../lib/failure";
import { type AddonInput, addonValues, type BundleInput, bundleValues } from "./item-input";
import { checkAddon, checkBundle, MESSAGES, raced, reportTo } from "../rules/item-rules";
import { loadItemRow } from "./items";

// ---- add-ons ----

/** The add-on of the item, or 404. */
export async function loadAddon(ctx: EventContext, itemId: number, addonId: number): Promise<AddonRow> {
  const row = await findAddon(ctx.db, itemId, addonId);
  if (!row) throw notFound();
  return row;
}

/** Checks an add-on's would-be state: its category (of the event, not yet offered by the item) and counts. */
async function validateAddon(
  ctx: EventContext,
  item: ItemRow,
  values: Partial<AddonValues>,
  current: AddonRow | null,
): Promise<void> {
  const errors = new Problems();
  if (values.addonCategoryId !== undefined) {
    const categoryId = values.addonCategoryId;
    const found = await lookUpReferences(ctx.db, ctx.event.id, ctx.event.organizerId, {
      categories: [categoryId],
      addon: { itemId: item.id, categoryId, exceptId: current?.id ?? null },
    });
    if (!found.categories.has(categoryId)) errors.add("addon_category", MESSAGES.addonCategoryForeign);
    else if (found.addonTaken) errors.add("addon_category", MESSAGES.addonCategoryTaken);
  }
  checkAddon(
    { minCount: values.minCount ?? current!.minCount, maxCount: values.maxCount ?? current!.maxCount },
    reportTo(errors),
  );
  errors.throwIfAny();
}

export async function createAddon(ctx: EventContext, itemId: number, input: AddonInput): Promise<AddonRow> {
  const item = await loadItemRow(ctx, itemId);
  const values = addonValues(input, "create") as AddonValues;
  await validateAddon(ctx, item, values, null);
  return insertAddon(ctx.db, ctx.event.id, item.id, values, ctx.now).catch(raced);
}

/** Changes an add-on: PUT (`mode` "put": omitted fields return to their defaults) or PATCH. */
export async function changeAddon(
  ctx: EventContext,
  itemId: number,
  addonId: number,
  input: AddonInput,
  mode: ChangeMode,
): Promise<AddonRow> {
  const item = await loadItemRow(ctx, itemId);
  const current = await loadAddon(ctx, item.id, addonId);
  const values = addonValues(input, mode);
  await validateAddon(ctx, item, values, current);
  const row = await updateAddonRow(ctx.db, ctx.event.id, item.id, current.id, values, ctx.now).catch(raced);
  if (!row) throw notFound();
  return row;
}

export async function deleteAddon(ctx: EventContext, itemId: number, addonId: number): Promise<void> {
  const item = await loadItemRow(ctx, itemId);
  if (!(await deleteAddonRow(ctx.db, ctx.event.id, item.id, addonId, ctx.now))) throw notFound();
}

// ---- bundles ----

/** The bundle of the item, or 404. */
export async function loadBundle(ctx: EventContext, itemId: number, bundleId: number): Promise<BundleRow> {
  const row = await findBundle(ctx.db, itemId, bundleId);
  if (!row) throw notFound();
  return row;
}

/** Checks a bundle's would-be state against the event's items and variations. */
async function validateBundle(
  ctx: EventContext,
  item: ItemRow,
  values: Partial<BundleValues>,
  current: BundleRow | null,
): Promise<void> {
  const bundledItemId = values.bundledItemId ?? current!.bundledItemId;
  const bundledVariationId =
    values.bundledVariationId !== undefined ? values.bundledVariationId : (current?.bundledVariationId ?? null);
  const found = await lookUpReferences(ctx.db, ctx.event.id, ctx.event.organizerId, {
    items: [bundledItemId],
    variations: bundledVariationId != null ? [bundledVariationId] : [],
  });
  const errors = new Problems();
  checkBundle(
    {
      baseItemId: item.id,
      bundledItem: found.items.get(bundledItemId) ?? null,
      bundledItemId,
      bundledVariation: bundledVariationId != null ? (found.variations.get(bundledVariationId) ?? null) : null,
      bundledVariationId: bundledVariationId ?? null,
    },
    reportTo(errors),
  );
  errors.throwIfAny();
}

export async function createBundle(ctx: EventContext, itemId: number, input: BundleInput): Promise<BundleRow> {
  const item = await loadItemRow(ctx, itemId);
  const values = bundleValues(input, "create") as BundleValues;
  await validateBundle(ctx, item, values, null);
  return insertBundle(ctx.db, ctx.event.id, item.id, values, ctx.now).catch(raced);
}

/** Changes a bundle: PUT (`mode` "put": omitted fields return to their defaults) or PATCH. */
export async function changeBundle(
  ctx: EventContext,
  itemId: number,
  bundleId: number,
  input: BundleInput,
  mode: ChangeMode,
): Promise<BundleRow> {
  const item = await loadItemRow(ctx, itemId);
  const current = await loadBundle(ctx, item.id, bundleId);
  const values = bundleValues(input, mode);
  await validateBundle(ctx, item, values, current);
  const row = await updateBundleRow(ctx.db, ctx.event.id, item.id, current.id, values, ctx.now).catch(raced);
  if (!row) throw notFound();
  return row;
}

export async function deleteBundle(ctx: EventContext, itemId: number, bundleId: number): Promise<void> {
  const item = await loadItemRow(ctx, itemId);
  if (!(await deleteBundleRow(ctx.db, ctx.event.id, item.id, bundleId, ctx.now))) throw notFound();
}
