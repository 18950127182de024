/**
 * Check-in lists (docs/api.md; pretix docs checkinlists.rst, docs/open-points.md rows 9 and 10):
 * CRUD (DELETE also on the singular path, deleting the list's check-ins), `status`, the list's
 * tickets (`positions`) with pretix's filters and orderings, the per-list redeem, failed scans,
 * and the event's check-in history (pretix checkin.rst), where failed scans show.
 */
import { Hono } from "hono";
import {
  checkinHistory,
  HISTORY_ORDERING,
  CHECKIN_LIST_ORDERING,
  type CheckinListRecord,
  listCheckinLists,
  checkinListStatus,
  findCheckinPosition,
  listTicketsOfList,
  positionOrdering,
} from "../services/checkin/checkin-reads";
import { CHECKIN_ERROR_REASONS } from "../services/stored-values";
import {
  changeList,
  checkinListFull,
  checkinListPatch,
  createList,
  deleteList,
  loadCheckinList,
} from "../services/checkin/checkin-lists";
import {
  failedCheckinInput,
  listRedeemInput,
  redeemOnList,
  storeFailedCheckin,
} from "../services/checkin/checkin-redeem";
import { notFound } from "../lib/failure";
import { eventSettingsFor } from "../services/events/settings";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { readInScope, eventScope } from "../http/tenancy";
import { apiDocs, type PathParam, type RouteDoc } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import {
  excludeOf,
  excludeParam,
  expandOf,
  expandParam,
  expandPositions,
  expandSubevents,
  pdfDataParam,
  POSITION_FILTER_PARAMS,
  positionFilters,
} from "./checkin-expand";
import { doorUploads, downloadBase, redeemAnswers, scanAnswer, searchTooShort } from "./checkin";
import {
  checkinHistoryResponse,
  checkinListResponse,
  checkinListStatusResponse,
  checkinPositionResponse,
  failedCheckinResponse,
  redeemResponse,
  serializeCheckinList,
  serializeCheckinListStatus,
  serializeCheckinPosition,
  serializeFailedCheckin,
  serializeHistory,
} from "./checkin-serializers";

export * from "./checkin-serializers";

export const checkinListRoutes = new Hono<AppEnv>();
const ev = "/organizers/:organizer/events/:event";
const base = `${ev}/checkinlists`;
/** Lists and their tickets: `can_view_orders` or `can_checkin_orders` (pretix). */
const read = eventScope("checkin:read");
/** The list's tickets: scanners page through them; the page rides in the credential's batch (http/credential-batch.ts). */
const readTickets = eventScope("checkin:read", { pageWithCredential: true });
const write = eventScope("can_change_event_settings");
/** Scans and failed scans: `can_change_orders` or `can_checkin_orders` (pretix). */
const scan = eventScope("checkin:scan");
const history = eventScope("can_view_orders");
const doc = apiDocs("Check-in lists");

const listShape = queryParams({ expand: expandParam, exclude: excludeParam });
const listFilters = queryParams({
  subevent: q.int("lists of this date"),
  subevent_match: q.int("lists of this date or of all dates"),
  ends_after: q.dateTime("lists whose date ends after then (lists without a date always)"),
  expand: expandParam,
  exclude: excludeParam,
});
const positionQuery = queryParams({ ...POSITION_FILTER_PARAMS, expand: expandParam });
const redeemQuery = queryParams({
  untrusted_input: q.bool("the path holds a scanned secret (never an id), as scanners send it"),
  expand: expandParam,
  pdf_data: pdfDataParam,
});
const historyFilters = queryParams({
  created_since: q.dateTime(),
  created_before: q.dateTime(),
  datetime_since: q.dateTime("scanned at or after then"),
  datetime_before: q.dateTime("scanned before then"),
  successful: q.bool(),
  error_reason: q.choice(CHECKIN_ERROR_REASONS),
  list: q.int("the check-in list's id"),
  type: q.choice(["entry", "exit"] as const),
  device: q.int("the device's `device_id`"),
  gate: q.int(),
  auto_checked_in: q.bool(),
});
const TICKET: PathParam = {
  schema: { type: "string" },
  description:
    "The ticket's id; with `untrusted_input=true`, from a pretixSCAN device, or when it is no number, its secret.",
};

async function respondList(c: AppContext, r: CheckinListRecord, status: 200 | 201 = 200) {
  const subevents = expandOf(c).has("subevent")
    ? await expandSubevents(c, c.var.event.id, [r.list.subeventId])
    : undefined;
  return c.json(serializeCheckinList(r, { subevents, exclude: excludeOf(c) }), status);
}

checkinListRoutes.get(
  base,
  read,
  doc.list(checkinListResponse, { summary: "List check-in lists", ordering: CHECKIN_LIST_ORDERING, conditional: true }),
  listFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const exclude = f.exclude ?? [];
    const page = await listCheckinLists(
      eventContext(c),
      { subevent: f.subevent, subeventMatch: f.subevent_match, endsAfter: f.ends_after },
      req,
      !(exclude.includes("checkin_count") && exclude.includes("position_count")),
    );
    const unchanged = notModified(c, page.lastModified);
    if (unchanged) return unchanged;
    const subevents = expandOf(c).has("subevent")
      ? await expandSubevents(
          c,
          c.var.event.id,
          page.rows.map((r) => r.list.subeventId),
        )
      : undefined;
    return respondPage(c, req, page, (r) => serializeCheckinList(r, { subevents, exclude }));
  },
);

checkinListRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(checkinListResponse, { summary: "Check-in list detail" }),
  listShape,
  async (c) => respondList(c, await loadCheckinList(c.var, pathId(c, "id"))),
);

checkinListRoutes.get(
  `${base}/:id/status`,
  read,
  doc.ok(checkinListStatusResponse, {
    summary: "A check-in list's status",
    description: "Tickets and check-ins in total and per product and variation.",
  }),
  async (c) => {
    const r = await loadCheckinList(c.var, pathId(c, "id"), false);
    const [status, settings] = await Promise.all([
      checkinListStatus(c.var, r.list),
      eventSettingsFor(c.var.db, c.var.organizer.id, c.var.event.id),
    ]);
    return c.json(serializeCheckinListStatus(status, (settings.locale as string | undefined) ?? "en"));
  },
);

const changes = { failures: ["unavailable"] } satisfies Partial<RouteDoc>;
checkinListRoutes.post(
  base,
  write,
  doc.created(checkinListResponse, { summary: "Create a check-in list", ...changes }),
  listShape,
  jsonBody(checkinListFull),
  async (c) => respondList(c, await createList(eventContext(c), c.req.valid("json")), 201),
);
checkinListRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(checkinListResponse, { summary: "Replace a check-in list", ...changes }),
  listShape,
  jsonBody(checkinListFull),
  async (c) => respondList(c, await changeList(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
);
checkinListRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(checkinListResponse, { summary: "Change a check-in list", ...changes }),
  listShape,
  jsonBody(checkinListPatch),
  async (c) => respondList(c, await changeList(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
);

const remove = async (c: AppContext) => {
  await deleteList(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
};
checkinListRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({ summary: "Delete a check-in list", description: "Its check-ins are deleted with it.", ...changes }),
  remove,
);
checkinListRoutes.delete(
  `${ev}/checkinlist/:id`,
  write,
  doc.noContent({
    summary: "Delete a check-in list (pretix's singular path)",
    description: "The same as `DELETE .../checkinlists/{id}/`.",
    ...changes,
  }),
  remove,
);

// ---- failed scans ----

checkinListRoutes.post(
  `${base}/:list/failed_checkins`,
  scan,
  doc.created(failedCheckinResponse, {
    summary: "Record a failed scan",
    description: "For the statistics and the check-in history; nothing is checked in.",
  }),
  jsonBody(failedCheckinInput),
  async (c) => {
    const row = await storeFailedCheckin(eventContext(c), c.var.principal, pathId(c, "list"), c.req.valid("json"));
    return c.json(serializeFailedCheckin(row), 201);
  },
);

// ---- the list's tickets ----

checkinListRoutes.get(
  `${base}/:list/positions`,
  readTickets,
  doc.list(checkinPositionResponse, {
    summary: "List the tickets of a check-in list",
    description:
      "Without `can_view_orders` (a check-in permission only), nothing is listed unless `search` has 3 characters or more.",
    ordering: positionOrdering([]),
  }),
  positionQuery,
  async (c) => {
    const req = listRequest(c);
    // the list and a page of its tickets in one round trip, with the credential when it rides along (404 when the event has no such list)
    const listId = pathId(c, "list");
    const filters = positionFilters(c.req.valid("query"));
    const page = await readInScope(c, (db, eventId) => listTicketsOfList({ db }, eventId, listId, filters, req));
    if (!page.list) throw notFound();
    if (searchTooShort(c, filters.search)) return respondPage(c, req, { count: 0, rows: [] }, (p: never) => p);
    const expanded = await expandPositions(c, c.var.event.id, page.rows, expandOf(c));
    return respondPage(c, req, page, (p) => serializeCheckinPosition(p, downloadBase(c), expanded));
  },
);

checkinListRoutes.get(
  `${base}/:list/positions/:id`,
  read,
  doc.ok(checkinPositionResponse, { summary: "A ticket of a check-in list" }),
  queryParams({ expand: expandParam }),
  async (c) => {
    const r = await loadCheckinList(c.var, pathId(c, "list"), false);
    const p = await findCheckinPosition(c.var, r.list, pathId(c, "id"));
    if (!p) throw notFound();
    return c.json(
      serializeCheckinPosition(p, downloadBase(c), await expandPositions(c, c.var.event.id, [p], expandOf(c))),
    );
  },
);

/** The per-list redeem: the ticket by secret (or, without `untrusted_input`, by id) in the path. */
checkinListRoutes.post(
  `${base}/:list/positions/:id/redeem`,
  scan,
  doc.created(redeemResponse, {
    summary: "Check a ticket in or out on this list",
    answers: redeemAnswers,
    failures: ["unavailable", "refused"],
    pathParams: { id: TICKET },
  }),
  redeemQuery,
  jsonBody(listRedeemInput),
  async (c) => {
    // pretixSCAN sends scanned codes only: a number in the path is never a ticket id for it (pretix)
    const untrusted =
      (c.req.valid("query").untrusted_input ?? false) || /pretixscan/i.test(c.var.principal.softwareBrand ?? "");
    const answer = await redeemOnList(
      eventContext(c),
      c.var.principal,
      pathId(c, "list"),
      c.req.param("id"),
      untrusted,
      c.req.valid("json"),
      scanAnswer(c),
      doorUploads(c),
    );
    return c.json(answer, 201);
  },
);

// ---- the check-in history (pretix checkin.rst), failed scans included ----

checkinListRoutes.get(
  `${ev}/checkins`,
  history,
  doc.list(checkinHistoryResponse, {
    summary: "The event's check-in history",
    description: "Successful and failed scans.",
    ordering: HISTORY_ORDERING,
  }),
  historyFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const page = await checkinHistory(
      eventContext(c),
      {
        createdSince: f.created_since,
        createdBefore: f.created_before,
        datetimeSince: f.datetime_since,
        datetimeBefore: f.datetime_before,
        successful: f.successful,
        errorReason: f.error_reason,
        list: f.list,
        type: f.type,
        device: f.device,
        gate: f.gate,
        autoCheckedIn: f.auto_checked_in,
      },
      req,
    );
    return respondPage(c, req, page, serializeHistory);
  },
);
