/** Organizer-defined event meta properties (pretix docs event_meta_properties.rst). */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { I18n } from "../lib/i18n";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { eventMetaProperties } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

/** An event meta property as the rules read it (pretix docs event_meta_properties.rst). */
export type MetaProperty = {
  id: number;
  name: string;
  defaultValue: string;
  required: boolean;
  protected: boolean;
  choices: { key: string; label: I18n | null }[] | null;
};

export type MetaPropertyRecord = typeof eventMetaProperties.$inferSelect;
export type MetaPropertyValues = Omit<typeof eventMetaProperties.$inferInsert, "id" | "organizerId">;

/** A page of the organizer's properties, by id. */
export function listMetaProperties(db: DB, organizerId: number, req: ListRequest) {
  const where = eq(eventMetaProperties.organizerId, organizerId);
  return fetchPage(
    db,
    {
      rows: db.select().from(eventMetaProperties).where(where).orderBy(asc(eventMetaProperties.id)).$dynamic(),
      count: { from: eventMetaProperties, where },
    },
    req,
  );
}

export async function findMetaProperty(
  db: DB,
  organizerId: number,
  id: number,
): Promise<MetaPropertyRecord | undefined> {
  return db
    .select()
    .from(eventMetaProperties)
    .where(and(eq(eventMetaProperties.organizerId, organizerId), eq(eventMetaProperties.id, id)))
    .get();
}

export function toMetaProperty(r: MetaPropertyRecord): MetaProperty {
  return {
    id: r.id,
    name: r.name,
    defaultValue: r.defaultValue,
    required: r.required,
    protected: r.protected,
    choices: r.choices,
  };
}

/** The query of all properties of the organizer (rows for toMetaProperty), e.g. for a batch. */
export function organizerMetaPropertyRows(db: DB, organizerId: number) {
  return db.select().from(eventMetaProperties).where(eq(eventMetaProperties.organizerId, organizerId));
}

/** All properties of the organizer (validation of meta_data, going live). */
export async function organizerMetaProperties(db: DB, organizerId: number): Promise<MetaProperty[]> {
  return (await organizerMetaPropertyRows(db, organizerId)).map(toMetaProperty);
}

/** The properties with the given names (attr[...] filters). */
export async function metaPropertiesNamed(db: DB, organizerId: number, names: string[]): Promise<MetaProperty[]> {
  const out: MetaProperty[] = [];
  for (const part of chunks([...new Set(names)], MAX_PARAMS - 5)) {
    const rows = await db
      .select()
      .from(eventMetaProperties)
      .where(and(eq(eventMetaProperties.organizerId, organizerId), inArray(eventMetaProperties.name, part)));
    out.push(...rows.map(toMetaProperty));
  }
  return out;
}

export async function metaPropertyNameTaken(
  db: DB,
  organizerId: number,
  name: string,
  exceptId?: number,
): Promise<boolean> {
  const row = await db
    .select({ id: eventMetaProperties.id })
    .from(eventMetaProperties)
    .where(and(eq(eventMetaProperties.organizerId, organizerId), eq(eventMetaProperties.name, name)))
    .get();
  return row !== undefined && row.id !== exceptId;
}

/** The column named by the UNIQUE violation of a property's name (db/constraints.ts `isUniqueError`). */
export const NAME_UNIQUE = "event_meta_properties.name";

/** Creates a property (a name taken meanwhile fails with the unique violation `NAME_UNIQUE`). */
export async function insertMetaProperty(
  db: DB,
  organizerId: number,
  values: MetaPropertyValues,
): Promise<MetaPropertyRecord> {
  const [row] = await db
    .insert(eventMetaProperties)
    .values({ ...values, organizerId })
    .returning();
  return row!;
}

/** Updates a property; undefined when it is gone (a name taken meanwhile fails with `NAME_UNIQUE`). */
export async function updateMetaProperty(
  db: DB,
  organizerId: number,
  id: number,
  values: Partial<MetaPropertyValues>,
): Promise<MetaPropertyRecord | undefined> {
  if (Object.keys(values).length === 0) return findMetaProperty(db, organizerId, id);
  const [row] = await db
    .update(eventMetaProperties)
    .set(values)
    .where(and(eq(eventMetaProperties.organizerId, organizerId), eq(eventMetaProperties.id, id)))
    .returning();
  return row;
}

/** Deletes a property with the values events and dates have for it; false when there was none. */
export async function deleteMetaPropertyRow(db: DB, organizerId: number, id: number): Promise<boolean> {
  const rows = await db
    .delete(eventMetaProperties)
    .where(and(eq(eventMetaProperties.organizerId, organizerId), eq(eventMetaProperties.id, id)))
    .returning({ id: eventMetaProperties.id });
  return rows.length > 0;
}
