/**
 * Item categories (spec "Item category"; pretix docs categories.rst). Reading needs access to
 * the event (devices too); changing needs can_change_items. The list supports `is_addon`,
 * `ordering` (`id`, `position`; default `position`) and Last-Modified / If-Modified-Since.
 * DELETE is accepted on the plural and the singular path (`.../category/{id}/`). The rules
 * live in src/domain/categories.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { type CategoryRow, findCategory, listCategories } from "../db/categories";
import { categoryFull, categoryPatch, changeCategory, createCategory, deleteCategory } from "../domain/categories";
import { notFound } from "../domain/failure";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { i18n, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool } from "../http/validation";

export const categoryResponse = z.object({
  id: id(),
  name: i18n(),
  internal_name: z.string().nullable(),
  description: i18n().nullable(),
  position: z.number().int(),
  is_addon: z.boolean(),
});
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
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/categories";
const singular = "/organizers/:organizer/events/:event/category";

categoryRoutes.get(base, read, async (c) => {
  const req = listRequest(c);
  const page = await listCategories(c.var.db, c.var.event.id, queryBool(c, "is_addon"), req);
  return notModified(c, page.lastModified) ?? respondPage(c, req, page, serializeCategory);
});

categoryRoutes.post(base, write, jsonBody(categoryFull), async (c) => {
  return c.json(serializeCategory(await createCategory(eventContext(c), c.req.valid("json"))), 201);
});

categoryRoutes.get(`${base}/:id`, read, async (c) => {
  const row = await findCategory(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeCategory(row));
});

categoryRoutes.put(`${base}/:id`, write, jsonBody(categoryFull), async (c) => {
  return c.json(serializeCategory(await changeCategory(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")));
});

categoryRoutes.patch(`${base}/:id`, write, jsonBody(categoryPatch), async (c) => {
  return c.json(serializeCategory(await changeCategory(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")));
});

async function remove(c: AppContext) {
  await deleteCategory(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
}

categoryRoutes.delete(`${base}/:id`, write, remove);
categoryRoutes.delete(`${singular}/:id`, write, remove);
