/**
 * Item categories (docs/api.md; pretix docs categories.rst): the input and the
 * services that create, change and delete a category of the event.
 */
import { z } from "zod";
import {
  type CategoryRow,
  type CategoryValues,
  deleteCategoryRow,
  findCategory,
  insertCategory,
  updateCategoryRow,
} from "../../db/categories";
import { MAX_INT } from "./catalog-fields";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { notFound } from "../../lib/failure";
import { i18n, i18nRequired } from "../../rules/fields";

const categoryFields = z.object({
  name: i18nRequired(),
  internal_name: z.string().max(255).nullable(),
  description: i18n().nullable(),
  position: z.number().int().min(-MAX_INT).max(MAX_INT),
  is_addon: z.boolean(),
});
export type CategoryInput = Partial<z.output<typeof categoryFields>>;
/** POST and PUT: `name` is required. */
export const categoryFull = categoryFields.partial().required({ name: true });
export const categoryPatch = categoryFields.partial();

/** The columns to write: all of them with their defaults (POST, PUT), or the sent ones (PATCH). */
function categoryValues(input: CategoryInput, mode: WriteMode): Partial<CategoryValues> {
  const full = mode !== "patch";
  const out: Partial<CategoryValues> = {};
  if (input.name !== undefined) out.name = input.name;
  if (input.internal_name !== undefined || full) out.internalName = input.internal_name ?? null;
  if (input.description !== undefined || full) out.description = input.description ?? null;
  if (input.position !== undefined || full) out.position = input.position ?? 0;
  if (input.is_addon !== undefined || full) out.isAddon = input.is_addon ?? false;
  return out;
}

export async function createCategory(ctx: EventContext, input: z.output<typeof categoryFull>): Promise<CategoryRow> {
  return insertCategory(ctx.db, ctx.event.id, categoryValues(input, "create") as CategoryValues, ctx.now);
}

/** PUT (`mode` "put": omitted fields return to their defaults) or PATCH. 404 for a category not of the event. */
export async function changeCategory(
  ctx: EventContext,
  id: number,
  input: CategoryInput,
  mode: ChangeMode,
): Promise<CategoryRow> {
  const row = await updateCategoryRow(ctx.db, ctx.event.id, id, categoryValues(input, mode), ctx.now);
  if (!row) throw notFound();
  return row;
}

/** Deletes a category of the event: its items stay without category, add-ons offering it go. */
export async function deleteCategory(ctx: EventContext, id: number): Promise<void> {
  if (!(await findCategory(ctx.db, ctx.event.id, id))) throw notFound();
  await deleteCategoryRow(ctx.db, ctx.event.id, id, ctx.now);
}
