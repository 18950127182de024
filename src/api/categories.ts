/**
 * Item categories (docs/api.md; pretix docs categories.rst). Reading needs access to
 * the event (devices too); changing needs can_change_items. The list supports `is_addon`,
 * `ordering` (`id`, `position`; default `position`) and Last-Modified / If-Modified-Since.
 * DELETE is accepted on the plural and the singular path (`.../category/{id}/`). The rules
 * live in src/services/catalog/categories.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { CATEGORY_ORDERING, type CategoryRow, findCategory, listCategories } from "../services/catalog/catalog-reads";
import {
  categoryFull,
  categoryPatch,
  changeCategory,
  createCategory,
  deleteCategory,
} from "../services/catalog/categories";
import { notFound } from "../lib/failure";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { i18n, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";

export const categoryResponse = z
  .object({
    id: id(),
    name: i18n(),
    internal_name: z.string().nullable(),
    description: i18n().nullable(),
    position: z.number().int(),
    is_addon: z.boolean(),
  })
  .meta({ id: "Category" });
export type CategoryResponse = z.infer<typeof categoryResponse>;

export function serializeCategory(cat: CategoryRow): CategoryResponse {
  return {
    id: cat.id,
    name: cat.name,
    internal_name: cat.internalName,
    description: cat.description,
    position: cat.position,
    is_addon: cat.isAddon,
  };
}

export const categoryRoutes = new Hono<AppEnv>();
const doc = apiDocs("Categories");
const categoryFilters = queryParams({ is_addon: q.bool() });
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/categories";
const singular = "/organizers/:organizer/events/:event/category";

categoryRoutes.get(
  base,
  read,
  doc.list(categoryResponse, { summary: "List categories", ordering: CATEGORY_ORDERING, conditional: true }),
  categoryFilters,
  async (c) => {
    const req = listRequest(c);
    const page = await listCategories(eventContext(c), c.req.valid("query").is_addon, req);
    return notModified(c, page.lastModified) ?? respondPage(c, req, page, serializeCategory);
  },
);

categoryRoutes.post(
  base,
  write,
  doc.created(categoryResponse, { summary: "Create a category" }),
  jsonBody(categoryFull),
  async (c) => {
    return c.json(serializeCategory(await createCategory(eventContext(c), c.req.valid("json"))), 201);
  },
);

categoryRoutes.get(`${base}/:id`, read, doc.ok(categoryResponse, { summary: "Category detail" }), async (c) => {
  const row = await findCategory(eventContext(c), pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeCategory(row));
});

categoryRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(categoryResponse, { summary: "Replace a category" }),
  jsonBody(categoryFull),
  async (c) => {
    return c.json(
      serializeCategory(await changeCategory(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    );
  },
);

categoryRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(categoryResponse, { summary: "Change a category" }),
  jsonBody(categoryPatch),
  async (c) => {
    return c.json(
      serializeCategory(await changeCategory(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    );
  },
);

async function remove(c: AppContext) {
  await deleteCategory(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
}

categoryRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete a category" }), remove);
categoryRoutes.delete(
  `${singular}/:id`,
  write,
  doc.noContent({ summary: "Delete a category (singular path)" }),
  remove,
);
