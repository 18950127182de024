/**
 * Waiting list entries (pretix docs waitinglist.rst): list with pretix's filters, detail,
 * create, PUT / PATCH, delete, and `send_voucher`. Reading needs can_view_orders, writing
 * can_change_orders (pretix's). The checks are services/waitinglist/waitinglist.ts; vouchers, manual and
 * automatic, services/waitinglist/waitinglist-assign.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  listWaitingEntries,
  WAITINGLIST_ORDERING,
  type WaitingEntryRow,
} from "../services/waitinglist/waitinglist-reads";
import { type AppEnv, eventContext } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";
import {
  changeWaitingEntry,
  createWaitingEntry,
  loadWaitingEntry,
  removeWaitingEntry,
  waitingEntryInput,
  waitingEntryPatch,
} from "../services/waitinglist/waitinglist";
import { sendWaitingListVoucher } from "../services/waitinglist/waitinglist-assign";

export const waitingEntryResponse = z
  .object({
    id: id(),
    created: dateTime(),
    name: z.string().nullable(),
    name_parts: z.record(z.string(), z.string()),
    email: z.string(),
    phone: z.string().nullable(),
    voucher: id().nullable(),
    item: id(),
    variation: id().nullable(),
    locale: z.string(),
    priority: z.number().int(),
    subevent: id().nullable(),
  })
  .meta({ id: "WaitingListEntry" });
export type WaitingEntryResponse = z.infer<typeof waitingEntryResponse>;

export function serializeWaitingEntry(e: WaitingEntryRow): WaitingEntryResponse {
  return {
    id: e.id,
    created: toIso(e.createdAt),
    name: e.nameCached,
    name_parts: e.nameParts,
    email: e.email,
    phone: e.phone,
    voucher: e.voucherId,
    item: e.itemId,
    variation: e.variationId,
    locale: e.locale,
    priority: e.priority,
    subevent: e.subeventId,
  };
}

export const waitinglistRoutes = new Hono<AppEnv>();
const doc = apiDocs("Waiting list");
const read = eventScope("can_view_orders");
const write = eventScope("can_change_orders");
const base = "/organizers/:organizer/events/:event/waitinglistentries";
const filters = queryParams({
  email: q.string(),
  locale: q.string(),
  has_voucher: q.bool(),
  item: q.int(),
  variation: q.int(),
  subevent: q.int(),
});

waitinglistRoutes.get(
  base,
  read,
  doc.list(waitingEntryResponse, { summary: "List waiting list entries", ordering: WAITINGLIST_ORDERING }),
  filters,
  async (c) => {
    const req = listRequest(c);
    const page = await listWaitingEntries(eventContext(c), c.req.valid("query"), req);
    return respondPage(c, req, page, serializeWaitingEntry);
  },
);

waitinglistRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(waitingEntryResponse, { summary: "Waiting list entry detail" }),
  async (c) => c.json(serializeWaitingEntry(await loadWaitingEntry(eventContext(c), pathId(c, "id")))),
);

waitinglistRoutes.post(
  base,
  write,
  doc.created(waitingEntryResponse, {
    summary: "Put someone on the waiting list",
    description: "Refused (400) for a product that is available, and for an address already waiting for it.",
    failures: ["unavailable"],
  }),
  jsonBody(waitingEntryInput),
  async (c) => c.json(serializeWaitingEntry(await createWaitingEntry(eventContext(c), c.req.valid("json"))), 201),
);

waitinglistRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(waitingEntryResponse, {
    summary: "Replace a waiting list entry",
    description: "An entry that was sent a voucher cannot be changed (403).",
    failures: ["unavailable"],
  }),
  jsonBody(waitingEntryInput),
  async (c) =>
    c.json(
      serializeWaitingEntry(await changeWaitingEntry(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    ),
);

waitinglistRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(waitingEntryResponse, {
    summary: "Change a waiting list entry",
    description: "An entry that was sent a voucher cannot be changed (403).",
    failures: ["unavailable"],
  }),
  jsonBody(waitingEntryPatch),
  async (c) =>
    c.json(
      serializeWaitingEntry(await changeWaitingEntry(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    ),
);

waitinglistRoutes.delete(
  `${base}/:id`,
  write,
  doc.noContent({
    summary: "Delete a waiting list entry",
    description: "An entry that was sent a voucher cannot be deleted (403).",
  }),
  async (c) => {
    await removeWaitingEntry(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);

waitinglistRoutes.post(
  `${base}/:id/send_voucher`,
  write,
  doc.noContent({
    summary: "Send a waiting list voucher",
    description:
      "Creates a single-use voucher for the entry's product (blocking one unit of quota, valid for the event setting waiting_list_hours) and mails it. 400 when the entry has a voucher already or the product has no unit left.",
    failures: ["busy"],
  }),
  async (c) => {
    await sendWaitingListVoucher(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
