/**
 * Add-ons and bundles of an item (docs/open-points.md row 5; pretix docs item_add-ons.rst and
 * item_bundles.rst): the services behind the nested endpoints, one implementation for both
 * kinds. A kind brings its queries, how its input becomes values, and its checks. An add-on
 * offers a category of the same event, once per item; a bundle includes an item (and
 * variation) of the same event that has no bundles of its own.
 */
import { lookUpReferences } from "../../db/catalog-references";
import {
  type AddonRow,
  type AddonValues,
  addonQueries,
  type BundleRow,
  type BundleValues,
  bundleQueries,
  type ItemPartQueries,
} from "../../db/item-addons-bundles";
import type { ItemRow } from "../../db/items";
import type { ListRequest, OrderingTable, Page } from "../../db/paging";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { notFound, Problems } from "../../lib/failure";
import { type AddonInput, addonValues, type BundleInput, bundleValues } from "./item-input";
import { checkAddon, checkBundle, MESSAGES, raced, reportTo } from "../../rules/item-rules";
import { loadItemRow } from "./items";

/** One kind of an item's nested objects, as its services need it. */
type ItemPartKind<Row, Values, Input> = {
  queries: ItemPartQueries<Row, Values>;
  /** The values to write: the sent fields, and for POST and PUT the defaults of the omitted ones. */
  values(input: Input, mode: WriteMode): Partial<Values>;
  /**
   * Checks the would-be object (`values` over `current`; all of them on creation, `current`
   * null) against the rules and the event's objects; throws the field errors.
   */
  check(ctx: EventContext, item: ItemRow, values: Partial<Values>, current: Row | null): Promise<void>;
};

/** The services of one kind of an item's nested objects; each answers 404 for an item not of the event. */
export type ItemPartServices<Row, Input> = {
  /** The orderings of the item's list. */
  ordering: OrderingTable;
  /** A page of the item's objects (a plain read: the route has loaded the item of the event). */
  list(ctx: EventContext, itemId: number, req: ListRequest): Promise<Page<Row>>;
  /** The object of the item, or 404. */
  get(ctx: EventContext, itemId: number, id: number): Promise<Row>;
  create(ctx: EventContext, itemId: number, input: Input): Promise<Row>;
  /** PUT (`mode` "put": omitted fields return to their defaults) or PATCH. */
  change(ctx: EventContext, itemId: number, id: number, input: Input, mode: ChangeMode): Promise<Row>;
  remove(ctx: EventContext, itemId: number, id: number): Promise<void>;
};

function itemPartServices<Row extends { id: number }, Values, Input>(
  kind: ItemPartKind<Row, Values, Input>,
): ItemPartServices<Row, Input> {
  const { queries } = kind;
  const find = async (ctx: EventContext, item: ItemRow, id: number) => {
    const row = await queries.find(ctx.db, item.id, id);
    if (!row) throw notFound();
    return row;
  };
  return {
    ordering: queries.ordering,
    list: (ctx, itemId, req) => queries.list(ctx.db, itemId, req),
    async get(ctx, itemId, id) {
      return find(ctx, await loadItemRow(ctx, itemId), id);
    },
    async create(ctx, itemId, input) {
      const item = await loadItemRow(ctx, itemId);
      const values = kind.values(input, "create") as Values;
      await kind.check(ctx, item, values, null);
      return queries.insert(ctx.db, ctx.event.id, item.id, values, ctx.now).catch(raced);
    },
    async change(ctx, itemId, id, input, mode) {
      const item = await loadItemRow(ctx, itemId);
      const current = await find(ctx, item, id);
      const values = kind.values(input, mode);
      await kind.check(ctx, item, values, current);
      const row = await queries.update(ctx.db, ctx.event.id, item.id, current.id, values, ctx.now).catch(raced);
      if (!row) throw notFound();
      return row;
    },
    async remove(ctx, itemId, id) {
      const item = await loadItemRow(ctx, itemId);
      if (!(await queries.remove(ctx.db, ctx.event.id, item.id, id, ctx.now))) throw notFound();
    },
  };
}

/** An add-on's category: of the event, and not yet offered by the item; its counts. */
async function checkAddonState(
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

/** A bundle's item and variation, against the event's items and variations. */
async function checkBundleState(
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

/** An item's add-ons. */
export const addonServices = itemPartServices<AddonRow, AddonValues, AddonInput>({
  queries: addonQueries,
  values: addonValues,
  check: checkAddonState,
});

/** An item's bundles. */
export const bundleServices = itemPartServices<BundleRow, BundleValues, BundleInput>({
  queries: bundleQueries,
  values: bundleValues,
  check: checkBundleState,
});
