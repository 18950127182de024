/**
 * Nested add-on and bundle endpoints of an item (spec open point 5; pretix docs
 * item_add-ons.rst and item_bundles.rst): list, detail, POST (201), PATCH / PUT (every field
 * but `id`), DELETE (204). Reading needs access to the event; writing needs can_change_items.
 */
import { Hono } from "hono";
import { isUniqueError } from "../db/constraints";
import {
  addonPage,
  addonWithCategory,
  type AddonValues,
  bundlePage,
  bundleTargets,
  type BundleValues,
  categoryOfEvent,
  createAddon,
  createBundle,
  deleteAddon,
  deleteBundle,
  findAddon,
  findBundle,
  type ItemRow,
  updateAddon,
  updateBundle,
  variationsOfEvent,
} from "../db/items";
import { itemAddons, itemBundles } from "../db/schema";
import { addonProblems, bundleProblems } from "../domain/items";
import type { AppContext, AppEnv } from "../http/context";
import { fieldError, notFound } from "../domain/failure";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { type AddonInput, addonFull, addonPatch, type BundleInput, bundleFull, bundlePatch } from "./items-fields";
import { addonValues, bundleValues, Errors, type Mode } from "./items-input";
import { itemsBase, raced as referenceRaced } from "./items";
import { serializeAddon, serializeBundle } from "./items-serializers";
import { loadItemRow } from "./items-variations";

const read = eventScope(null);
const write = eventScope("can_change_items");

const DUPLICATE_CATEGORY = "The item already has an add-on of this category.";

/** A write that lost a race: a duplicate add-on category, or see items.ts. */
function raced(e: unknown): never {
  if (isUniqueError(e)) throw fieldError("addon_category", DUPLICATE_CATEGORY);
  return referenceRaced(e);
}

// ---- add-ons ----

export const addonRoutes = new Hono<AppEnv>();
const addons = `${itemsBase}/:item/addons`;

async function checkAddon(c: AppContext, item: ItemRow, values: Partial<AddonValues>, current: AddonValues & { id: number } | null) {
  const errors = new Errors();
  const categoryId = values.addonCategoryId ?? current!.addonCategoryId;
  if (values.addonCategoryId !== undefined) {
    if (!(await categoryOfEvent(c.var.db, c.var.event.id, categoryId))) {
      errors.add("addon_category", "The add-on's category must belong to the same event as the item.");
    } else if (await addonWithCategory(c.var.db, item.id, categoryId, current?.id ?? null)) {
      errors.add("addon_category", DUPLICATE_CATEGORY);
    }
  }
  errors.addAll(addonProblems({ minCount: values.minCount ?? current!.minCount!, maxCount: values.maxCount ?? current!.maxCount! }));
  errors.throwIfAny();
}

addonRoutes.get(addons, read, async (c) => {
  const item = await loadItemRow(c);
  const page = pageRequest(c);
  const order = ordering(c, { id: itemAddons.id, position: itemAddons.position }, "id", itemAddons.id);
  const result = await addonPage(c.var.db, item.id, order, page.limit, page.offset);
  return c.json(envelope(c, page, result.total, result.rows.map(serializeAddon)));
});

addonRoutes.post(addons, write, jsonBody(addonFull), async (c) => {
  const item = await loadItemRow(c);
  const values = addonValues(c.req.valid("json"), "create") as AddonValues;
  await checkAddon(c, item, values, null);
  const row = await createAddon(c.var.db, c.var.event.id, item.id, values, Date.now()).catch(raced);
  return c.json(serializeAddon(row), 201);
});

addonRoutes.get(`${addons}/:id`, read, async (c) => {
  const item = await loadItemRow(c);
  const row = await findAddon(c.var.db, item.id, pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeAddon(row));
});

async function changeAddon(c: AppContext, input: AddonInput, mode: Mode) {
  const item = await loadItemRow(c);
  const current = await findAddon(c.var.db, item.id, pathId(c, "id"));
  if (!current) throw notFound();
  const values = addonValues(input, mode);
  await checkAddon(c, item, values, current);
  const row = await updateAddon(c.var.db, c.var.event.id, item.id, current.id, values, Date.now()).catch(raced);
  if (!row) throw notFound();
  return c.json(serializeAddon(row));
}

addonRoutes.put(`${addons}/:id`, write, jsonBody(addonFull), (c) => changeAddon(c, c.req.valid("json"), "put"));
addonRoutes.patch(`${addons}/:id`, write, jsonBody(addonPatch), (c) => changeAddon(c, c.req.valid("json"), "patch"));

addonRoutes.delete(`${addons}/:id`, write, async (c) => {
  const item = await loadItemRow(c);
  if (!(await deleteAddon(c.var.db, c.var.event.id, item.id, pathId(c, "id"), Date.now()))) throw notFound();
  return c.body(null, 204);
});

// ---- bundles ----

export const bundleRoutes = new Hono<AppEnv>();
const bundles = `${itemsBase}/:item/bundles`;

async function checkBundle(c: AppContext, item: ItemRow, values: Partial<BundleValues>, current: BundleValues | null) {
  const bundledItemId = values.bundledItemId ?? current!.bundledItemId;
  const bundledVariationId = values.bundledVariationId !== undefined ? values.bundledVariationId : (current?.bundledVariationId ?? null);
  const [targets, variations] = await Promise.all([
    bundleTargets(c.var.db, c.var.event.id, [bundledItemId]),
    bundledVariationId != null ? variationsOfEvent(c.var.db, c.var.event.id, [bundledVariationId]) : new Map<number, { id: number; itemId: number }>(),
  ]);
  const errors = new Errors();
  errors.addAll(
    bundleProblems({
      baseItemId: item.id,
      bundledItem: targets.get(bundledItemId) ?? null,
      bundledItemId,
      bundledVariation: bundledVariationId != null ? (variations.get(bundledVariationId) ?? null) : null,
      bundledVariationId: bundledVariationId ?? null,
    }),
  );
  errors.throwIfAny();
}

bundleRoutes.get(bundles, read, async (c) => {
  const item = await loadItemRow(c);
  const page = pageRequest(c);
  const order = ordering(c, { id: itemBundles.id }, "id", itemBundles.id);
  const result = await bundlePage(c.var.db, item.id, order, page.limit, page.offset);
  return c.json(envelope(c, page, result.total, result.rows.map(serializeBundle)));
});

bundleRoutes.post(bundles, write, jsonBody(bundleFull), async (c) => {
  const item = await loadItemRow(c);
  const values = bundleValues(c.req.valid("json"), "create") as BundleValues;
  await checkBundle(c, item, values, null);
  const row = await createBundle(c.var.db, c.var.event.id, item.id, values, Date.now()).catch(raced);
  return c.json(serializeBundle(row), 201);
});

bundleRoutes.get(`${bundles}/:id`, read, async (c) => {
  const item = await loadItemRow(c);
  const row = await findBundle(c.var.db, item.id, pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeBundle(row));
});

async function changeBundle(c: AppContext, input: BundleInput, mode: Mode) {
  const item = await loadItemRow(c);
  const current = await findBundle(c.var.db, item.id, pathId(c, "id"));
  if (!current) throw notFound();
  const values = bundleValues(input, mode);
  await checkBundle(c, item, values, current);
  const row = await updateBundle(c.var.db, c.var.event.id, item.id, current.id, values, Date.now()).catch(raced);
  if (!row) throw notFound();
  return c.json(serializeBundle(row));
}

bundleRoutes.put(`${bundles}/:id`, write, jsonBody(bundleFull), (c) => changeBundle(c, c.req.valid("json"), "put"));
bundleRoutes.patch(`${bundles}/:id`, write, jsonBody(bundlePatch), (c) => changeBundle(c, c.req.valid("json"), "patch"));

bundleRoutes.delete(`${bundles}/:id`, write, async (c) => {
  const item = await loadItemRow(c);
  if (!(await deleteBundle(c.var.db, c.var.event.id, item.id, pathId(c, "id"), Date.now()))) throw notFound();
  return c.body(null, 204);
});
