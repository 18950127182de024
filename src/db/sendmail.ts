/** Automated email rules of an event; every query is scoped by event. */
import { and, asc, count, eq } from "drizzle-orm";
import { itemLinkInserts, lastInsertedId, linkedItemIdsJson, runBatch, type Statement } from "./catalog-common";
import type { DB } from "./client";
import { sendmailRuleItems, sendmailRules } from "./schema";

export type SendmailRuleRow = typeof sendmailRules.$inferSelect;
export type SendmailRuleValues = Omit<typeof sendmailRules.$inferInsert, "id" | "eventId">;
export type SendmailRuleRecord = { rule: SendmailRuleRow; items: string };

const ruleRecordFields = {
  rule: sendmailRules,
  items: linkedItemIdsJson("sendmail_rule_items", "rule_id", "sendmail_rules"),
};

export function sendmailRuleCount(db: DB, eventId: number) {
  return db.select({ n: count() }).from(sendmailRules).where(eq(sendmailRules.eventId, eventId));
}

export function sendmailRulePage(db: DB, eventId: number, limit: number, offset: number) {
  return db
    .select(ruleRecordFields)
    .from(sendmailRules)
    .where(eq(sendmailRules.eventId, eventId))
    .orderBy(asc(sendmailRules.id))
    .limit(limit)
    .offset(offset);
}

export async function findSendmailRule(db: DB, eventId: number, id: number): Promise<SendmailRuleRecord | undefined> {
  return db
    .select(ruleRecordFields)
    .from(sendmailRules)
    .where(and(eq(sendmailRules.eventId, eventId), eq(sendmailRules.id, id)))
    .get();
}

/** Creates a rule with its products in one transaction; returns its id. */
export async function createSendmailRule(db: DB, eventId: number, values: SendmailRuleValues, itemIds: number[]): Promise<number> {
  const [inserted] = (await runBatch(db, [
    db.insert(sendmailRules).values({ ...values, eventId }).returning({ id: sendmailRules.id }),
    ...itemLinkInserts(db, "sendmail_rule_items", lastInsertedId("sendmail_rules"), eventId, itemIds),
  ])) as [{ id: number }[]];
  return inserted[0]!.id;
}

/** Updates a rule; `itemIds` replaces its products when given. */
export async function updateSendmailRule(db: DB, eventId: number, id: number, values: Partial<SendmailRuleValues>, itemIds: number[] | undefined) {
  const statements: Statement[] = [];
  if (Object.keys(values).length) {
    statements.push(db.update(sendmailRules).set(values).where(and(eq(sendmailRules.eventId, eventId), eq(sendmailRules.id, id))));
  }
  if (itemIds) {
    statements.push(db.delete(sendmailRuleItems).where(eq(sendmailRuleItems.ruleId, id)));
    statements.push(...itemLinkInserts(db, "sendmail_rule_items", id, eventId, itemIds));
  }
  await runBatch(db, statements);
}

export async function deleteSendmailRule(db: DB, eventId: number, id: number) {
  await db.delete(sendmailRules).where(and(eq(sendmailRules.eventId, eventId), eq(sendmailRules.id, id)));
}
