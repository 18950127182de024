/**
 * Webhooks (pretix docs webhooks.rst): the organizer's webhooks with the slugs of the events
 * they are limited to; the statements that write a notification's calls in the same batch as
 * the change it reports; and the claims and records of their delivery. Every statement is
 * scoped by the organizer, or by the event whose change it reports.
 */
import { and, eq, inArray, isNull, lte, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { DB } from "./client";
import { fetchPage, type ListRequest, type OrderingTable, type Page } from "./paging";
import { events, webhookCalls, webhookEvents, webhooks, type WebhookCallState } from "./schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "./util";

export type WebhookRow = typeof webhooks.$inferSelect;
export type WebhookCallRow = typeof webhookCalls.$inferSelect;

/** A webhook with the slugs of its events (`limitEvents`: a JSON list, sorted). */
export type WebhookRecord = { webhook: WebhookRow; limitEvents: string };

/** What the organizer sets on a webhook. */
export type WebhookValues = {
  enabled: boolean;
  targetUrl: string;
  allEvents: boolean;
  actionTypes: string[];
  comment: string | null;
};

// ---- the action types the service emits (pretix's names) ----

/** Order notifications, written with the order change itself (orderWriteStatements, statusWriteStatements). */
export const ORDER_ACTIONS = {
  placed: "pretix.event.order.placed",
  paymentConfirmed: "pretix.event.order.payment.confirmed",
  paid: "pretix.event.order.paid",
  canceled: "pretix.event.order.canceled",
  expired: "pretix.event.order.expired",
  placedRequireApproval: "pretix.event.order.placed.require_approval",
  approved: "pretix.event.order.approved",
  denied: "pretix.event.order.denied",
  reactivated: "pretix.event.order.reactivated",
  expiryChanged: "pretix.event.order.expirychanged",
  modified: "pretix.event.order.modified",
  contactChanged: "pretix.event.order.contact.changed",
  deleted: "pretix.event.order.deleted",
  changed: "pretix.event.order.changed",
} as const;

/** Refund notifications (pretix's names), written with the refund's change (db/refunds.ts). */
export const REFUND_ACTIONS = {
  created: "pretix.event.order.refund.created",
  createdExternally: "pretix.event.order.refund.created.externally",
  done: "pretix.event.order.refund.done",
  canceled: "pretix.event.order.refund.canceled",
  failed: "pretix.event.order.refund.failed",
} as const;

/**
 * A ticket was scanned in or out (written by the event object with the check-in itself, through
 * checkinNotificationStatement). Automatic check-ins and exits are not reported: pretix does
 * not log them either.
 */
export const CHECKIN_ACTION = "pretix.event.checkin";

// ---- the organizer's webhooks ----

const webhookWithEvents = {
  webhook: webhooks,
  // written out: drizzle renders columns unqualified in single-table selects
  limitEvents: sql<string>`(SELECT json_group_array(slug) FROM (SELECT e.slug FROM webhook_events we JOIN events e ON e.id = we.event_id WHERE we.webhook_id = "webhooks"."id" ORDER BY e.slug))`,
};

function ofOrganizer(organizerId: number, id: number) {
  return and(eq(webhooks.organizerId, organizerId), eq(webhooks.id, id));
}

function webhookQuery(db: DB, where: SQL | undefined) {
  return db.select(webhookWithEvents).from(webhooks).where(where).limit(1);
}

function run(db: DB, statements: BatchItem<"sqlite">[]) {
  return db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]) as Promise<unknown[]>;
}

/** A page of the organizer's webhooks, by id. */
export function listWebhooks(db: DB, organizerId: number, req: ListRequest): Promise<Page<WebhookRecord>> {
  const where = eq(webhooks.organizerId, organizerId);
  const rows = db.select(webhookWithEvents).from(webhooks).where(where).orderBy(webhooks.id).$dynamic();
  return fetchPage(db, { rows, count: { from: webhooks, where } }, req);
}

export function findWebhook(db: DB, organizerId: number, id: number): Promise<WebhookRecord | undefined> {
  return webhookQuery(db, ofOrganizer(organizerId, id)).get();
}

/** The organizer's webhook signing with `secret` (random and unique: it finds the one write that stored it). */
export function findWebhookBySecret(db: DB, organizerId: number, secret: string): Promise<WebhookRecord | undefined> {
  return webhookQuery(db, and(eq(webhooks.organizerId, organizerId), eq(webhooks.secret, secret))).get();
}

/** Links a webhook (a subquery finding it) to events of its organizer, in statements of at most 100 parameters. */
function eventLinks(db: DB, webhook: SQL, organizerId: number, eventIds: number[]) {
  return chunks(eventIds, MAX_PARAMS - 5).map((part) =>
    db.insert(webhookEvents).select(
      db
        .select({ webhookId: webhook.as("webhook_id"), eventId: events.id })
        .from(events)
        .where(and(eq(events.organizerId, organizerId), inArray(events.id, part))),
    ),
  );
}

/** Creates a webhook with its event list and reads it back: one batch. */
export async function insertWebhook(
  db: DB,
  organizerId: number,
  values: WebhookValues & { secret: string; createdAt: number },
  eventIds: number[],
): Promise<WebhookRecord> {
  // the secret is random and unique: it finds the row just inserted
  const created = sql`(SELECT id FROM webhooks WHERE organizer_id = ${organizerId} AND secret = ${values.secret})`;
  const results = await run(db, [
    db.insert(webhooks).values({ ...values, organizerId }),
    ...eventLinks(db, created, organizerId, eventIds),
    webhookQuery(db, and(eq(webhooks.organizerId, organizerId), eq(webhooks.secret, values.secret))),
  ]);
  return (results[results.length - 1] as WebhookRecord[])[0]!;
}

/** Cancels the pending calls of a webhook (it was disabled: nothing more is sent). */
function cancelPendingCalls(db: DB, webhookId: number | SQL, reason: string) {
  return db
    .update(webhookCalls)
    .set({ state: "canceled", nextAttemptAt: null, lastError: reason })
    .where(and(sql`${webhookCalls.webhookId} = ${webhookId}`, eq(webhookCalls.state, "pending")));
}

export const DISABLED_REASON = "The webhook was disabled before this notification was delivered.";

/**
 * Changes a webhook of the organizer (`eventIds` replaces its event list when given; a secret
 * replaces the old one); disabling it cancels its pending calls in the same transaction.
 * Returns the webhook afterwards (undefined: no such webhook), in one batch.
 */
export async function updateWebhook(
  db: DB,
  organizerId: number,
  id: number,
  values: Partial<WebhookValues> & { secret?: string },
  eventIds: number[] | undefined,
): Promise<WebhookRecord | undefined> {
  const statements: BatchItem<"sqlite">[] = [];
  if (Object.keys(values).length) statements.push(db.update(webhooks).set(values).where(ofOrganizer(organizerId, id)));
  const row = sql`(SELECT id FROM webhooks WHERE organizer_id = ${organizerId} AND id = ${id})`;
  if (eventIds) {
    statements.push(db.delete(webhookEvents).where(sql`${webhookEvents.webhookId} = ${row}`));
    statements.push(...eventLinks(db, row, organizerId, eventIds));
  }
  if (values.enabled === false) statements.push(cancelPendingCalls(db, row, DISABLED_REASON));
  const results = await run(db, [...statements, webhookQuery(db, ofOrganizer(organizerId, id))]);
  return (results[results.length - 1] as WebhookRecord[])[0];
}

// ---- notifications: written with the change they report ----

/** Extra payload fields of a notification (pretix's check-in payload has some): values, or SQL computing them. */
export type PayloadExtra = [key: string, value: string | number | boolean | null | SQL][];

function jsonValue(v: string | number | boolean | null | SQL): SQL {
  if (typeof v === "boolean") return sql.raw(`json('${v}')`);
  return v !== null && typeof v === "object" ? v : sql`${v}`;
}

/**
 * One statement that writes a call per matching webhook and action: every enabled webhook of
 * the event's organizer that listens to the action (and to the event: `all_events` or
 * `limit_events`), only where `condition` holds (the precondition of the change, in the same
 * transaction). The payload is pretix's: `organizer`, `event`, `code`, `action`, then
 * `extra`; the call's id is its `notification_id`. Calls are numbered in the order of
 * `actions` (read as one JSON array: any number of them, one parameter), so they are delivered
 * in that order. Nothing matches: nothing is written.
 */
export function notificationStatement(
  db: DB,
  n: { eventId: number; code: string; actions: readonly string[]; now: number; extra?: PayloadExtra; condition?: SQL },
) {
  const extra = (n.extra ?? []).map(([key, value]) => sql`, ${key}, ${jsonValue(value)}`);
  const payload = sql`json_object('organizer', o.slug, 'event', e.slug, 'code', ${n.code}, 'action', a.value${sql.join(extra)})`;
  // drizzle lists every column of the table, in table order: NULL lets SQLite assign the id
  return db.insert(webhookCalls).select(sql`
    SELECT NULL, w.id, e.organizer_id, e.id, ${n.code}, a.value, ${payload}, 'pending', 0, ${n.now}, ${n.now},
      NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
    FROM json_each(${JSON.stringify(n.actions)}) a
      JOIN events e ON e.id = ${n.eventId}
      JOIN organizers o ON o.id = e.organizer_id
      JOIN webhooks w ON w.organizer_id = e.organizer_id AND w.enabled = 1
    WHERE (w.all_events = 1 OR EXISTS (SELECT 1 FROM webhook_events we WHERE we.webhook_id = w.id AND we.event_id = e.id))
      AND EXISTS (SELECT 1 FROM json_each(w.action_types) j WHERE j.value = a.value)
      ${n.condition ? sql`AND ${n.condition}` : sql``}
    ORDER BY a.key, w.id`);
}

/**
 * The notifications of a new order: placed; placed paid also confirms its payment and is paid;
 * placed waiting for approval also `placed.require_approval` (pretix's webhook names).
 */
export function orderPlacedNotification(
  db: DB,
  order: { eventId: number; code: string; status: string; requireApproval?: boolean },
  now: number,
) {
  const actions =
    order.status === "p"
      ? [ORDER_ACTIONS.placed, ORDER_ACTIONS.paymentConfirmed, ORDER_ACTIONS.paid]
      : order.requireApproval
        ? [ORDER_ACTIONS.placed, ORDER_ACTIONS.placedRequireApproval]
        : [ORDER_ACTIONS.placed];
  return notificationStatement(db, { eventId: order.eventId, code: order.code, actions, now });
}

/** The actions of an order status change (to paid: a payment was confirmed with it). */
export function statusActions(to: string): string[] {
  if (to === "p") return [ORDER_ACTIONS.paymentConfirmed, ORDER_ACTIONS.paid];
  if (to === "c") return [ORDER_ACTIONS.canceled];
  if (to === "e") return [ORDER_ACTIONS.expired];
  return [];
}

/**
 * The notifications of a status change, under the change's own precondition (`gate`: the
 * order's status before the batch, and whatever else the change requires), so they are written
 * exactly when the change is. Null when the change reports nothing.
 */
export function statusNotification(
  db: DB,
  w: {
    eventId: number;
    code: string;
    to: string;
    now: number;
    actions?: readonly string[];
    paymentConfirmed?: boolean;
  },
  gate: SQL,
) {
  // paid by payments confirmed before (pretix: the payment that completes them): only paid
  const actions = (w.actions ?? statusActions(w.to)).filter(
    (a) => w.paymentConfirmed !== false || a !== ORDER_ACTIONS.paymentConfirmed,
  );
  return actions.length
    ? notificationStatement(db, { eventId: w.eventId, code: w.code, actions, now: w.now, condition: gate })
    : null;
}

/**
 * The notification of a check-in (pretix's payload adds `orderposition_id`,
 * `orderposition_positionid`, `checkin_list`, `type` and `first_checkin`), for the batch that
 * records the check-in, under that write's condition (so it is written exactly when the
 * check-in is). The position's number in its order is read in the statement. Its result: the
 * ids of the calls written (none: no webhook listens, nothing to hand to the queue).
 */
export function checkinNotificationStatement(
  db: DB,
  c: {
    eventId: number;
    code: string;
    positionId: number;
    listId: number;
    type: "entry" | "exit";
    firstCheckin: boolean;
    now: number;
    condition?: SQL;
  },
) {
  return notificationStatement(db, {
    eventId: c.eventId,
    code: c.code,
    actions: [CHECKIN_ACTION],
    now: c.now,
    condition: c.condition,
    extra: [
      ["orderposition_id", c.positionId],
      ["orderposition_positionid", sql`(SELECT op.positionid FROM order_positions op WHERE op.id = ${c.positionId})`],
      ["checkin_list", c.listId],
      ["type", c.type],
      ["first_checkin", c.firstCheckin],
    ],
  }).returning({ id: webhookCalls.id });
}

// ---- the calls, as the API shows them ----

export const WEBHOOK_CALL_ORDERING: OrderingTable = {
  fields: { id: webhookCalls.id, created: webhookCalls.createdAt },
  default: "-id",
  tiebreaker: webhookCalls.id,
};

export type WebhookCallFilters = { state?: WebhookCallState; code?: string; actionType?: string };

/** A page of a webhook's calls (newest first unless ordered otherwise); null when the organizer has no such webhook. */
export async function listWebhookCalls(
  db: DB,
  organizerId: number,
  webhookId: number,
  filters: WebhookCallFilters,
  req: ListRequest,
): Promise<Page<WebhookCallRow> | null> {
  const where = and(
    eq(webhookCalls.organizerId, organizerId),
    eq(webhookCalls.webhookId, webhookId),
    filters.state ? eq(webhookCalls.state, filters.state) : undefined,
    filters.code ? eq(webhookCalls.code, filters.code) : undefined,
    filters.actionType ? eq(webhookCalls.actionType, filters.actionType) : undefined,
  );
  const page = await fetchPage(
    db,
    {
      rows: db.select().from(webhookCalls).where(where).$dynamic(),
      count: { from: webhookCalls, where },
      ordering: WEBHOOK_CALL_ORDERING,
    },
    req,
    db.select({ id: webhooks.id }).from(webhooks).where(ofOrganizer(organizerId, webhookId)),
  );
  return page.extra[0].length ? page : null;
}

export function findWebhookCall(
  db: DB,
  organizerId: number,
  webhookId: number,
  id: number,
): Promise<WebhookCallRow | undefined> {
  return db
    .select()
    .from(webhookCalls)
    .where(
      and(eq(webhookCalls.organizerId, organizerId), eq(webhookCalls.webhookId, webhookId), eq(webhookCalls.id, id)),
    )
    .get();
}

// ---- delivery ----

/** A sequence: the calls of one webhook about one order, delivered in id order. */
export type SequenceKey = { webhookId: number; eventId: number; code: string };

/** The webhooks with calls still pending about an order. */
export async function webhooksPendingFor(db: DB, eventId: number, code: string): Promise<number[]> {
  const rows = await db
    .selectDistinct({ webhookId: webhookCalls.webhookId })
    .from(webhookCalls)
    .where(and(eq(webhookCalls.eventId, eventId), eq(webhookCalls.code, code), eq(webhookCalls.state, "pending")));
  return rows.map((r) => r.webhookId);
}

/** The first pending call of a sequence (the only one that may be attempted). */
function sequenceHead(k: SequenceKey) {
  return sql`(SELECT c.id FROM webhook_calls c WHERE c.event_id = ${k.eventId} AND c.code = ${k.code} AND c.webhook_id = ${k.webhookId} AND c.state = 'pending' ORDER BY c.id LIMIT 1)`;
}

/**
 * Claims the head of a sequence for one attempt, if it is due and no other delivery holds it:
 * one conditional UPDATE, so of simultaneous deliveries exactly one gets it. The claim counts
 * the attempt (a delivery that dies mid-flight still used one) and lasts `leaseMs`. Read in the
 * same batch: the webhook (target, secret, whether it is still enabled).
 */
export async function claimSequenceHead(
  db: DB,
  k: SequenceKey,
  now: number,
  token: string,
  leaseMs: number,
): Promise<{ call: WebhookCallRow; webhook: WebhookRow } | null> {
  const [claimed, hooks] = (await run(db, [
    db
      .update(webhookCalls)
      .set({
        leaseToken: token,
        leaseUntil: now + leaseMs,
        attempts: sql`${webhookCalls.attempts} + 1`,
        lastAttemptAt: now,
      })
      .where(
        and(
          sql`${webhookCalls.id} = ${sequenceHead(k)}`,
          lte(webhookCalls.nextAttemptAt, now),
          or(isNull(webhookCalls.leaseUntil), lte(webhookCalls.leaseUntil, now)),
        ),
      )
      .returning(),
    db.select().from(webhooks).where(eq(webhooks.id, k.webhookId)),
  ])) as [WebhookCallRow[], WebhookRow[]];
  const call = claimed[0];
  const webhook = hooks[0];
  return call && webhook ? { call, webhook } : null;
}

/** What an attempt left: the answer (or why there was none). */
export type AttemptRecord = {
  targetUrl: string;
  statusCode: number | null;
  response: string | null;
  error: string | null;
  durationMs: number;
};

/** The outcome the rules gave an attempt. */
export type AttemptOutcome = { state: "delivered" } | { state: "pending"; nextAttemptAt: number } | { state: "failed" };

/**
 * Records an attempt under its claim (`token`): a delivery whose claim ran out and was taken
 * over records nothing. A call canceled meanwhile stays canceled unless it was delivered after all.
 */
export async function recordAttempt(
  db: DB,
  callId: number,
  token: string,
  now: number,
  a: AttemptRecord,
  outcome: AttemptOutcome,
): Promise<boolean> {
  const rows = await db
    .update(webhookCalls)
    .set({
      state: outcome.state,
      nextAttemptAt: outcome.state === "pending" ? outcome.nextAttemptAt : null,
      deliveredAt: outcome.state === "delivered" ? now : null,
      targetUrl: a.targetUrl,
      lastStatusCode: a.statusCode,
      lastResponse: a.response,
      lastError: a.error,
      lastDurationMs: a.durationMs,
      leaseToken: null,
      leaseUntil: null,
    })
    .where(
      and(
        eq(webhookCalls.id, callId),
        eq(webhookCalls.leaseToken, token),
        outcome.state === "delivered" ? undefined : eq(webhookCalls.state, "pending"),
      ),
    )
    .returning({ id: webhookCalls.id });
  return rows.length > 0;
}

export const GONE_REASON = "The receiver answered 410 Gone: the webhook was disabled.";

/** The receiver answered 410 Gone: the webhook is disabled and its pending calls canceled (pretix's rule). */
export async function disableGoneWebhook(db: DB, webhookId: number): Promise<void> {
  await run(db, [
    db.update(webhooks).set({ enabled: false }).where(eq(webhooks.id, webhookId)),
    cancelPendingCalls(db, webhookId, GONE_REASON),
  ]);
}

/** A webhook found disabled while its calls were pending: they are canceled. */
export async function cancelCallsOfDisabled(db: DB, webhookId: number): Promise<void> {
  await cancelPendingCalls(db, webhookId, DISABLED_REASON);
}

/** Whether a sequence still has pending calls (after a run that stopped at its limit). */
export async function sequencePending(db: DB, k: SequenceKey): Promise<boolean> {
  const row = await db
    .select({ id: webhookCalls.id })
    .from(webhookCalls)
    .where(
      and(
        eq(webhookCalls.eventId, k.eventId),
        eq(webhookCalls.code, k.code),
        eq(webhookCalls.webhookId, k.webhookId),
        eq(webhookCalls.state, "pending"),
      ),
    )
    .limit(1)
    .get();
  return row !== undefined;
}

/**
 * Sequences whose head is due before `dueBefore` and held by nobody (their queue message may
 * have been lost, or their next attempt is further away than a queue message can wait).
 */
export async function dueSequences(db: DB, dueBefore: number, now: number, limit: number): Promise<SequenceKey[]> {
  return db
    .selectDistinct({ webhookId: webhookCalls.webhookId, eventId: webhookCalls.eventId, code: webhookCalls.code })
    .from(webhookCalls)
    .where(
      and(
        eq(webhookCalls.state, "pending"),
        lte(webhookCalls.nextAttemptAt, dueBefore),
        or(isNull(webhookCalls.leaseUntil), lte(webhookCalls.leaseUntil, now)),
        sql`${webhookCalls.id} = (SELECT c.id FROM webhook_calls c WHERE c.event_id = "webhook_calls"."event_id" AND c.code = "webhook_calls"."code"
          AND c.webhook_id = "webhook_calls"."webhook_id" AND c.state = 'pending' ORDER BY c.id LIMIT 1)`,
      ),
    )
    .limit(limit);
}

/** Deletes up to `limit` final calls created before `before` (the log is kept for a while, as pretix keeps it 30 days). Returns how many. */
export async function purgeWebhookCalls(db: DB, before: number, limit: number): Promise<number> {
  const old = db
    .select({ id: webhookCalls.id })
    .from(webhookCalls)
    .where(and(lte(webhookCalls.createdAt, before), inArray(webhookCalls.state, ["delivered", "failed", "canceled"])))
    .limit(limit);
  const rows = await db.delete(webhookCalls).where(inArray(webhookCalls.id, old)).returning({ id: webhookCalls.id });
  return rows.length;
}
