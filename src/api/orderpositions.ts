/**
 * Order positions (pretix docs orders.rst "List of all order positions", "Fetching individual
 * positions", "Generating new secrets", "Manipulating individual positions"): an event's list,
 * an organizer's over the events whose orders the credential may see, one ticket by its id, a
 * new secret for it (with signed secrets the old one is revoked), and its blocks.
 */
import { Hono } from "hono";
import { z } from "zod";
import { blockInput, changeBlock, loadPosition, regeneratePositionSecret } from "../services/tickets/ticket-changes";
import { eventPositions, organizerPosition, organizerPositions } from "../services/orders/order-lists";
import { apiDownloadUrls, orderDownloads } from "../services/tickets/tickets";
import { type AppContext, type AppEnv, eventContext, organizerContext, publicBase } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { eventScope, organizerScope } from "../http/tenancy";
import { jsonBody, pathId, q, type QueryValues, queryParams } from "../http/validation";
import {
  type OrderRecord,
  type PositionJson,
  ORDER_POSITION_ORDERING,
  type OrderPositionFilter,
} from "../services/orders/order-reads";
import type { CheckinPositionRow } from "../services/checkin/checkin-reads";
import { serializeListedPosition } from "./checkin-serializers";
import { POSITION_FILTER_PARAMS, positionFilters } from "./checkin-expand";
import { type PositionResponse, positionResponse, serializePosition } from "./orders-serializers";

export { positionResponse } from "./orders-serializers";

export const orderPositionRoutes = new Hono<AppEnv>();
const base = "/organizers/:organizer/events/:event/orderpositions";
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");
const doc = apiDocs("Orders");

/** A position with its own `downloads`: those its order lists for it (pretix orders.rst). */
function respond(c: AppContext, r: { record: OrderRecord; position: PositionJson }) {
  const urls = apiDownloadUrls(publicBase(c), c.var.organizer.slug, c.var.event.slug, r.record.order.code);
  const downloads = orderDownloads(r.record, urls).positions.get(r.position.id) ?? [];
  return c.json(serializePosition(r.position, r.record.order.code, downloads) satisfies PositionResponse);
}

const { ignore_status: _, ...filterParams } = POSITION_FILTER_PARAMS;

/** pretix's filters of the order positions list (orders.rst), read and described by `queryParams`. */
const LIST_PARAMS = {
  ...filterParams,
  has_checkin: q.bool("positions checked in (on any list) or not"),
  search: q.string(
    "the start of the secret or the order code, or text in an attendee name or email, the order's email or invoice name; matched literally",
  ),
  pseudonymization_id: q.string(),
  customer: q.string("positions of orders of this customer (identifier)"),
  include_canceled_positions: q.bool("also positions canceled on their own, each with `canceled`"),
  pdf_data: q.ignored({ type: "boolean" }, "the service renders the ticket PDFs itself (`downloads`)."),
};

function listFilter(f: QueryValues<typeof LIST_PARAMS>): OrderPositionFilter {
  const { ignoreStatus: _, ...filters } = positionFilters({ ...f, ignore_status: undefined });
  return {
    ...filters,
    pseudonymizationId: f.pseudonymization_id,
    customer: f.customer,
    includeCanceled: f.include_canceled_positions,
  };
}

export const positionListItemResponse = positionResponse
  .extend({ canceled: z.boolean().optional().meta({ description: "only with `include_canceled_positions`" }) })
  .meta({ id: "OrderPositionListed" });
export const organizerPositionResponse = positionListItemResponse
  .extend({ event: z.string().meta({ description: "The event's slug." }) })
  .meta({ id: "OrganizerOrderPosition" });

/** A listed position: `canceled` shown when canceled ones are asked for, as the orders list does. */
function listed(c: AppContext, withCanceled: boolean) {
  const at = { baseUrl: publicBase(c), organizerSlug: c.var.organizer.slug };
  return (r: CheckinPositionRow) => {
    const shown: z.infer<typeof positionListItemResponse> = serializeListedPosition(r, at);
    if (withCanceled) shown.canceled = r.canceled === 1;
    return shown;
  };
}

const LIST_DESCRIPTION =
  "Positions of canceled orders are listed (`order__status=c` finds them); a position canceled on its own only with `include_canceled_positions`.";

orderPositionRoutes.get(
  base,
  read,
  doc.list(positionListItemResponse, {
    summary: "List an event's order positions",
    description: LIST_DESCRIPTION,
    ordering: ORDER_POSITION_ORDERING,
  }),
  queryParams(LIST_PARAMS),
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const page = await eventPositions(eventContext(c), listFilter(f), req);
    return respondPage(c, req, page, listed(c, !!f.include_canceled_positions));
  },
);

orderPositionRoutes.get(
  "/organizers/:organizer/orderpositions",
  organizerScope("can_view_orders", { perObject: true }),
  doc.list(organizerPositionResponse, {
    summary: "List an organizer's order positions",
    description: `${LIST_DESCRIPTION} Only of the events whose orders the credential may see (none without \`can_view_orders\`: an empty list); each with its event's slug.`,
    ordering: ORDER_POSITION_ORDERING,
  }),
  queryParams(LIST_PARAMS),
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const page = await organizerPositions(organizerContext(c), c.var.principal, listFilter(f), req);
    const show = listed(c, !!f.include_canceled_positions);
    return respondPage(c, req, page, (r) => ({ ...show(r), event: r.eventSlug }));
  },
);

orderPositionRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(positionResponse, { summary: "An order position (ticket)" }),
  queryParams({ include_canceled_positions: q.bool("also a canceled position (else 404)") }),
  async (c) =>
    respond(
      c,
      await loadPosition(eventContext(c), pathId(c, "id"), c.req.valid("query").include_canceled_positions ?? false),
    ),
);

orderPositionRoutes.post(
  `${base}/:id/regenerate_secrets`,
  write,
  doc.ok(positionResponse, {
    summary: "Regenerate a ticket's secret",
    description: "The re-issue: a new secret; with signed ticket secrets the old one is revoked.",
    failures: ["unavailable", "changed"],
  }),
  async (c) => respond(c, await regeneratePositionSecret(eventContext(c), pathId(c, "id"))),
);

orderPositionRoutes.post(
  `${base}/:id/add_block`,
  write,
  doc.ok(positionResponse, {
    summary: "Block a ticket",
    description:
      "Scans answer `blocked` while the ticket has a block (forced scans pass); its secret is on the blocked list.",
    failures: ["unavailable", "changed"],
  }),
  jsonBody(blockInput),
  async (c) => respond(c, await changeBlock(eventContext(c), pathId(c, "id"), c.req.valid("json"), true)),
);

orderPositionRoutes.post(
  `${base}/:id/remove_block`,
  write,
  doc.ok(positionResponse, {
    summary: "Remove a block of a ticket",
    description: "When the last block goes, the secret is marked unblocked on the blocked list.",
    failures: ["unavailable", "changed"],
  }),
  jsonBody(blockInput),
  async (c) => respond(c, await changeBlock(eventContext(c), pathId(c, "id"), c.req.valid("json"), false)),
);

orderPositionRoutes.get(
  "/organizers/:organizer/orderpositions/:id",
  organizerScope("can_view_orders", { perObject: true }),
  doc.ok(organizerPositionResponse, {
    summary: "An order position of any of the organizer's events",
    description:
      "A position of an event whose orders the credential may see (else 404), as the organizer's list shows it; a canceled one only with `include_canceled_positions`.",
  }),
  queryParams({ include_canceled_positions: q.bool("also a canceled position (else 404)") }),
  async (c) => {
    const withCanceled = !!c.req.valid("query").include_canceled_positions;
    const row = await organizerPosition(organizerContext(c), c.var.principal, pathId(c, "id"), withCanceled);
    return c.json({ ...listed(c, withCanceled)(row), event: row.eventSlug });
  },
);
