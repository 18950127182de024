/** The check-in history of an event (pretix docs checkin.rst "Check-in history"), successful and failed scans. */
import { and, eq, getTableColumns, type SQL, sql } from "drizzle-orm";
import type { DB } from "../client";
import { fetchPage, type ListRequest, type OrderingTable } from "../paging";
import { type CheckinType, checkins } from "../schema";

export type HistoryFilter = {
  createdSince?: number;
  createdBefore?: number;
  datetimeSince?: number;
  datetimeBefore?: number;
  successful?: boolean;
  errorReason?: string;
  list?: number;
  type?: CheckinType;
  device?: number;
  /** Check-ins carry no gate (the service has no gates): a gate filter matches nothing. */
  gate?: number;
  autoCheckedIn?: boolean;
};

export const HISTORY_ORDERING: OrderingTable = {
  fields: { datetime: checkins.datetime, created: checkins.created, id: checkins.id },
  default: "id",
  tiebreaker: checkins.id,
};

/** A page of the event's check-ins, successful and failed (pretix checkin.rst "Check-in history"). */
export async function checkinHistory(db: DB, eventId: number, f: HistoryFilter, req: ListRequest) {
  const c: SQL[] = [eq(checkins.eventId, eventId)];
  if (f.createdSince !== undefined) c.push(sql`${checkins.created} >= ${f.createdSince}`);
  if (f.createdBefore !== undefined) c.push(sql`${checkins.created} < ${f.createdBefore}`);
  if (f.datetimeSince !== undefined) c.push(sql`${checkins.datetime} >= ${f.datetimeSince}`);
  if (f.datetimeBefore !== undefined) c.push(sql`${checkins.datetime} < ${f.datetimeBefore}`);
  if (f.successful !== undefined) c.push(eq(checkins.successful, f.successful));
  if (f.errorReason !== undefined) c.push(sql`${checkins.errorReason} = ${f.errorReason}`);
  if (f.list !== undefined) c.push(eq(checkins.listId, f.list));
  if (f.type !== undefined) c.push(eq(checkins.type, f.type));
  if (f.device !== undefined) c.push(eq(checkins.deviceId, f.device));
  if (f.gate !== undefined) c.push(sql`0`);
  if (f.autoCheckedIn !== undefined) c.push(eq(checkins.autoCheckedIn, f.autoCheckedIn));
  const where = and(...c);
  const rows = db
    .select({
      ...getTableColumns(checkins),
      // qualified: an unqualified "device_id" in the subquery would be the device's own column
      deviceNumber: sql<number | null>`(SELECT d.device_id FROM devices d WHERE d.id = "checkins"."device_id")`,
    })
    .from(checkins)
    .where(where)
    .$dynamic();
  return fetchPage(db, { rows, count: { from: checkins, where }, ordering: HISTORY_ORDERING }, req);
}
