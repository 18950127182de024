/**
 * Nested add-on and bundle endpoints of an item (docs/open-points.md row 5; pretix docs
 * item_add-ons.rst and item_bundles.rst): list, detail, POST (201), PATCH / PUT (every field
 * but `id`), DELETE (204). Reading needs access to the event; writing needs can_change_items.
 * One set of routes serves both kinds (`itemPartRoutes`); the rules live in
 * src/services/catalog/item-addons.ts.
 */
import { Hono } from "hono";
import type { z } from "zod";
import { addonServices, bundleServices, type ItemPartServices } from "../services/catalog/item-addons";
import { addonFull, addonPatch, bundleFull, bundlePatch } from "../services/catalog/item-input";
import { loadItemRow } from "../services/catalog/items";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { itemsBase } from "./items";
import { addonResponse, bundleResponse, serializeAddon, serializeBundle } from "./items-serializers";

const read = eventScope(null);
const write = eventScope("can_change_items");

/** One kind of an item's nested objects, as its routes need it. */
type ItemPartEndpoints<Row, Input, Res extends z.ZodType> = {
  /** The path segment under the item. */
  segment: string;
  /** The description's tag. */
  tag: string;
  /** The kind's name in the summaries: one object with its article, the plural, the detail's title. */
  names: { one: string; many: string; title: string };
  response: Res;
  serialize: (row: Row) => z.infer<Res>;
  /** The body of POST and PUT, and of PATCH. */
  full: z.ZodType<Input>;
  patch: z.ZodType<Input>;
  services: ItemPartServices<Row, Input>;
};

/** The six routes of one kind under `.../items/{item}/<segment>/`. */
function itemPartRoutes<Row, Input, Res extends z.ZodType>(kind: ItemPartEndpoints<Row, Input, Res>): Hono<AppEnv> {
  const { names, response, serialize, services } = kind;
  const routes = new Hono<AppEnv>();
  const doc = apiDocs(kind.tag);
  const base = `${itemsBase}/:item/${kind.segment}`;

  routes.get(
    base,
    read,
    doc.list(response, { summary: `List an item's ${names.many}`, ordering: services.ordering }),
    async (c) => {
      const item = await loadItemRow(eventContext(c), pathId(c, "item"));
      const req = listRequest(c);
      return respondPage(c, req, await services.list(eventContext(c), item.id, req), serialize);
    },
  );

  routes.post(
    base,
    write,
    doc.created(response, { summary: `Create ${names.one}` }),
    jsonBody(kind.full),
    async (c) => {
      return c.json(serialize(await services.create(eventContext(c), pathId(c, "item"), c.req.valid("json"))), 201);
    },
  );

  routes.get(`${base}/:id`, read, doc.ok(response, { summary: `${names.title} detail` }), async (c) => {
    return c.json(serialize(await services.get(eventContext(c), pathId(c, "item"), pathId(c, "id"))));
  });

  routes.put(
    `${base}/:id`,
    write,
    doc.ok(response, { summary: `Replace ${names.one}` }),
    jsonBody(kind.full),
    async (c) => {
      const ctx = eventContext(c);
      return c.json(
        serialize(await services.change(ctx, pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "put")),
      );
    },
  );

  routes.patch(
    `${base}/:id`,
    write,
    doc.ok(response, { summary: `Change ${names.one}` }),
    jsonBody(kind.patch),
    async (c) => {
      const ctx = eventContext(c);
      return c.json(
        serialize(await services.change(ctx, pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "patch")),
      );
    },
  );

  routes.delete(`${base}/:id`, write, doc.noContent({ summary: `Delete ${names.one}` }), async (c) => {
    await services.remove(eventContext(c), pathId(c, "item"), pathId(c, "id"));
    return c.body(null, 204);
  });

  return routes;
}

export const addonRoutes = itemPartRoutes({
  segment: "addons",
  tag: "Item add-ons",
  names: { one: "an add-on", many: "add-ons", title: "Add-on" },
  response: addonResponse,
  serialize: serializeAddon,
  full: addonFull,
  patch: addonPatch,
  services: addonServices,
});

export const bundleRoutes = itemPartRoutes({
  segment: "bundles",
  tag: "Item bundles",
  names: { one: "a bundle", many: "bundles", title: "Bundle" },
  response: bundleResponse,
  serialize: serializeBundle,
  full: bundleFull,
  patch: bundlePatch,
  services: bundleServices,
});
