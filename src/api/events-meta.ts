/**
 * Event meta properties (spec open point 27; pretix docs event_meta_properties.rst): the keys
 * an organizer defines for the `meta_data` of events and sub-events, with default, required
 * flag and optional list of permitted values (`choices`; the older form `allowed_values`, a
 * list of strings, is accepted and shown too). Reading needs access to the organizer;
 * changes need the permission to change organizer settings.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  createMetaProperty,
  deleteMetaProperty,
  findMetaProperty,
  type MetaPropertyRecord,
  type MetaPropertyValues,
  metaPropertyCount,
  metaPropertyNameTaken,
  metaPropertyPage,
  updateMetaProperty,
} from "../db/event-meta";
import type { MetaChoice } from "../db/schema";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, fieldError, notFound } from "../domain/failure";
import { i18n } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";

export function serializeMetaProperty(p: MetaPropertyRecord) {
  return {
    id: p.id,
    name: p.name,
    default: p.defaultValue,
    required: p.required,
    protected: p.protected,
    filter_public: p.filterPublic,
    public_label: p.publicLabel ?? null,
    filter_allowed: p.filterAllowed,
    choices: p.choices,
    allowed_values: p.choices ? p.choices.map((ch) => ch.key) : null,
  };
}

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

const propertyFull = propertyFields.partial().required({ name: true });
const propertyPatch = propertyFields.partial();

/** Input → columns; `full` resets omitted fields to their defaults (POST, PUT). */
function propertyValues(input: Partial<PropertyInput>, full: boolean): Partial<MetaPropertyValues> {
  const v: Partial<MetaPropertyValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.default !== undefined || full) v.defaultValue = input.default ?? "";
  if (input.required !== undefined || full) v.required = input.required ?? false;
  if (input.protected !== undefined || full) v.protected = input.protected ?? false;
  if (input.filter_public !== undefined || full) v.filterPublic = input.filter_public ?? false;
  if (input.public_label !== undefined || full) v.publicLabel = input.public_label ?? null;
  if (input.filter_allowed !== undefined || full) v.filterAllowed = input.filter_allowed ?? true;
  let choices: MetaChoice[] | null | undefined;
  if (input.choices !== undefined) choices = input.choices?.map((ch) => ({ key: ch.key, label: ch.label ?? null })) ?? null;
  else if (input.allowed_values !== undefined) choices = input.allowed_values?.map((key) => ({ key, label: null })) ?? null;
  if (choices !== undefined || full) v.choices = choices ?? null;
  return v;
}

const NAME_TAKEN = "A property with this name already exists.";

async function checkProperty(c: AppContext, values: Partial<MetaPropertyValues>, current: MetaPropertyRecord | null) {
  const errors = new Problems();
  const choices = values.choices !== undefined ? values.choices : (current?.choices ?? null);
  const defaultValue = values.defaultValue !== undefined ? values.defaultValue : (current?.defaultValue ?? "");
  if (choices) {
    const keys = choices.map((ch) => ch.key);
    if (new Set(keys).size !== keys.length) errors.add("choices", "Each choice key may only be used once.");
    if (keys.length === 0) errors.add("choices", "Send null to allow any value, or at least one choice.");
    if (defaultValue !== "" && !keys.includes(defaultValue)) errors.add("default", "The default value must be one of the choices.");
  }
  if (values.name !== undefined && (await metaPropertyNameTaken(c.var.db, c.var.organizer.id, values.name, current?.id))) {
    errors.add("name", NAME_TAKEN);
  }
  errors.throwIfAny();
}

function nameTaken(): never {
  throw fieldError("name", NAME_TAKEN);
}

export const eventMetaRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/event_meta_properties";
const read = organizerScope(null);
const write = organizerScope("can_change_organizer_settings");

async function loadProperty(c: AppContext): Promise<MetaPropertyRecord> {
  const p = await findMetaProperty(c.var.db, c.var.organizer.id, pathId(c, "id"));
  if (!p) throw notFound();
  return p;
}

eventMetaRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const [[total], rows] = await db.batch([metaPropertyCount(db, c.var.organizer.id), metaPropertyPage(db, c.var.organizer.id, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeMetaProperty)));
});

eventMetaRoutes.get(`${base}/:id`, read, async (c) => c.json(serializeMetaProperty(await loadProperty(c))));

eventMetaRoutes.post(base, write, jsonBody(propertyFull), async (c) => {
  const values = propertyValues(c.req.valid("json"), true);
  await checkProperty(c, values, null);
  const created = await createMetaProperty(c.var.db, c.var.organizer.id, values as MetaPropertyValues);
  if (!created) nameTaken();
  return c.json(serializeMetaProperty(created), 201);
});

async function changeProperty(c: AppContext, input: Partial<PropertyInput>, full: boolean) {
  const current = await loadProperty(c);
  const values = propertyValues(input, full);
  await checkProperty(c, values, current);
  const updated = await updateMetaProperty(c.var.db, c.var.organizer.id, current.id, values);
  if (updated === null) nameTaken();
  if (!updated) throw notFound();
  return c.json(serializeMetaProperty(updated));
}

eventMetaRoutes.put(`${base}/:id`, write, jsonBody(propertyFull), (c) => changeProperty(c, c.req.valid("json"), true));
eventMetaRoutes.patch(`${base}/:id`, write, jsonBody(propertyPatch), (c) => changeProperty(c, c.req.valid("json"), false));

eventMetaRoutes.delete(`${base}/:id`, write, async (c) => {
  if (!(await deleteMetaProperty(c.var.db, c.var.organizer.id, pathId(c, "id")))) throw notFound();
  return c.body(null, 204);
});
