/**
 * Item categories (spec "Item category"; pretix docs categories.rst). Reading needs access to
 * the event (devices too); changing needs can_change_items. The list supports `is_addon`,
 * `ordering` (`id`, `position`; default `position`) and Last-Modified / If-Modified-Since.
 * DELETE is accepted on the plural and the singular path (`.../category/{id}/`).
 */
import { Hono } from "hono";
import {
  type CategoryRow,
  type CategoryValues,
  categoryPage,
  createCategory,
  deleteCategory,
  findCategory,
  updateCategory,
} from "../db/categories";
import { itemCategories } from "../db/schema";
import { notModified } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { notFound } from "../domain/failure";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool } from "../http/validation";
import { type CategoryInput, categoryFull, categoryPatch } from "./items-fields";

export function serializeCategory(cat: CategoryRow) {
  return {
    id: cat.id,
    name: cat.name,
    internal_name: cat.internalName,
    description: cat.description,
    position: cat.position,
    is_addon: cat.isAddon,
  };
}

function values(input: CategoryInput, full: boolean): Partial<CategoryValues> {
  const out: Partial<CategoryValues> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.internal_name !== undefined || full) out.internalName = input.internal_name ?? null;
  if (input.description !== undefined || full) out.description = input.description ?? null;
  if (input.position !== undefined || full) out.position = input.position ?? 0;
  if (input.is_addon !== undefined || full) out.isAddon = input.is_addon ?? false;
  return out;
}

export const categoryRoutes = new Hono<AppEnv>();
const read = eventScope(null);
const write = eventScope("can_change_items");
const base = "/organizers/:organizer/events/:event/categories";
const singular = "/organizers/:organizer/events/:event/category";

categoryRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const isAddon = queryBool(c, "is_addon");
  const order = ordering(c, { id: itemCategories.id, position: itemCategories.position }, "position", itemCategories.id);
  const result = await categoryPage(c.var.db, c.var.event.id, isAddon, order, page.limit, page.offset);
  const unchanged = notModified(c, result.lastModified);
  if (unchanged) return unchanged;
  return c.json(envelope(c, page, result.total, result.rows.map(serializeCategory)));
});

categoryRoutes.post(base, write, jsonBody(categoryFull), async (c) => {
  const row = await createCategory(c.var.db, c.var.event.id, values(c.req.valid("json"), true) as CategoryValues, Date.now());
  return c.json(serializeCategory(row), 201);
});

categoryRoutes.get(`${base}/:id`, read, async (c) => {
  const row = await findCategory(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeCategory(row));
});

async function change(c: AppContext, input: CategoryInput, full: boolean) {
  const row = await updateCategory(c.var.db, c.var.event.id, pathId(c, "id"), values(input, full), Date.now());
  if (!row) throw notFound();
  return c.json(serializeCategory(row));
}

categoryRoutes.put(`${base}/:id`, write, jsonBody(categoryFull), (c) => change(c, c.req.valid("json"), true));
categoryRoutes.patch(`${base}/:id`, write, jsonBody(categoryPatch), (c) => change(c, c.req.valid("json"), false));

async function remove(c: AppContext) {
  const id = pathId(c, "id");
  if (!(await findCategory(c.var.db, c.var.event.id, id))) throw notFound();
  await deleteCategory(c.var.db, c.var.event.id, id, Date.now());
  return c.body(null, 204);
}

categoryRoutes.delete(`${base}/:id`, write, remove);
categoryRoutes.delete(`${singular}/:id`, write, remove);
