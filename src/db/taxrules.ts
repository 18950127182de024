/** Tax rules of an event; every query is scoped by event. */
import { and, asc, eq, sql } from "drizzle-orm";
import type { DB } from "./client";
import { eventScopeKey, lastChangeQuery, touchStatement } from "./changes";
import { fetchPage, type ListRequest } from "./paging";
import { taxRules } from "./schema";

export type TaxRuleRow = typeof taxRules.$inferSelect;
export type TaxRuleValues = Omit<typeof taxRules.$inferInsert, "id" | "eventId">;

export const TAX_RULES_RESOURCE = "taxrules";

/** A page of the event's tax rules (by id) and the list's last change, in one batch. */
export async function listTaxRules(db: DB, eventId: number, req: ListRequest) {
  const where = eq(taxRules.eventId, eventId);
  const rows = db.select().from(taxRules).where(where).orderBy(asc(taxRules.id)).$dynamic();
  const page = await fetchPage(
    db,
    { rows, count: { from: taxRules, where } },
    req,
    lastChangeQuery(db, eventScopeKey(eventId), TAX_RULES_RESOURCE),
  );
  const [stamp] = page.extra;
  return { count: page.count, rows: page.rows, lastModified: stamp[0]?.modifiedAt ?? null };
}

export async function findTaxRule(db: DB, eventId: number, id: number): Promise<TaxRuleRow | undefined> {
  return db
    .select()
    .from(taxRules)
    .where(and(eq(taxRules.eventId, eventId), eq(taxRules.id, id)))
    .get();
}

export async function insertTaxRule(db: DB, eventId: number, values: TaxRuleValues, now: number): Promise<TaxRuleRow> {
  const [rows] = await db.batch([
    db
      .insert(taxRules)
      .values({ ...values, eventId })
      .returning(),
    touchStatement(db, eventScopeKey(eventId), TAX_RULES_RESOURCE, now),
  ]);
  return rows[0]!;
}

/** Writes the changed columns; undefined when the rule is gone. */
export async function updateTaxRuleValues(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<TaxRuleValues>,
  now: number,
) {
  const [rows] = await db.batch([
    db
      .update(taxRules)
      .set(values)
      .where(and(eq(taxRules.eventId, eventId), eq(taxRules.id, id)))
      .returning(),
    touchStatement(db, eventScopeKey(eventId), TAX_RULES_RESOURCE, now),
  ]);
  return rows[0];
}

/**
 * Deletes the rule unless products, order positions or order fees use it (checked in the same
 * statement, so a product assigned meanwhile still blocks it). Returns false when in use.
 */
export async function deleteTaxRuleIfUnused(db: DB, eventId: number, id: number, now: number): Promise<boolean> {
  const [deleted] = await db.batch([
    db
      .delete(taxRules)
      .where(
        and(
          eq(taxRules.eventId, eventId),
          eq(taxRules.id, id),
          sql`NOT EXISTS (SELECT 1 FROM items WHERE items.tax_rule_id = ${id})`,
          sql`NOT EXISTS (SELECT 1 FROM order_positions WHERE order_positions.tax_rule_id = ${id})`,
          sql`NOT EXISTS (SELECT 1 FROM order_fees WHERE order_fees.tax_rule_id = ${id})`,
        ),
      )
      .returning({ id: taxRules.id }),
    touchStatement(db, eventScopeKey(eventId), TAX_RULES_RESOURCE, now),
  ]);
  return deleted.length > 0;
}
