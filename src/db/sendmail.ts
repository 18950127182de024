/** Automated email rules of an event; every query is scoped by event. */
import { and, asc, eq, type SQL } from "drizzle-orm";
import { itemLinkInserts, lastInsertedId, linkedItemIdsJson } from "./catalog-common";
import { runBatch, type Statement } from "./batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest } from "./paging";
import { sendmailRuleItems, sendmailRules } from "./schema";

export type SendmailRuleRow = typeof sendmailRules.$inferSelect;
export type SendmailRuleValues = Omit<typeof sendmailRules.$inferInsert, "id" | "eventId">;
export type SendmailRuleRecord = { rule: SendmailRuleRow; items: string };

const ruleRecordFields = {
  rule: sendmailRules,
  items: linkedItemIdsJson("sendmail_rule_items", "rule_id", "sendmail_rules"),
};

function selectRules(db: DB) {
  return db.select(ruleRecordFields).from(sendmailRules);
}

function ruleWhere(eventId: number, id: number | SQL) {
  return and(eq(sendmailRules.eventId, eventId), eq(sendmailRules.id, id));
}

/** A page of the event's rules, by id. */
export function listSendmailRules(db: DB, eventId: number, req: ListRequest) {
  const where = eq(sendmailRules.eventId, eventId);
  return fetchPage(
    db,
    {
      rows: selectRules(db).where(where).orderBy(asc(sendmailRules.id)).$dynamic(),
      count: { from: sendmailRules, where },
    },
    req,
  );
}

export async function findSendmailRule(db: DB, eventId: number, id: number): Promise<SendmailRuleRecord | undefined> {
  return selectRules(db).where(ruleWhere(eventId, id)).get();
}

/** Creates a rule with its products in one transaction and reads it back. */
export async function insertSendmailRule(
  db: DB,
  eventId: number,
  values: SendmailRuleValues,
  itemIds: number[],
): Promise<SendmailRuleRecord> {
  const self = lastInsertedId("sendmail_rules");
  const results = await runBatch(db, [
    db.insert(sendmailRules).values({ ...values, eventId }),
    ...itemLinkInserts(db, "sendmail_rule_items", self, eventId, itemIds),
    selectRules(db).where(ruleWhere(eventId, self)),
  ]);
  return (results.at(-1) as SendmailRuleRecord[])[0]!;
}

/**
 * Updates a rule (`itemIds` replaces its products when given) and reads it back in the same
 * transaction; undefined when it is gone.
 */
export async function updateSendmailRuleValues(
  db: DB,
  eventId: number,
  id: number,
  values: Partial<SendmailRuleValues>,
  itemIds: number[] | undefined,
): Promise<SendmailRuleRecord | undefined> {
  const statements: Statement[] = [];
  if (Object.keys(values).length) statements.push(db.update(sendmailRules).set(values).where(ruleWhere(eventId, id)));
  if (itemIds) {
    statements.push(db.delete(sendmailRuleItems).where(eq(sendmailRuleItems.ruleId, id)));
    statements.push(...itemLinkInserts(db, "sendmail_rule_items", id, eventId, itemIds));
  }
  statements.push(selectRules(db).where(ruleWhere(eventId, id)));
  const results = await runBatch(db, statements);
  return (results.at(-1) as SendmailRuleRecord[])[0];
}

/** Deletes a rule of the event; false when there is none. */
export async function deleteSendmailRuleRow(db: DB, eventId: number, id: number): Promise<boolean> {
  const deleted = await db.delete(sendmailRules).where(ruleWhere(eventId, id)).returning({ id: sendmailRules.id });
  return deleted.length > 0;
}
