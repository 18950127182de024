/**
 * Order positions (pretix docs orders.rst "Fetching individual positions", "Generating new
 * secrets", "Manipulating individual positions"): one ticket by its id, a new secret for it
 * (the re-issue: with signed secrets the old one is revoked), and its blocks. The ticket's
 * resource is the order position of the orders family.
 */
import { Hono } from "hono";
import { blockInput, changeBlock, loadPosition, regeneratePositionSecret } from "../services/ticket-changes";
import { apiDownloadUrls, orderDownloads } from "../services/tickets";
import { type AppContext, type AppEnv, eventContext, publicBase } from "../http/context";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import type { OrderRecord, PositionJson } from "../db/orders";
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
