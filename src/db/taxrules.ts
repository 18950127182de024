/** Tax rules of an event; every query is scoped by event. */
import { and, asc, count, eq, sql } from "drizzle-orm";
import type { DB } from "./client";
import { eventScopeKey, touchStatement } from "./changes";
import { taxRules } from "./schema";

export type TaxRuleRow = typeof taxRules.$inferSelect;
export type TaxRuleValues = Omit<typeof taxRules.$inferInsert, "id" | "eventId">;

export const TAX_RULES_RESOURCE = "taxrules";

export function taxRuleCount(db: DB, eventId: number) {
  return db.select({ n: count() }).from(taxRules).where(eq(taxRules.eventId, eventId));
}

export function taxRulePage(db: DB, eventId: number, limit: number, offset: number) {
  return db.select().from(taxRules).where(eq(taxRules.eventId, eventId)).orderBy(asc(taxRules.id)).limit(limit).offset(offset);
}

export async function findTaxRule(db: DB, eventId: number, id: number): Promise<TaxRuleRow | undefined> {
  return db.select().from(taxRules).where(and(eq(taxRules.eventId, eventId), eq(taxRules.id, id))).get();
}

export async function createTaxRule(db: DB, eventId: number, values: TaxRuleValues, now: number): Promise<TaxRuleRow> {
  const [rows] = await db.batch([
    db.insert(taxRules).values({ ...values, eventId }).returning(),
    touchStatement(db, eventScopeKey(eventId), TAX_RULES_RESOURCE, now),
  ]);
  return rows[0]!;
}

export async function updateTaxRule(db: DB, eventId: number, id: number, values: Partial<TaxRuleValues>, now: number) {
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
