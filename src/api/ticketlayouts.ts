/**
 * Ticket layouts (docs/api.md; pretix docs ticketoutputpdf.rst) and their item assignments:
 * read with access to the event, written with can_change_event_settings. `.../ticketlayoutitems/` also
 * takes POST and DELETE (with can_change_items): pretix documents the resource but assigns through its
 * product form, which this service lacks; `item_assignments` on a layout is read-only. Rules and
 * services: services/tickets/ticketlayouts.ts; the background upload goes through http/files.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  type LayoutItemRow,
  listLayoutItems,
  listTicketLayouts,
  type TicketLayoutRecord,
} from "../services/tickets/ticket-reads";
import type { StoreUpload } from "../services/catalog/catalog-fields";
import {
  assignLayoutItem,
  createTicketLayout,
  deleteTicketLayout,
  layoutItemInput,
  loadLayoutItem,
  loadTicketLayout,
  ticketLayoutInput,
  ticketLayoutPatch,
  unassignLayoutItem,
  updateTicketLayout,
} from "../services/tickets/ticketlayouts";
import { mediaUrl } from "../rules/urls";
import { type AppContext, type AppEnv, eventContext, publicBase } from "../http/context";
import { resolveFileField } from "../http/files";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { id, object, url } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";

export const layoutItemResponse = z
  .object({
    id: id(),
    layout: id(),
    item: id(),
    sales_channel: z.string(),
  })
  .meta({ id: "TicketLayoutItem" });
export type LayoutItemResponse = z.infer<typeof layoutItemResponse>;

export const ticketLayoutResponse = z
  .object({
    id: id(),
    name: z.string(),
    default: z.boolean(),
    /** Dynamic elements, exactly as sent. */
    layout: z.array(object()),
    background: url().nullable(),
    /** The layout's assignments without their own id and layout. */
    item_assignments: z.array(layoutItemResponse.pick({ sales_channel: true, item: true })),
  })
  .meta({ id: "TicketLayout" });
export type TicketLayoutResponse = z.infer<typeof ticketLayoutResponse>;

/** `baseUrl`: where the background's media URL points (publicBase of the request). */
export function serializeTicketLayout(
  baseUrl: string,
  { layout: l, assignments }: TicketLayoutRecord,
): TicketLayoutResponse {
  return {
    id: l.id,
    name: l.name,
    default: l.isDefault,
    layout: l.layout as Record<string, unknown>[],
    background: mediaUrl(baseUrl, l.background),
    item_assignments: JSON.parse(assignments) as { sales_channel: string; item: number }[],
  };
}

export function serializeLayoutItem(a: LayoutItemRow): LayoutItemResponse {
  return { id: a.id, layout: a.layoutId, item: a.itemId, sales_channel: a.salesChannel };
}

/** Uploaded files of the request's caller, stored by the HTTP layer. */
function uploads(c: AppContext): StoreUpload {
  return (ref, opts) => resolveFileField(c, opts.field, ref, opts);
}

export const ticketLayoutRoutes = new Hono<AppEnv>();
const doc = apiDocs("Ticket layouts");
const read = eventScope(null);
const write = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/ticketlayouts";

ticketLayoutRoutes.get(base, read, doc.list(ticketLayoutResponse, { summary: "List ticket layouts" }), async (c) => {
  const req = listRequest(c);
  const baseUrl = publicBase(c);
  return respondPage(c, req, await listTicketLayouts(eventContext(c), req), (r) => serializeTicketLayout(baseUrl, r));
});

ticketLayoutRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(ticketLayoutResponse, { summary: "Ticket layout detail" }),
  async (c) => {
    return c.json(serializeTicketLayout(publicBase(c), await loadTicketLayout(eventContext(c), pathId(c, "id"))));
  },
);

ticketLayoutRoutes.post(
  base,
  write,
  doc.created(ticketLayoutResponse, { summary: "Create a ticket layout" }),
  jsonBody(ticketLayoutInput),
  async (c) => {
    const ctx = eventContext(c);
    return c.json(
      serializeTicketLayout(ctx.baseUrl, await createTicketLayout(ctx, c.req.valid("json"), uploads(c))),
      201,
    );
  },
);

ticketLayoutRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(ticketLayoutResponse, { summary: "Replace a ticket layout" }),
  jsonBody(ticketLayoutInput),
  async (c) => {
    const ctx = eventContext(c);
    return c.json(
      serializeTicketLayout(
        ctx.baseUrl,
        await updateTicketLayout(ctx, pathId(c, "id"), c.req.valid("json"), "put", uploads(c)),
      ),
    );
  },
);

ticketLayoutRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(ticketLayoutResponse, { summary: "Change a ticket layout" }),
  jsonBody(ticketLayoutPatch),
  async (c) => {
    const ctx = eventContext(c);
    return c.json(
      serializeTicketLayout(
        ctx.baseUrl,
        await updateTicketLayout(ctx, pathId(c, "id"), c.req.valid("json"), "patch", uploads(c)),
      ),
    );
  },
);

ticketLayoutRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete a ticket layout" }), async (c) => {
  await deleteTicketLayout(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
});

// ---- layout-item assignments ----

const itemsBase = "/organizers/:organizer/events/:event/ticketlayoutitems";
const assign = eventScope("can_change_items");

ticketLayoutRoutes.get(
  itemsBase,
  read,
  doc.list(layoutItemResponse, { summary: "List ticket layout assignments" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await listLayoutItems(eventContext(c), req), serializeLayoutItem);
  },
);

ticketLayoutRoutes.get(
  `${itemsBase}/:id`,
  read,
  doc.ok(layoutItemResponse, { summary: "Ticket layout assignment detail" }),
  async (c) => c.json(serializeLayoutItem(await loadLayoutItem(eventContext(c), pathId(c, "id")))),
);

ticketLayoutRoutes.post(
  itemsBase,
  assign,
  doc.created(layoutItemResponse, { summary: "Assign a ticket layout to an item and sales channel" }),
  jsonBody(layoutItemInput),
  async (c) => {
    return c.json(serializeLayoutItem(await assignLayoutItem(eventContext(c), c.req.valid("json"))), 201);
  },
);

ticketLayoutRoutes.delete(
  `${itemsBase}/:id`,
  assign,
  doc.noContent({ summary: "Remove a ticket layout assignment" }),
  async (c) => {
    await unassignLayoutItem(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
