/**
 * Nested add-on and bundle endpoints of an item (spec open point 5; pretix docs
 * item_add-ons.rst and item_bundles.rst): list, detail, POST (201), PATCH / PUT (every field
 * but `id`), DELETE (204). Reading needs access to the event; writing needs can_change_items.
 * The rules live in src/services/item-addons.ts.
 */
import { Hono } from "hono";
import { ADDON_ORDERING, BUNDLE_ORDERING, listAddons, listBundles } from "../db/item-addons-bundles";
import {
  changeAddon,
  changeBundle,
  createAddon,
  createBundle,
  deleteAddon,
  deleteBundle,
  loadAddon,
  loadBundle,
} from "../services/item-addons";
import { addonFull, addonPatch, bundleFull, bundlePatch } from "../services/item-input";
import { loadItemRow } from "../services/items";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { itemsBase } from "./items";
import { addonResponse, bundleResponse, serializeAddon, serializeBundle } from "./items-serializers";

const read = eventScope(null);
const write = eventScope("can_change_items");

// ---- add-ons ----

export const addonRoutes = new Hono<AppEnv>();
const addonDoc = apiDocs("Item add-ons");
const addons = `${itemsBase}/:item/addons`;

addonRoutes.get(
  addons,
  read,
  addonDoc.list(addonResponse, { summary: "List an item's add-ons", ordering: ADDON_ORDERING }),
  async (c) => {
    const item = await loadItemRow(eventContext(c), pathId(c, "item"));
    const req = listRequest(c);
    return respondPage(c, req, await listAddons(c.var.db, item.id, req), serializeAddon);
  },
);

addonRoutes.post(
  addons,
  write,
  addonDoc.created(addonResponse, { summary: "Create an add-on" }),
  jsonBody(addonFull),
  async (c) => {
    return c.json(serializeAddon(await createAddon(eventContext(c), pathId(c, "item"), c.req.valid("json"))), 201);
  },
);

addonRoutes.get(`${addons}/:id`, read, addonDoc.ok(addonResponse, { summary: "Add-on detail" }), async (c) => {
  const ctx = eventContext(c);
  const item = await loadItemRow(ctx, pathId(c, "item"));
  return c.json(serializeAddon(await loadAddon(ctx, item.id, pathId(c, "id"))));
});

addonRoutes.put(
  `${addons}/:id`,
  write,
  addonDoc.ok(addonResponse, { summary: "Replace an add-on" }),
  jsonBody(addonFull),
  async (c) => {
    return c.json(
      serializeAddon(
        await changeAddon(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "put"),
      ),
    );
  },
);

addonRoutes.patch(
  `${addons}/:id`,
  write,
  addonDoc.ok(addonResponse, { summary: "Change an add-on" }),
  jsonBody(addonPatch),
  async (c) => {
    return c.json(
      serializeAddon(
        await changeAddon(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "patch"),
      ),
    );
  },
);

addonRoutes.delete(`${addons}/:id`, write, addonDoc.noContent({ summary: "Delete an add-on" }), async (c) => {
  await deleteAddon(eventContext(c), pathId(c, "item"), pathId(c, "id"));
  return c.body(null, 204);
});

// ---- bundles ----

export const bundleRoutes = new Hono<AppEnv>();
const bundleDoc = apiDocs("Item bundles");
const bundles = `${itemsBase}/:item/bundles`;

bundleRoutes.get(
  bundles,
  read,
  bundleDoc.list(bundleResponse, { summary: "List an item's bundles", ordering: BUNDLE_ORDERING }),
  async (c) => {
    const item = await loadItemRow(eventContext(c), pathId(c, "item"));
    const req = listRequest(c);
    return respondPage(c, req, await listBundles(c.var.db, item.id, req), serializeBundle);
  },
);

bundleRoutes.post(
  bundles,
  write,
  bundleDoc.created(bundleResponse, { summary: "Create a bundle" }),
  jsonBody(bundleFull),
  async (c) => {
    return c.json(serializeBundle(await createBundle(eventContext(c), pathId(c, "item"), c.req.valid("json"))), 201);
  },
);

bundleRoutes.get(`${bundles}/:id`, read, bundleDoc.ok(bundleResponse, { summary: "Bundle detail" }), async (c) => {
  const ctx = eventContext(c);
  const item = await loadItemRow(ctx, pathId(c, "item"));
  return c.json(serializeBundle(await loadBundle(ctx, item.id, pathId(c, "id"))));
});

bundleRoutes.put(
  `${bundles}/:id`,
  write,
  bundleDoc.ok(bundleResponse, { summary: "Replace a bundle" }),
  jsonBody(bundleFull),
  async (c) => {
    return c.json(
      serializeBundle(
        await changeBundle(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "put"),
      ),
    );
  },
);

bundleRoutes.patch(
  `${bundles}/:id`,
  write,
  bundleDoc.ok(bundleResponse, { summary: "Change a bundle" }),
  jsonBody(bundlePatch),
  async (c) => {
    return c.json(
      serializeBundle(
        await changeBundle(eventContext(c), pathId(c, "item"), pathId(c, "id"), c.req.valid("json"), "patch"),
      ),
    );
  },
);

bundleRoutes.delete(`${bundles}/:id`, write, bundleDoc.noContent({ summary: "Delete a bundle" }), async (c) => {
  await deleteBundle(eventContext(c), pathId(c, "item"), pathId(c, "id"));
  return c.body(null, 204);
});
