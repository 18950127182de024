/**
 * pretix's check-in RPC for scanning apps (pretix docs checkin.rst; docs/open-points.md row 10): `checkinrpc/
 * redeem/`, `search/` and `annul/` of an organizer, and the answer of a scan shared with the per-list
 * redeem (api/checkinlists.ts). Statuses as pretix sends them: 201 `ok`; 400 `error` or `incomplete`;
 * 404 `invalid` (with `detail` for older clients). Each list needs its event's check-in permission;
 * lists without it are answered as unknown. `scanAnswer` shapes the answer the service's failures carry.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  checkinAddonsOf,
  listCheckinPositions,
  positionOrdering,
  questionRecordsByIds,
} from "../services/checkin/checkin-reads";
import type { StoreUpload } from "../services/catalog/catalog-fields";
import { resolveFileField } from "../http/files";
import { hasPermission } from "../rules/permissions";
import { annulCheckin, annulInput } from "../services/checkin/checkin-annul";
import { redeemInput, redeemScan, type ScanAnswer, searchableLists } from "../services/checkin/checkin-redeem";
import { badRequest, MESSAGES } from "../lib/failure";
import { type AppContext, type AppEnv, organizerContext, publicBase } from "../http/context";
import { apiDocs, type OwnAnswer } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody, type QueryParam, queryParams } from "../http/validation";
import {
  expandAnswerQuestions,
  expandOf,
  expandParam,
  expandPositions,
  pdfDataParam,
  POSITION_FILTER_PARAMS,
  positionFilters,
} from "./checkin-expand";
import {
  checkinPositionResponse,
  checkinTexts,
  type DownloadBase,
  type RedeemResponse,
  redeemResponse,
  serializeCheckinPosition,
} from "./checkin-serializers";
import { serializeQuestion } from "./questions";

export { redeemResponse } from "./checkin-serializers";

/** Where the tickets' download URLs point (each ticket's own event completes them). */
export function downloadBase(c: AppContext): DownloadBase {
  return { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug };
}

/** Files uploaded by the request's caller, stored by the HTTP layer (answers to file questions at the door). */
export function doorUploads(c: AppContext): StoreUpload {
  return (ref, opts) => resolveFileField(c, opts.field, ref, opts);
}

/**
 * pretix's answer of a decided scan, with the ticket as the request asks for it (`expand`:
 * `item`, `variation`, `subevent`, `answers.question`, and `addons`, the ticket's add-ons shown
 * as the ticket is).
 */
export const scanAnswer =
  (c: AppContext): ScanAnswer<RedeemResponse> =>
  async (r) => {
    const list = {
      id: r.list.id,
      name: r.list.name,
      event: r.list.event,
      subevent: r.list.subevent,
      include_pending: r.list.include_pending,
    };
    if (r.status === "invalid") {
      const body: RedeemResponse = {
        detail: MESSAGES.notFound,
        status: "error",
        reason: "invalid",
        reason_explanation: null,
        require_attention: false,
        checkin_texts: [],
        list,
      };
      return body;
    }
    const expand = expandOf(c);
    let position: Record<string, unknown> | undefined;
    if (r.position) {
      const addons = expand.has("addons") ? await checkinAddonsOf(c.var, r.eventId, r.position.id, r.list.id) : [];
      const expanded = await expandPositions(c, r.eventId, [r.position, ...addons], expand);
      position = serializeCheckinPosition(r.position, downloadBase(c), expanded);
      if (expand.has("answers.question")) position = await expandAnswerQuestions(c, r.eventId, position);
      if (expand.has("addons"))
        position.addons = addons.map((a) => serializeCheckinPosition(a, downloadBase(c), expanded));
    }
    const revoked = r.reason === "revoked";
    const body: RedeemResponse = {
      status: r.status,
      ...(r.status === "error" ? { reason: r.reason ?? "error", reason_explanation: r.explanation } : {}),
      // pretix answers a revoked secret without the ticket's attention flag (and its texts)
      require_attention: revoked ? false : ((position?.require_attention as boolean | undefined) ?? false),
      checkin_texts: r.position && !revoked ? checkinTexts(r.position) : [],
      ...(position ? { position } : {}),
      list,
    };
    if (r.status === "incomplete") {
      const records = await questionRecordsByIds(c.var, r.eventId, r.questions);
      const byId = new Map(records.map((q) => [q.question.id, q]));
      body.questions = r.questions.flatMap((id) => (byId.has(id) ? [serializeQuestion(byId.get(id)!)] : []));
    }
    return body;
  };

/** The answers of a scan besides `ok` (201), for the API description. */
export const redeemAnswers: Record<number, OwnAnswer> = {
  400: {
    description:
      "The scan is refused (`status` `error` with `reason`), or questions must be answered first (`incomplete` with `questions`).",
    schema: redeemResponse,
  },
  404: { description: "The code is no ticket (`status` `error`, `reason` `invalid`).", schema: redeemResponse },
};

/** pretix's answer to a request about its lists as a whole: a bare list of messages. */
const listMessages = z.array(z.string()).meta({
  id: "ListMessages",
  description: 'pretix\'s bare list of messages: `["No check-in list passed."]`, two lists of one event.',
});
const LIST_MESSAGES =
  "No list was passed, or two lists of one event (a bare list of messages: `No check-in list passed.`, `Selecting two check-in lists from the same event is unsupported.`).";

export const checkinRoutes = new Hono<AppEnv>();
const doc = apiDocs("Check-in");
const base = "/organizers/:organizer/checkinrpc";

checkinRoutes.post(
  `${base}/redeem`,
  organizerScope("checkin:scan", { perObject: true }),
  doc.created(redeemResponse, {
    summary: "Check a ticket in or out on one of several lists",
    description:
      "The scanning apps' redeem: the secret and the lists to try (one per event). A file question is answered with an upload's `file:<id>` (`POST /api/v1/upload`: PNG, JPEG, GIF or PDF).",
    answers: {
      ...redeemAnswers,
      400: {
        description: `${redeemAnswers[400]!.description} ${LIST_MESSAGES}`,
        schema: z.union([redeemResponse, listMessages]),
      },
    },
    failures: ["unavailable", "refused"],
  }),
  queryParams({ expand: expandParam, pdf_data: pdfDataParam }),
  jsonBody(redeemInput),
  async (c) =>
    c.json(
      await redeemScan(organizerContext(c), c.var.principal, c.req.valid("json"), scanAnswer(c), doorUploads(c)),
      201,
    ),
);

/**
 * pretix: a credential that may check in but not view orders finds nothing with a search term
 * shorter than 3 characters (no browsing of all tickets at the door).
 */
export function searchTooShort(c: AppContext, search: string | undefined): boolean {
  return !hasPermission(c.var.principal, "can_view_orders") && (search ?? "").length < 3;
}

/** pretix's answer of an annulment. */
const annulResponse = z.object({ status: z.literal("ok") }).meta({ id: "AnnulAnswer" });

/**
 * Takes back a check-in the scanner made (pretix 2025: turnstiles and pretixSCAN's kiosk mode),
 * named by its nonce; refusals as pretix words them (services/checkin/checkin-annul.ts).
 */
checkinRoutes.post(
  `${base}/annul`,
  organizerScope("checkin:scan", { perObject: true }),
  doc.ok(annulResponse, {
    summary: "Annul a check-in made in error",
    description:
      "The check-in with the nonce on one of the lists (one per event) becomes a failed one, `annulled`, with the explanation; a device may annul only its own check-ins, within 15 minutes of their time.",
    answers: {
      400: {
        description:
          'Refused: `["Multiple check-ins found based on nonce"]` or `["Cannot annul an unsuccessful checkin"]` (a bare list, as pretix answers), the time or device as `non_field_errors`, or field errors.',
        schema: z.array(z.string()),
      },
    },
    failures: ["unavailable", "not_found"],
  }),
  jsonBody(annulInput),
  async (c) => c.json(await annulCheckin(organizerContext(c), c.var.principal, c.req.valid("json"))),
);

/** The most lists one search reads together (each adds its condition to the statement). */
export const MAX_SEARCH_LISTS = 100;

/** `list` (repeatable): the lists to search; values that are no id are ignored. */
const listIdsParam: QueryParam<number[]> = {
  description: `a check-in list's id (repeatable; at least one, at most ${MAX_SEARCH_LISTS})`,
  schema: { type: "array", items: { type: "integer" }, maxItems: MAX_SEARCH_LISTS },
  style: "form",
  explode: true,
  read: (c, name) => [...new Set((c.req.queries(name) ?? []).filter((l) => /^\d{1,15}$/.test(l)).map(Number))],
};

/** A search for tickets across lists of distinct events (pretix: the lists must exist and be the caller's, else 403). */
checkinRoutes.get(
  `${base}/search`,
  organizerScope("checkin:read", { perObject: true }),
  doc.list(checkinPositionResponse, {
    summary: "Search tickets on several check-in lists",
    description:
      "Without `can_view_orders` (a check-in permission only), a search term under 3 characters finds nothing.",
    ordering: positionOrdering([]),
    answers: { 400: { description: LIST_MESSAGES, schema: listMessages } },
  }),
  queryParams({ list: listIdsParam, ...POSITION_FILTER_PARAMS, expand: expandParam }),
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const ids = f.list ?? [];
    const ctx = organizerContext(c);
    if (ids.length > MAX_SEARCH_LISTS)
      throw badRequest(`Ensure no more than ${MAX_SEARCH_LISTS} check-in lists are passed.`);
    const resolved = await searchableLists(ctx, c.var.principal, ids);
    if (searchTooShort(c, f.search)) return respondPage(c, req, { count: 0, rows: [] }, (p: never) => p);
    // the lists' settings are read in the statement: one round trip for the page
    const lists = resolved.map((l) => ({ listId: l.listId, eventId: l.home.eventId }));
    const page = await listCheckinPositions(c.var, lists, positionFilters(f), req);
    const expand = expandOf(c);
    const byEvent = Map.groupBy(page.rows, (r) => r.eventId);
    const expanded = new Map(
      await Promise.all(
        [...byEvent].map(
          async ([eventId, rows]) => [eventId, await expandPositions(c, eventId, rows, expand)] as const,
        ),
      ),
    );
    return respondPage(c, req, page, (p) => serializeCheckinPosition(p, downloadBase(c), expanded.get(p.eventId)));
  },
);
