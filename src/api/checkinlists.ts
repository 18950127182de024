/**
 * Check-in lists (spec "Check-in lists"; pretix docs checkinlists.rst, open points 9 and 10):
 * CRUD (DELETE also on the singular path, deleting the list's check-ins), `status`, the list's
 * tickets (`positions`) with pretix's filters and orderings, the per-list redeem, failed scans,
 * and the event's check-in history (pretix checkin.rst), where failed scans show.
 */
import { Hono } from "hono";
import { checkinHistory, checkinListStatus, type CheckinListRecord, findCheckinPosition, listCheckinLists, listTicketsOfList } from "../db/checkin";
import { CHECKIN_REASONS } from "../db/schema";
import { changeList, checkinListFull, checkinListPatch, createList, deleteList, loadCheckinList } from "../domain/checkin-lists";
import { failedCheckinInput, listRedeemInput, redeemOnList, storeFailedCheckin } from "../domain/checkin-redeem";
import { fieldError, notFound } from "../domain/failure";
import { eventSettingsFor } from "../domain/settings";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, queryBool, queryDateTime, queryInt, queryString } from "../http/validation";
import { excludeOf, expandOf, expandPositions, expandSubevents, positionFilters } from "./checkin-expand";
import { downloadBase, respondScan } from "./checkin";
import { serializeCheckinList, serializeCheckinListStatus, serializeCheckinPosition, serializeFailedCheckin, serializeHistory } from "./checkin-serializers";

export * from "./checkin-serializers";

export const checkinListRoutes = new Hono<AppEnv>();
const ev = "/organizers/:organizer/events/:event";
const base = `${ev}/checkinlists`;
const read = eventScope("can_view_orders");
const write = eventScope("can_change_event_settings");
const scan = eventScope("can_change_orders");

async function respondList(c: AppContext, r: CheckinListRecord, status: 200 | 201 = 200) {
  const subevents = expandOf(c).has("subevent") ? await expandSubevents(c, c.var.event.id, [r.list.subeventId]) : undefined;
  return c.json(serializeCheckinList(r, { subevents, exclude: excludeOf(c) }), status);
}

checkinListRoutes.get(base, read, async (c) => {
  const req = listRequest(c);
  const exclude = excludeOf(c);
  const page = await listCheckinLists(
    c.var.db,
    c.var.event.id,
    { subevent: queryInt(c, "subevent"), subeventMatch: queryInt(c, "subevent_match"), endsAfter: queryDateTime(c, "ends_after") },
    req,
    !(exclude.includes("checkin_count") && exclude.includes("position_count")),
  );
  const unchanged = notModified(c, page.lastModified);
  if (unchanged) return unchanged;
  const subevents = expandOf(c).has("subevent") ? await expandSubevents(c, c.var.event.id, page.rows.map((r) => r.list.subeventId)) : undefined;
  return respondPage(c, req, page, (r) => serializeCheckinList(r, { subevents, exclude }));
});

checkinListRoutes.get(`${base}/:id`, read, async (c) => respondList(c, await loadCheckinList(c.var, pathId(c, "id"))));

checkinListRoutes.get(`${base}/:id/status`, read, async (c) => {
  const r = await loadCheckinList(c.var, pathId(c, "id"), false);
  const [status, settings] = await Promise.all([checkinListStatus(c.var.db, r.list), eventSettingsFor(c.var.db, c.var.organizer.id, c.var.event.id)]);
  return c.json(serializeCheckinListStatus(status, (settings.locale as string | undefined) ?? "en"));
});

checkinListRoutes.post(base, write, jsonBody(checkinListFull), async (c) => respondList(c, await createList(eventContext(c), c.req.valid("json")), 201));
checkinListRoutes.put(`${base}/:id`, write, jsonBody(checkinListFull), async (c) => respondList(c, await changeList(eventContext(c), pathId(c, "id"), c.req.valid("json"), true)));
checkinListRoutes.patch(`${base}/:id`, write, jsonBody(checkinListPatch), async (c) => respondList(c, await changeList(eventContext(c), pathId(c, "id"), c.req.valid("json"), false)));

const remove = async (c: AppContext) => {
  await deleteList(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
};
checkinListRoutes.delete(`${base}/:id`, write, remove);
checkinListRoutes.delete(`${ev}/checkinlist/:id`, write, remove);

// ---- failed scans ----

checkinListRoutes.post(`${base}/:list/failed_checkins`, scan, jsonBody(failedCheckinInput), async (c) => {
  const row = await storeFailedCheckin(eventContext(c), c.var.principal, pathId(c, "list"), c.req.valid("json"));
  return c.json(serializeFailedCheckin(row), 201);
});

// ---- the list's tickets ----

checkinListRoutes.get(`${base}/:list/positions`, read, async (c) => {
  const req = listRequest(c);
  // the list and a page of its tickets in one round trip (404 when the event has no such list)
  const page = await listTicketsOfList(c.var.db, c.var.event.id, pathId(c, "list"), positionFilters(c), req);
  if (!page.list) throw notFound();
  const expanded = await expandPositions(c, c.var.event.id, page.rows, expandOf(c));
  return respondPage(c, req, page, (p) => serializeCheckinPosition(p, downloadBase(c), expanded));
});

checkinListRoutes.get(`${base}/:list/positions/:id`, read, async (c) => {
  const r = await loadCheckinList(c.var, pathId(c, "list"), false);
  const p = await findCheckinPosition(c.var.db, r.list, pathId(c, "id"));
  if (!p) throw notFound();
  return c.json(serializeCheckinPosition(p, downloadBase(c), await expandPositions(c, c.var.event.id, [p], expandOf(c))));
});

/** The per-list redeem: the ticket by secret (or, without `untrusted_input`, by id) in the path. */
checkinListRoutes.post(`${base}/:list/positions/:id/redeem`, scan, jsonBody(listRedeemInput), async (c) => {
  const untrusted = queryBool(c, "untrusted_input") ?? false;
  const result = await redeemOnList(eventContext(c), c.var.principal, pathId(c, "list"), c.req.param("id"), untrusted, c.req.valid("json"));
  return respondScan(c, result);
});

// ---- the check-in history (pretix checkin.rst), failed scans included ----

checkinListRoutes.get(`${ev}/checkins`, read, async (c) => {
  const req = listRequest(c);
  const type = queryString(c, "type");
  if (type !== undefined && type !== "entry" && type !== "exit") throw fieldError("type", `Select a valid choice. ${type} is not one of the available choices.`);
  const reason = queryString(c, "error_reason");
  if (reason !== undefined && !(CHECKIN_REASONS as readonly string[]).includes(reason)) throw fieldError("error_reason", `Select a valid choice. ${reason} is not one of the available choices.`);
  const page = await checkinHistory(
    c.var.db,
    c.var.event.id,
    {
      createdSince: queryDateTime(c, "created_since"),
      createdBefore: queryDateTime(c, "created_before"),
      datetimeSince: queryDateTime(c, "datetime_since"),
      datetimeBefore: queryDateTime(c, "datetime_before"),
      successful: queryBool(c, "successful"),
      errorReason: reason,
      list: queryInt(c, "list"),
      type: type as "entry" | "exit" | undefined,
      device: queryInt(c, "device"),
      gate: queryInt(c, "gate"),
      autoCheckedIn: queryBool(c, "auto_checked_in"),
    },
    req,
  );
  return respondPage(c, req, page, serializeHistory);
});
