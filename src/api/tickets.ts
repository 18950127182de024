/**
 * Ticket downloads (pretix docs orders.rst: order and order position ticket download; the
 * positions' `downloads`): `.../orders/{code}/download/pdf/` (all tickets of the order
 * in one PDF) and `.../orderpositions/{id}/download/pdf/`, with can_view_orders. 409 while
 * the file is rendered on the documents queue, 403 when the order's tickets cannot be
 * downloaded (status, product), 404 for another output than `pdf`. The rules are in
 * services/tickets/tickets.ts.
 */
import { Hono } from "hono";
import { notFound } from "../lib/failure";
import { loadOrder } from "../services/orders/order-status";
import { loadPosition } from "../services/tickets/ticket-changes";
import { ticketPdf } from "../services/tickets/tickets";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { apiDocs, type RouteDoc } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { pathId } from "../http/validation";

export const ticketRoutes = new Hono<AppEnv>();
const ev = "/organizers/:organizer/events/:event";
const read = eventScope("can_view_orders");

function output(c: AppContext): void {
  if (c.req.param("output") !== "pdf") throw notFound("Unknown output provider.");
}

function pdf(c: AppContext, file: { body: ReadableStream; filename: string }): Response {
  return c.body(file.body, 200, {
    "Content-Type": "application/pdf",
    "Content-Disposition": `attachment; filename="${file.filename}"`,
  });
}

const doc = apiDocs("Tickets");
const download = (summary: string): RouteDoc & { contentType: string } => ({
  summary,
  description:
    "403 when the order's tickets cannot be downloaded (a pending, canceled or expired order); 409 (`Retry-After`) while the PDF is rendered on the documents queue; 400 when the ticket layout cannot be rendered; 503 when rendering failed for a reason the deployment must fix.",
  contentType: "application/pdf",
  failures: ["invalid", "not_ready", "unavailable"],
});

ticketRoutes.get(
  `${ev}/orders/:code/download/:output`,
  read,
  doc.file(download("Download an order's tickets (one PDF)")),
  async (c) => {
    output(c);
    const r = await loadOrder(eventContext(c), c.req.param("code"));
    return pdf(c, await ticketPdf(c.env, c.var.db, c.var.event, r, null));
  },
);

ticketRoutes.get(
  `${ev}/orderpositions/:id/download/:output`,
  read,
  doc.file(download("Download a ticket (PDF)")),
  async (c) => {
    output(c);
    const id = pathId(c, "id");
    const { record } = await loadPosition(eventContext(c), id, true);
    return pdf(c, await ticketPdf(c.env, c.var.db, c.var.event, record, id));
  },
);
