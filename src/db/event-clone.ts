/**
 * Cloning an event (docs/api.md: `clone_from` and `.../clone/`; pretix docs events.rst):
 * the new event and every copied row in ONE batch, i.e. one transaction: all rows or none. What is
 * copied and what is not: docs/open-points.md "event clone".
 */
import { eq, getTableColumns, sql, type SQL } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { DB } from "./client";
import { eventScopeKeySql, touchStatement } from "./changes";
import { type EventValues, insertEventBatch, metaValueStatements } from "./events";
import { touchInventory } from "./inventory";
import { STAMP } from "./catalog-common";
import { QUESTIONS_RESOURCE } from "./questions";
import {
  events,
  eventMetaValues,
  eventSettings,
  itemAddons,
  itemBundles,
  itemCategories,
  itemMembershipTypes,
  items,
  itemVariations,
  questionItems,
  questionOptions,
  questions,
  quotaItems,
  quotas,
  taxRules,
  teamEvents,
  variationMembershipTypes,
} from "./schema";
import { TAX_RULES_RESOURCE } from "./taxrules";

export type CloneOptions = {
  /** The source event (of the same organizer; access was checked by the caller). */
  sourceId: number;
  /** Values of the new event's meta data; null copies the source's values. */
  meta: { propertyId: number; value: string }[] | null;
  /** Copy the source's seat category mapping (the new event keeps the source's seating plan). */
  copySeatCategoryMapping: boolean;
  /** A token's team limited to some events: the new event joins its list. */
  addToTeam: number | null;
  now: number;
};

/**
 * `INSERT INTO table SELECT ...` copying source rows (alias "s") column by column: a column
 * takes its override when one is given, `id` a new value, every other column the source's
 * value. Built from the table's column list, so columns added later are copied as they are.
 */
function copyRows<T extends SQLiteTable>(
  db: DB,
  table: T,
  overrides: Partial<Record<keyof T["_"]["columns"], SQL>>,
  from: SQL,
) {
  const given = overrides as Record<string, SQL | undefined>;
  const list = Object.entries(getTableColumns(table)).map(([key, column]) => {
    const o = given[key];
    if (o) return o;
    if (key === "id") return sql`NULL`;
    return sql`"s".${sql.identifier(column.name)}`;
  });
  return db.insert(table).select(sql`SELECT ${sql.join(list, sql`, `)} FROM ${from}`);
}

/**
 * The statements of a clone; the first inserts the event and returns its id. Rows are copied with
 * INSERT ... SELECT, so the batch does not grow with the catalog and no statement nears D1's 100
 * bound parameters. A copy points at other copies whose ids exist only inside the transaction: each
 * copied tax rule, category, item, variation and quota first carries its source row's id in an integer
 * column (tax rule `rate`, category / item / variation `position`, quota `size`; unique among the new
 * event's rows), references look the copy up by (new event, source id), and the last statements put
 * the real values back. Questions have a natural key (`identifier`). Nothing depends on the order of
 * generated ids, and no other request sees the intermediate state.
 */
export function cloneStatements(db: DB, organizerId: number, values: EventValues, o: CloneOptions) {
  const c = cloneContext(db, organizerId, values.slug, o.sourceId);
  const statements: BatchItem<"sqlite">[] = [
    ...copyEventDetails(c, o.meta),
    ...copyTaxRulesAndCategories(c),
    ...copyItems(c),
    ...copyItemParts(c),
    ...copyQuotas(c),
    ...copyQuestions(c),
    ...(o.copySeatCategoryMapping ? [copySeatCategoryMapping(c)] : []),
    ...restoreCarriedValues(c),
    ...(o.addToTeam !== null ? [joinTeam(c, o.addToTeam)] : []),
    ...touchCopiedResources(c, o.now),
  ];
  const insert = db
    .insert(events)
    .values({ ...values, organizerId })
    .returning({ id: events.id });
  return [insert, ...statements] as const;
}

type CloneContext = ReturnType<typeof cloneContext>;

/** The new event, the source and the lookups of a copy by the source id it carries (see above). */
function cloneContext(db: DB, organizerId: number, slug: string, sourceId: number) {
  // the new event, found by its natural key (organizer, slug) once the first statement ran
  const NEW = sql`(SELECT "id" FROM "events" WHERE "organizer_id" = ${organizerId} AND "slug" = ${slug})`;
  const SRC = sql`${sourceId}`;
  return {
    db,
    NEW,
    SRC,
    s: (column: string) => sql`"s".${sql.identifier(column)}`,
    // the copy of a source row, by the source id it carries until the batch ends
    newTaxRule: (old: SQL) =>
      sql`(SELECT "mt"."id" FROM "tax_rules" "mt" WHERE "mt"."event_id" = ${NEW} AND "mt"."rate" = ${old})`,
    newCategory: (old: SQL) =>
      sql`(SELECT "mc"."id" FROM "item_categories" "mc" WHERE "mc"."event_id" = ${NEW} AND "mc"."position" = ${old})`,
    newItem: (old: SQL) =>
      sql`(SELECT "mi"."id" FROM "items" "mi" WHERE "mi"."event_id" = ${NEW} AND "mi"."position" = ${old})`,
    newVariation: (old: SQL) =>
      sql`(SELECT "mv"."id" FROM "item_variations" "mv" JOIN "items" "mvi" ON "mvi"."id" = "mv"."item_id" WHERE "mvi"."event_id" = ${NEW} AND "mv"."position" = ${old})`,
    newQuota: (old: SQL) =>
      sql`(SELECT "mq"."id" FROM "quotas" "mq" WHERE "mq"."event_id" = ${NEW} AND "mq"."subevent_id" IS NULL AND "mq"."size" = ${old})`,
    newQuestion: (identifier: SQL) =>
      sql`(SELECT "mqu"."id" FROM "questions" "mqu" WHERE "mqu"."event_id" = ${NEW} AND "mqu"."identifier" = ${identifier})`,
    // a join keeping the source rows whose item (`column`) belongs to the source event
    itemOfSource: (alias: string, column: SQL) =>
      sql`JOIN "items" ${sql.identifier(alias)} ON ${sql.identifier(alias)}."id" = ${column} AND ${sql.identifier(alias)}."event_id" = ${SRC}`,
    // no variation, or one of an item of the source event
    variationOfSource: (column: SQL) =>
      sql`(${column} IS NULL OR EXISTS (SELECT 1 FROM "item_variations" "xv" JOIN "items" "xi" ON "xi"."id" = "xv"."item_id" WHERE "xv"."id" = ${column} AND "xi"."event_id" = ${SRC}))`,
  };
}

/** Event meta data (the given values, or the source's) and settings. */
function copyEventDetails({ db, NEW, SRC }: CloneContext, meta: CloneOptions["meta"]) {
  return [
    ...(meta === null
      ? [copyRows(db, eventMetaValues, { eventId: NEW }, sql`"event_meta_values" "s" WHERE "s"."event_id" = ${SRC}`)]
      : metaValueStatements(db, NEW, meta, false)),
    copyRows(db, eventSettings, { eventId: NEW }, sql`"event_settings" "s" WHERE "s"."event_id" = ${SRC}`),
  ];
}

/** Tax rules and categories, carrying their source ids in `rate` / `position`. */
function copyTaxRulesAndCategories({ db, NEW, SRC, s }: CloneContext) {
  return [
    copyRows(
      db,
      taxRules,
      { eventId: NEW, rate: s("id") },
      sql`"tax_rules" "s" WHERE "s"."event_id" = ${SRC} ORDER BY "s"."id"`,
    ),
    copyRows(
      db,
      itemCategories,
      { eventId: NEW, position: s("id") },
      sql`"item_categories" "s" WHERE "s"."event_id" = ${SRC} ORDER BY "s"."id"`,
    ),
  ];
}

/** Items, carrying their source ids in `position`; hidden_if_available once quotas exist. */
function copyItems({ db, NEW, SRC, s, newCategory, newTaxRule }: CloneContext) {
  return [
    copyRows(
      db,
      items,
      {
        eventId: NEW,
        categoryId: newCategory(s("category_id")),
        taxRuleId: newTaxRule(s("tax_rule_id")),
        hiddenIfAvailable: sql`NULL`,
        position: s("id"),
      },
      sql`"items" "s" WHERE "s"."event_id" = ${SRC} ORDER BY "s"."id"`,
    ),
  ];
}

/** Variations (carrying their source ids in `position`), add-ons, bundles, membership links. */
function copyItemParts(c: CloneContext) {
  const { db, SRC, s, newItem, newCategory, newVariation, itemOfSource, variationOfSource } = c;
  return [
    copyRows(
      db,
      itemVariations,
      { itemId: newItem(s("item_id")), position: s("id") },
      sql`"item_variations" "s" ${itemOfSource("si", s("item_id"))} ORDER BY "s"."id"`,
    ),
    copyRows(
      db,
      itemAddons,
      { itemId: newItem(s("item_id")), addonCategoryId: newCategory(s("addon_category_id")) },
      sql`"item_addons" "s" ${itemOfSource("si", s("item_id"))} JOIN "item_categories" "sc" ON "sc"."id" = "s"."addon_category_id" AND "sc"."event_id" = ${SRC} ORDER BY "s"."id"`,
    ),
    copyRows(
      db,
      itemBundles,
      {
        itemId: newItem(s("item_id")),
        bundledItemId: newItem(s("bundled_item_id")),
        bundledVariationId: newVariation(s("bundled_variation_id")),
      },
      sql`"item_bundles" "s" ${itemOfSource("si", s("item_id"))} ${itemOfSource("sb", s("bundled_item_id"))} WHERE ${variationOfSource(s("bundled_variation_id"))} ORDER BY "s"."id"`,
    ),
    copyRows(
      db,
      itemMembershipTypes,
      { itemId: newItem(s("item_id")) },
      sql`"item_membership_types" "s" ${itemOfSource("si", s("item_id"))}`,
    ),
    copyRows(
      db,
      variationMembershipTypes,
      { variationId: newVariation(s("variation_id")) },
      sql`"variation_membership_types" "s" JOIN "item_variations" "sv" ON "sv"."id" = "s"."variation_id" ${itemOfSource("si", sql`"sv"."item_id"`)}`,
    ),
  ];
}

/** Quotas of the event itself (carrying their source ids in `size`), reopened; what they cover. */
function copyQuotas(c: CloneContext) {
  const { db, NEW, SRC, s, newItem, newVariation, newQuota, itemOfSource, variationOfSource } = c;
  return [
    copyRows(
      db,
      quotas,
      { eventId: NEW, size: s("id"), closed: sql`0` },
      sql`"quotas" "s" WHERE "s"."event_id" = ${SRC} AND "s"."subevent_id" IS NULL ORDER BY "s"."id"`,
    ),
    copyRows(
      db,
      quotaItems,
      { quotaId: newQuota(s("quota_id")), itemId: newItem(s("item_id")), variationId: newVariation(s("variation_id")) },
      sql`"quota_items" "s" JOIN "quotas" "sq" ON "sq"."id" = "s"."quota_id" AND "sq"."event_id" = ${SRC} AND "sq"."subevent_id" IS NULL ${itemOfSource("si", s("item_id"))} WHERE ${variationOfSource(s("variation_id"))} ORDER BY "s"."id"`,
    ),
    // an item hidden while a copied quota is available refers to that copy; one that referred
    // to a quota of a sub-event (not copied) no longer hides
    db
      .update(items)
      .set({
        hiddenIfAvailable: sql`${newQuota(sql`(SELECT "o"."hidden_if_available_id" FROM "items" "o" WHERE "o"."id" = "items"."position" AND "o"."event_id" = ${SRC})`)}`,
      })
      .where(eq(items.eventId, NEW)),
  ];
}

/** Questions (natural key: identifier) with their items, options and dependencies. */
function copyQuestions({ db, NEW, SRC, s, newItem, newQuestion, itemOfSource }: CloneContext) {
  return [
    copyRows(
      db,
      questions,
      { eventId: NEW, dependencyQuestionId: sql`NULL` },
      sql`"questions" "s" WHERE "s"."event_id" = ${SRC} ORDER BY "s"."id"`,
    ),
    copyRows(
      db,
      questionItems,
      { questionId: newQuestion(sql`"sq"."identifier"`), itemId: newItem(s("item_id")) },
      sql`"question_items" "s" JOIN "questions" "sq" ON "sq"."id" = "s"."question_id" AND "sq"."event_id" = ${SRC} ${itemOfSource("si", s("item_id"))}`,
    ),
    copyRows(
      db,
      questionOptions,
      { questionId: newQuestion(sql`"sq"."identifier"`), eventId: NEW },
      sql`"question_options" "s" JOIN "questions" "sq" ON "sq"."id" = "s"."question_id" AND "sq"."event_id" = ${SRC} ORDER BY "s"."id"`,
    ),
    db
      .update(questions)
      .set({
        dependencyQuestionId: sql`${newQuestion(
          sql`(SELECT "dep"."identifier" FROM "questions" "o" JOIN "questions" "dep" ON "dep"."id" = "o"."dependency_question_id" AND "dep"."event_id" = ${SRC} WHERE "o"."event_id" = ${SRC} AND "o"."identifier" = "questions"."identifier")`,
        )}`,
      })
      .where(eq(questions.eventId, NEW)),
  ];
}

/** The seat category mapping: category → the copied item (null stays null). */
function copySeatCategoryMapping({ db, NEW, SRC, newItem }: CloneContext) {
  return db
    .update(events)
    .set({
      seatCategoryMapping: sql`(SELECT json_group_object("jm"."key", ${newItem(sql`"jm"."value"`)}) FROM json_each((SELECT "se"."seat_category_mapping" FROM "events" "se" WHERE "se"."id" = ${SRC})) "jm")`,
    })
    .where(eq(events.id, NEW));
}

/** The carried source ids give way to the source rows' values. */
function restoreCarriedValues({ db, NEW, SRC }: CloneContext) {
  // the `column` of the source row whose id the copy's `column` carries
  const carried = (table: string, column: string) =>
    sql`(SELECT "o".${sql.identifier(column)} FROM ${sql.identifier(table)} "o" WHERE "o"."id" = ${sql.identifier(table)}.${sql.identifier(column)} AND "o"."event_id" = ${SRC})`;
  return [
    db
      .update(taxRules)
      .set({ rate: carried("tax_rules", "rate") })
      .where(eq(taxRules.eventId, NEW)),
    db
      .update(itemCategories)
      .set({ position: carried("item_categories", "position") })
      .where(eq(itemCategories.eventId, NEW)),
    db
      .update(itemVariations)
      .set({
        position: sql`(SELECT "o"."position" FROM "item_variations" "o" JOIN "items" "oi" ON "oi"."id" = "o"."item_id" AND "oi"."event_id" = ${SRC} WHERE "o"."id" = "item_variations"."position")`,
      })
      .where(sql`"item_variations"."item_id" IN (SELECT "ni"."id" FROM "items" "ni" WHERE "ni"."event_id" = ${NEW})`),
    db
      .update(items)
      .set({ position: carried("items", "position") })
      .where(eq(items.eventId, NEW)),
    db
      .update(quotas)
      .set({ size: carried("quotas", "size") })
      .where(eq(quotas.eventId, NEW)),
  ];
}

/** A token's team limited to some events: the new event joins its list. */
function joinTeam({ db, NEW }: CloneContext, teamId: number) {
  return db
    .insert(teamEvents)
    .values({ teamId, eventId: NEW as unknown as number })
    .onConflictDoNothing();
}

/** Change stamps: the event object loads the copied quotas; lists get a Last-Modified. */
function touchCopiedResources({ db, NEW }: CloneContext, now: number) {
  const scope = eventScopeKeySql(NEW);
  return [
    touchInventory(db, NEW, now),
    ...[STAMP.items, STAMP.categories, STAMP.quotas, QUESTIONS_RESOURCE, TAX_RULES_RESOURCE].map((r) =>
      touchStatement(db, scope, r, now),
    ),
  ];
}

/**
 * Creates the event `values` describe with a copy of the source's catalog, atomically.
 * Returns the new id (a slug taken meanwhile fails as insertEventBatch says).
 */
export async function insertEventClone(
  db: DB,
  organizerId: number,
  values: EventValues,
  o: CloneOptions,
): Promise<number> {
  return insertEventBatch(db, cloneStatements(db, organizerId, values, o));
}
