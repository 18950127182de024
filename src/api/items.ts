/**
 * Items (docs/api.md; pretix docs
 * items.rst). Reading needs access to the event (devices too); writing needs can_change_items.
 * Items are created with nested `variations`, `addons` and `bundles`; afterwards those change
 * only through their nested endpoints (items-variations.ts, items-addons.ts). An item that was
 * ordered cannot be deleted (403). The routes parse, scope, call the item services
 * (src/services/catalog/items.ts) and serialize (./items-serializers.ts).
 */
import { Hono } from "hono";
import { ITEM_ORDERING, listItems } from "../services/catalog/catalog-reads";
import { itemCreate, itemPatch, itemPut } from "../services/catalog/item-input";
import { changeItem, createItem, deleteItem, type FileResolver, loadItem } from "../services/catalog/items";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext, publicBase } from "../http/context";
import { resolveFileField } from "../http/files";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { type ItemView, itemResponse, itemView, serializeItem } from "./items-serializers";

export * from "./items-serializers";

export const itemRoutes = new Hono<AppEnv>();
const doc = apiDocs("Items");
export const itemsBase = "/organizers/:organizer/events/:event/items";
const read = eventScope(null);
const write = eventScope("can_change_items");

/** How the request's items are shown (picture URLs, meta data defaults). */
export function viewOf(c: AppContext): ItemView {
  return itemView(publicBase(c), c.var.event);
}

/** Uploads of the caller, for file fields (`file:<id>`). */
function uploads(c: AppContext): FileResolver {
  return (field, ref, opts) => resolveFileField(c, field, ref, opts);
}

/** The filters of the item list (pretix docs items.rst). */
const itemFilters = queryParams({
  active: q.bool(),
  category: q.int("category id"),
  admission: q.bool(),
  free_price: q.bool(),
  // `0` (or pretix's `None`) also matches items without a tax rule
  tax_rate: q.decimal("a tax rate; `0` or `None` also match items without a tax rule", { also: { None: 0 } }),
});

itemRoutes.get(
  itemsBase,
  read,
  doc.list(itemResponse, { summary: "List items", ordering: ITEM_ORDERING, conditional: true }),
  itemFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const filters = {
      active: f.active,
      category: f.category,
      admission: f.admission,
      freePrice: f.free_price,
      taxRate: f.tax_rate,
    };
    const page = await listItems(eventContext(c), filters, req);
    const view = viewOf(c);
    return notModified(c, page.lastModified) ?? respondPage(c, req, page, (r) => serializeItem(view, r));
  },
);

itemRoutes.get(`${itemsBase}/:id`, read, doc.ok(itemResponse, { summary: "Item detail" }), async (c) =>
  c.json(serializeItem(viewOf(c), await loadItem(eventContext(c), pathId(c, "id")))),
);

itemRoutes.post(
  itemsBase,
  write,
  doc.created(itemResponse, {
    summary: "Create an item",
    description: "With its variations, add-ons and bundles; afterwards those change through their own endpoints.",
  }),
  jsonBody(itemCreate),
  async (c) => {
    const rec = await createItem(eventContext(c), c.req.valid("json"), uploads(c));
    return c.json(serializeItem(viewOf(c), rec), 201);
  },
);

itemRoutes.put(
  `${itemsBase}/:id`,
  write,
  doc.ok(itemResponse, { summary: "Replace an item" }),
  jsonBody(itemPut),
  async (c) => {
    const rec = await changeItem(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put", uploads(c));
    return c.json(serializeItem(viewOf(c), rec));
  },
);

itemRoutes.patch(
  `${itemsBase}/:id`,
  write,
  doc.ok(itemResponse, { summary: "Change an item" }),
  jsonBody(itemPatch),
  async (c) => {
    const rec = await changeItem(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch", uploads(c));
    return c.json(serializeItem(viewOf(c), rec));
  },
);

itemRoutes.delete(
  `${itemsBase}/:id`,
  write,
  doc.noContent({ summary: "Delete an item", description: "An item that was ordered cannot be deleted (403)." }),
  async (c) => {
    await deleteItem(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
