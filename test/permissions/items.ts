import { type Resource, resourceSetups } from "./catalog";
import { addonCategory, categoryBody, id, item, itemBody, membershipTypeBody } from "./fixtures";
import type { MatrixRow } from "./types";

/**
 * Items, variations, add-ons, bundles, categories: reading needs access to the event (devices
 * may read), writing needs can_change_items (devices may not). Membership types: reading with
 * access to the organizer, writing needs can_change_organizer_settings.
 */
const event = "/api/v1/organizers/:organizer/events/:event";
const items = `${event}/items`;

function crud(
  base: string,
  permission: "can_change_items" | "can_change_organizer_settings",
  r: Resource,
): MatrixRow[] {
  const s = resourceSetups(r);
  return [
    { route: `GET ${base}`, permission: null, setup: s.list },
    { route: `POST ${base}`, permission, setup: s.create },
    { route: `GET ${base}/:id`, permission: null, setup: s.object },
    { route: `PUT ${base}/:id`, permission, setup: s.put },
    { route: `PATCH ${base}/:id`, permission, setup: s.patch },
    { route: `DELETE ${base}/:id`, permission, setup: s.object },
  ];
}

/** A sub-resource of a new item (made with `itemExtra`). */
function ofItem(name: string, body: Resource["body"], itemExtra: Record<string, unknown> = {}): Resource {
  return {
    collection: async (w) => {
      const it = await item(w, itemExtra);
      return { path: `${w.ev}/items/${it.id}/${name}`, params: { item: id(it) } };
    },
    body,
  };
}

const categories: Resource = {
  collection: async (w) => ({ path: `${w.ev}/categories`, params: {} }),
  body: categoryBody,
};

export const rows: MatrixRow[] = [
  ...crud(items, "can_change_items", {
    collection: async (w) => ({ path: `${w.ev}/items`, params: {} }),
    body: itemBody,
  }),
  // the item keeps a variation of its own, so that deleting the other one is allowed
  ...crud(
    `${items}/:item/variations`,
    "can_change_items",
    ofItem("variations", () => ({ value: { en: "Large" } }), { variations: [{ value: { en: "Small" } }] }),
  ),
  ...crud(
    `${items}/:item/addons`,
    "can_change_items",
    ofItem("addons", async (w) => ({ addon_category: (await addonCategory(w)).id })),
  ),
  ...crud(
    `${items}/:item/bundles`,
    "can_change_items",
    ofItem("bundles", async (w) => ({ bundled_item: (await item(w)).id })),
  ),
  ...crud(`${event}/categories`, "can_change_items", categories),
  { route: `DELETE ${event}/category/:id`, permission: "can_change_items", setup: resourceSetups(categories).object },
  ...crud("/api/v1/organizers/:organizer/membershiptypes", "can_change_organizer_settings", {
    collection: async (w) => ({ path: `${w.org}/membershiptypes`, params: {} }),
    body: membershipTypeBody,
  }),
];
