/**
 * Items (spec "Item (product)", "Endpoints › Items, variations, categories"; pretix docs
 * items.rst). Reading needs access to the event (devices too); writing needs can_change_items.
 * Items are created with nested `variations`, `addons` and `bundles`; afterwards those change
 * only through their nested endpoints (items-variations.ts, items-addons.ts). An item that was
 * ordered cannot be deleted (403). The routes parse, scope, call the item services
 * (src/domain/items.ts) and serialize (./items-serializers.ts).
 */
import { Hono } from "hono";
import { listItems } from "../db/items";
import { fieldError } from "../domain/failure";
import { itemCreate, itemPatch, itemPut } from "../domain/item-input";
import { changeItem, createItem, deleteItem, type FileResolver, loadItem } from "../domain/items";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { resolveFileField } from "../http/files";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { publicBase } from "../http/urls";
import { jsonBody, pathId, queryBool, queryInt, queryString } from "../http/validation";
import { parseDecimal } from "../lib/money";
import { type ItemView, itemView, serializeItem } from "./items-serializers";

export * from "./items-serializers";

export const itemRoutes = new Hono<AppEnv>();
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

/** `tax_rate`: a decimal; `0` (or pretix's `None`) also matches items without a tax rule. */
function taxRateFilter(c: AppContext): number | undefined {
  const raw = queryString(c, "tax_rate");
  if (raw === undefined) return undefined;
  if (raw === "None") return 0;
  const rate = parseDecimal(raw);
  if (rate === null) throw fieldError("tax_rate", "Enter a number.");
  return rate;
}

itemRoutes.get(itemsBase, read, async (c) => {
  const req = listRequest(c);
  const filters = {
    active: queryBool(c, "active"),
    category: queryInt(c, "category"),
    admission: queryBool(c, "admission"),
    freePrice: queryBool(c, "free_price"),
    taxRate: taxRateFilter(c),
  };
  const page = await listItems(c.var.db, c.var.event.id, filters, req);
  const view = viewOf(c);
  return notModified(c, page.lastModified) ?? respondPage(c, req, page, (r) => serializeItem(view, r));
});

itemRoutes.get(`${itemsBase}/:id`, read, async (c) => c.json(serializeItem(viewOf(c), await loadItem(eventContext(c), pathId(c, "id")))));

itemRoutes.post(itemsBase, write, jsonBody(itemCreate), async (c) => {
  const rec = await createItem(eventContext(c), c.req.valid("json"), uploads(c));
  return c.json(serializeItem(viewOf(c), rec), 201);
});

itemRoutes.put(`${itemsBase}/:id`, write, jsonBody(itemPut), async (c) => {
  const rec = await changeItem(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put", uploads(c));
  return c.json(serializeItem(viewOf(c), rec));
});

itemRoutes.patch(`${itemsBase}/:id`, write, jsonBody(itemPatch), async (c) => {
  const rec = await changeItem(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch", uploads(c));
  return c.json(serializeItem(viewOf(c), rec));
});

itemRoutes.delete(`${itemsBase}/:id`, write, async (c) => {
  await deleteItem(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
});
