/**
 * Passages (check-ins) in D1 (pretix docs checkin.rst): a ticket's check-ins as positions show
 * them, and the writes of a scan (successful or refused, once per uid) with the checks they need.
 */
import { and, eq, type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { rawRows, statement } from "../raw";
import { type Answer, type CheckinType, checkins, orderPositions, orders } from "../schema";
import { inIntegers } from "../util";
import type { Statement } from "../batch";
import { checkinNotificationStatement } from "../webhooks";

export type CheckinInsert = typeof checkins.$inferInsert;

/** A successful check-in as positions show it (pretix: `checkins` of an order position). */
export type CheckinJson = {
  id: number;
  list: number;
  type: CheckinType;
  datetime: number;
  device: number | null;
  auto_checked_in: number;
};

/** Successful check-ins of a position (on the given lists, or all), oldest first, as JSON. */
export function checkinsJsonSql(positionId: SQL, listIds: readonly number[] | null): SQL<string> {
  const onLists = listIds === null ? sql`` : sql`AND ${inIntegers(sql`list_id`, listIds)}`;
  return sql<string>`(SELECT json_group_array(json_object('id', c.id, 'list', c.list_id, 'type', c.type, 'datetime', c.datetime,
      'device', c.device_id, 'auto_checked_in', c.auto_checked_in))
    FROM (SELECT * FROM checkins WHERE position_id = ${positionId} AND successful = 1 ${onLists} ORDER BY datetime, id) c)`;
}

/** A scan that did not pass (failed check-ins, for statistics). */
export function insertCheckin(db: DB, row: CheckinInsert) {
  return db.insert(checkins).values(row).onConflictDoNothing({ target: checkins.uid });
}

const CHECKIN_COLUMNS = [
  "uid",
  "event_id",
  "list_id",
  "position_id",
  "type",
  "datetime",
  "created",
  "successful",
  "error_reason",
  "error_explanation",
  "auto_checked_in",
  "forced",
  "force_sent",
  "device_id",
  "nonce",
  "raw_barcode",
  "raw_source_type",
  "raw_item",
  "raw_variation",
  "raw_subevent",
] as const;

/** A check-in written only while `condition` holds (and once per uid); with the id the event object gave it, if any. */
export function insertCheckinIf(db: DB, r: CheckinInsert, condition: SQL = sql`1`) {
  const columns: readonly string[] = r.id == null ? CHECKIN_COLUMNS : ["id", ...CHECKIN_COLUMNS];
  const values = [
    ...(r.id == null ? [] : [r.id]),
    r.uid,
    r.eventId,
    r.listId,
    r.positionId ?? null,
    r.type,
    r.datetime,
    r.created,
    r.successful === false ? 0 : 1,
    r.errorReason ?? null,
    r.errorExplanation ?? null,
    r.autoCheckedIn ? 1 : 0,
    r.forced ? 1 : 0,
    r.forceSent ? 1 : 0,
    r.deviceId ?? null,
    r.nonce ?? null,
    r.rawBarcode ?? null,
    r.rawSourceType ?? null,
    r.rawItem ?? null,
    r.rawVariation ?? null,
    r.rawSubevent ?? null,
  ];
  return statement(
    db,
    sql`INSERT INTO checkins (${sql.raw(columns.join(", "))}) SELECT ${sql.join(
      values.map((v) => sql`${v}`),
      sql`, `,
    )} WHERE ${condition} ON CONFLICT (uid) DO NOTHING`,
  );
}

/** An automatic check-in of a new order's position (by its number in the order), in the order's own batch. */
export function autoCheckinStatement(
  db: DB,
  eventId: number,
  orderCode: string,
  positionid: number,
  uid: string,
  listId: number,
  now: number,
  id: number | null = null,
) {
  return statement(
    db,
    sql`INSERT INTO checkins (id, uid, event_id, list_id, position_id, type, datetime, created, successful, auto_checked_in, forced)
    SELECT ${id}, ${uid}, ${eventId}, ${listId}, p.id, 'entry', ${now}, ${now}, 1, 1, 0
    FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE o.event_id = ${eventId} AND o.code = ${orderCode} AND p.positionid = ${positionid}
    ON CONFLICT (uid) DO NOTHING`,
  );
}

/** The order of a position changed (a check-in): it shows up again in incremental syncs. */
export function touchOrderOfPosition(db: DB, positionId: number, now: number, condition: SQL = sql`1`) {
  return db
    .update(orders)
    .set({ lastModified: sql`max(${orders.lastModified}, ${now})` })
    .where(sql`${orders.id} = (SELECT order_id FROM order_positions WHERE id = ${positionId}) AND ${condition}`);
}

/** Answers given at the door, stored with the position. */
export function setPositionAnswers(db: DB, positionId: number, answers: Answer[], condition: SQL = sql`1`) {
  return db
    .update(orderPositions)
    .set({ answers })
    .where(and(eq(orderPositions.id, positionId), condition));
}

/** The condition "no check-in with this uid is stored yet" (what is written with a check-in, once, goes under it). */
export function checkinMissingSql(uid: string): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM checkins ck WHERE ck.uid = ${uid})`;
}

export function checkinExists(db: DB, uid: string) {
  return db.select({ id: checkins.id }).from(checkins).where(eq(checkins.uid, uid));
}

/** Whether a failed scan with this nonce was already stored (a scanner's upload repeated). */
export async function failedCheckinWithNonce(
  db: DB,
  listId: number,
  nonce: string,
  positionId: number | null,
  rawBarcode: string,
): Promise<boolean> {
  const row = await db
    .select({ id: checkins.id })
    .from(checkins)
    .where(
      and(
        eq(checkins.nonce, nonce),
        eq(checkins.successful, false),
        positionId !== null
          ? eq(checkins.positionId, positionId)
          : and(eq(checkins.listId, listId), eq(checkins.rawBarcode, rawBarcode)),
      ),
    )
    .get();
  return row !== undefined;
}

/** A position of the event by secret (failed scans name the ticket they matched). */
export async function positionIdBySecret(db: DB, eventId: number, secret: string): Promise<number | undefined> {
  const row = await db
    .select({ id: orderPositions.id })
    .from(orderPositions)
    .where(and(eq(orderPositions.eventId, eventId), eq(orderPositions.secret, secret)))
    .get();
  return row?.id;
}

export async function positionOfEvent(db: DB, eventId: number, id: number): Promise<boolean> {
  const row = await db
    .select({ id: orderPositions.id })
    .from(orderPositions)
    .where(and(eq(orderPositions.eventId, eventId), eq(orderPositions.id, id)))
    .get();
  return row !== undefined;
}

/** A check-in an annulment may name (pretix `checkinrpc/annul`), with its ticket's secret. */
export type NonceCheckin = {
  uid: string;
  eventId: number;
  listId: number;
  positionId: number | null;
  successful: number;
  deviceId: number | null;
  datetime: number;
  secret: string | null;
};

/**
 * The check-ins with a scan's nonce on the lists, a device's own only when `deviceId` is given
 * (pretix: a device sees only its check-ins); at most two are read: a second makes the nonce
 * ambiguous.
 */
export function checkinsWithNonce(db: DB, listIds: readonly number[], nonce: string, deviceId: number | null) {
  const ofDevice = deviceId === null ? sql`` : sql`AND c.device_id = ${deviceId}`;
  return rawRows<NonceCheckin>(
    db,
    sql`SELECT c.uid AS uid, c.event_id AS eventId, c.list_id AS listId, c.position_id AS positionId,
        c.successful AS successful, c.device_id AS deviceId, c.datetime AS datetime, p.secret AS secret
      FROM checkins c LEFT JOIN order_positions p ON p.id = c.position_id
      WHERE ${inIntegers(sql`c.list_id`, listIds)} AND c.nonce = ${nonce} ${ofDevice} LIMIT 2`,
  );
}

/**
 * An annulment in D1: the check-in becomes a failed one (`annulled`, with the scanner's
 * explanation) only while it is successful, and its order counts as changed (scanners' sync).
 */
export function annulCheckinStatements(
  db: DB,
  uid: string,
  positionId: number,
  explanation: string | null,
  now: number,
) {
  return [
    db
      .update(checkins)
      .set({ successful: false, errorReason: "annulled", errorExplanation: explanation })
      .where(and(eq(checkins.uid, uid), eq(checkins.successful, true))),
    touchOrderOfPosition(db, positionId, now),
  ] as const;
}

/** Whether a check-in is (still) successful in D1; undefined: no such row. */
export function checkinSuccessful(db: DB, uid: string) {
  return db.select({ successful: checkins.successful }).from(checkins).where(eq(checkins.uid, uid));
}

/**
 * A successful passage (an entry or an exit, scanned or automatic) as the event object writes
 * it (its `uid` makes the write idempotent; `id` when the object gave it one from its leased
 * block). `report`: a scan, reported to webhooks (`pretix.event.checkin`) in the same batch.
 */
export type PassageRow = {
  id?: number | null;
  uid: string;
  listId: number;
  ticketId: number;
  type: CheckinType;
  datetime: number;
  nonce: string | null;
  deviceId: number | null;
  auto: boolean;
  created: number;
  forced: boolean;
  forceSent?: boolean;
  rawBarcode: string | null;
  rawSourceType: string | null;
  report?: { code: string; first: boolean };
};

/**
 * The D1 statements of a check-in: its webhook notification (a scan's; only while the row is
 * not stored yet, so a replay reports nothing twice), the row (once, by uid), answers given
 * at the door, and the order's last_modified (other scanners' incremental sync).
 */
export function passageStatements(
  db: DB,
  eventId: number,
  p: PassageRow,
  answers: Answer[] | null,
  condition: SQL = sql`1`,
): Statement[] {
  const stmts: Statement[] = [];
  if (p.report) {
    const c = p.report;
    stmts.push(
      checkinNotificationStatement(db, {
        eventId,
        code: c.code,
        positionId: p.ticketId,
        listId: p.listId,
        type: p.type,
        firstCheckin: c.first,
        now: p.created,
        condition: sql`${condition} AND ${checkinMissingSql(p.uid)}`,
      }),
    );
  }
  stmts.push(
    insertCheckinIf(
      db,
      {
        id: p.id ?? undefined,
        uid: p.uid,
        eventId,
        listId: p.listId,
        positionId: p.ticketId,
        type: p.type,
        datetime: p.datetime,
        created: p.created,
        successful: true,
        autoCheckedIn: p.auto,
        forced: p.forced,
        forceSent: p.forceSent ?? false,
        deviceId: p.deviceId,
        nonce: p.nonce,
        rawBarcode: p.rawBarcode,
        rawSourceType: p.rawSourceType,
      },
      condition,
    ),
    touchOrderOfPosition(db, p.ticketId, p.created, condition),
  );
  if (answers) stmts.push(setPositionAnswers(db, p.ticketId, answers, condition));
  return stmts;
}
