/**
 * Event meta properties (docs/open-points.md row 27; pretix docs event_meta_properties.rst): the keys
 * an organizer defines for the `meta_data` of events and sub-events, with default, required
 * flag and optional list of permitted values (`choices`; the older form `allowed_values`, a
 * list of strings, is accepted too). The request schemas, the defaults of POST and PUT, the
 * checks (choices, default among them, unique name) and the writes.
 */
import { z } from "zod";
import { isUniqueError } from "../../db/constraints";
import {
  deleteMetaPropertyRow,
  findMetaProperty,
  insertMetaProperty,
  type MetaPropertyRecord,
  type MetaPropertyValues,
  metaPropertyNameTaken,
  NAME_UNIQUE,
  updateMetaProperty,
} from "../../db/event-meta";
import type { MetaChoice } from "../../db/schema/index";
import type { ChangeMode, OrganizerContext, WriteMode } from "../context";
import { fieldError, notFound, Problems } from "../../lib/failure";
import { i18n } from "../../rules/fields";

const choice = z.object({
  key: z.string().trim().min(1).max(190),
  label: i18n().nullable().optional(),
});

const propertyFields = z.object({
  name: z
    .string()
    .min(1)
    .max(50)
    .regex(/^[a-zA-Z0-9_]+$/, { message: "The property name may only contain letters, numbers and underscores." }),
  default: z.string().max(2000).nullable(),
  required: z.boolean(),
  protected: z.boolean(),
  filter_public: z.boolean(),
  public_label: i18n().nullable(),
  filter_allowed: z.boolean(),
  choices: z.array(choice).nullable(),
  allowed_values: z.array(z.string().trim().min(1).max(190)).nullable(),
});
type PropertyInput = z.output<typeof propertyFields>;

/** POST and PUT: `name` required; omitted fields reset to their defaults. */
export const metaPropertyFullInput = propertyFields.partial().required({ name: true });
export type MetaPropertyFullInput = z.output<typeof metaPropertyFullInput>;

/** PATCH: the fields sent change. */
export const metaPropertyPatchInput = propertyFields.partial();
export type MetaPropertyPatchInput = z.output<typeof metaPropertyPatchInput>;

/** Input → columns; omitted fields take their defaults unless the mode is `patch`. */
function propertyValues(input: Partial<PropertyInput>, mode: WriteMode): Partial<MetaPropertyValues> {
  const full = mode !== "patch";
  const v: Partial<MetaPropertyValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.default !== undefined || full) v.defaultValue = input.default ?? "";
  if (input.required !== undefined || full) v.required = input.required ?? false;
  if (input.protected !== undefined || full) v.protected = input.protected ?? false;
  if (input.filter_public !== undefined || full) v.filterPublic = input.filter_public ?? false;
  if (input.public_label !== undefined || full) v.publicLabel = input.public_label ?? null;
  if (input.filter_allowed !== undefined || full) v.filterAllowed = input.filter_allowed ?? true;
  let choices: MetaChoice[] | null | undefined;
  if (input.choices !== undefined)
    choices = input.choices?.map((ch) => ({ key: ch.key, label: ch.label ?? null })) ?? null;
  else if (input.allowed_values !== undefined)
    choices = input.allowed_values?.map((key) => ({ key, label: null })) ?? null;
  if (choices !== undefined || full) v.choices = choices ?? null;
  return v;
}

const NAME_TAKEN = "A property with this name already exists.";

async function checkProperty(
  ctx: OrganizerContext,
  values: Partial<MetaPropertyValues>,
  current: MetaPropertyRecord | null,
) {
  const problems = new Problems();
  const choices = values.choices !== undefined ? values.choices : (current?.choices ?? null);
  const defaultValue = values.defaultValue !== undefined ? values.defaultValue : (current?.defaultValue ?? "");
  if (choices) {
    const keys = choices.map((ch) => ch.key);
    if (new Set(keys).size !== keys.length) problems.add("choices", "Each choice key may only be used once.");
    if (keys.length === 0) problems.add("choices", "Send null to allow any value, or at least one choice.");
    if (defaultValue !== "" && !keys.includes(defaultValue))
      problems.add("default", "The default value must be one of the choices.");
  }
  if (values.name !== undefined && (await metaPropertyNameTaken(ctx.db, ctx.organizer.id, values.name, current?.id))) {
    problems.add("name", NAME_TAKEN);
  }
  problems.throwIfAny();
}

/** Runs a property write; a name taken meanwhile (the unique violation of organizer and name) is a field error. */
async function nameRace<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (isUniqueError(err, NAME_UNIQUE)) throw fieldError("name", NAME_TAKEN);
    throw err;
  }
}

/** A property of the organizer (404 when there is none with this id). */
export async function loadMetaProperty(ctx: OrganizerContext, id: number): Promise<MetaPropertyRecord> {
  const p = await findMetaProperty(ctx.db, ctx.organizer.id, id);
  if (!p) throw notFound();
  return p;
}

export async function createMetaProperty(
  ctx: OrganizerContext,
  input: MetaPropertyFullInput,
): Promise<MetaPropertyRecord> {
  const values = propertyValues(input, "create");
  await checkProperty(ctx, values, null);
  return nameRace(() => insertMetaProperty(ctx.db, ctx.organizer.id, values as MetaPropertyValues));
}

/** Changes a property: PUT (`put`: omitted fields reset to their defaults) or PATCH (the fields sent). */
export async function changeMetaProperty(
  ctx: OrganizerContext,
  id: number,
  input: MetaPropertyPatchInput,
  mode: ChangeMode,
): Promise<MetaPropertyRecord> {
  const current = await loadMetaProperty(ctx, id);
  const values = propertyValues(input, mode);
  await checkProperty(ctx, values, current);
  const updated = await nameRace(() => updateMetaProperty(ctx.db, ctx.organizer.id, current.id, values));
  if (!updated) throw notFound();
  return updated;
}

/** Deletes a property with the values events and dates have for it. */
export async function deleteMetaProperty(ctx: OrganizerContext, id: number): Promise<void> {
  if (!(await deleteMetaPropertyRow(ctx.db, ctx.organizer.id, id))) throw notFound();
}
