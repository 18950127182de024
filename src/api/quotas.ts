/**
 * Quotas (docs/open-points.md row 14: pretix docs quotas.rst), with real availability from the event
 * object. The routes parse, scope, call the quota services (services/catalog/quotas.ts) and serialize.
 */
import { Hono } from "hono";
import { z } from "zod";
import { findQuota, listQuotas, QUOTA_ORDERING, type QuotaRecord } from "../services/catalog/catalog-reads";
import { notFound } from "../lib/failure";
import type { Availability } from "../rules/inventory";
import {
  changeQuota,
  createQuota,
  deleteQuota,
  quotaAvailability,
  quotaInput,
  quotaPatch,
} from "../services/catalog/quotas";
import { notModified } from "../http/conditional";
import { type AppContext, type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId, q, queryParams } from "../http/validation";

/** A quota's availability (pretix docs quotas.rst, "availability"). */
export const quotaAvailabilityResponse = z
  .object({
    available: z.boolean(),
    available_number: z.number().int().nullable(),
    total_size: z.number().int().nullable(),
    pending_orders: z.number().int(),
    paid_orders: z.number().int(),
    exited_orders: z.number().int(),
    cart_positions: z.number().int(),
    blocking_vouchers: z.number().int(),
    waiting_list: z.number().int(),
  })
  .meta({ id: "QuotaAvailability" });
export type QuotaAvailabilityResponse = z.infer<typeof quotaAvailabilityResponse>;

/** A quota; `available` and `available_number` only with `with_availability=true`. */
export const quotaResponse = z
  .object({
    id: id(),
    name: z.string(),
    size: z.number().int().nullable(),
    items: z.array(id()),
    variations: z.array(id()),
    subevent: id().nullable(),
    close_when_sold_out: z.boolean(),
    closed: z.boolean(),
    release_after_exit: z.boolean(),
    ignore_for_event_availability: z.boolean(),
    ...quotaAvailabilityResponse.pick({ available: true, available_number: true }).partial().shape,
  })
  .meta({ id: "Quota" });
export type QuotaResponse = z.infer<typeof quotaResponse>;

export function serializeQuota(q: QuotaRecord, availability?: Availability): QuotaResponse {
  return {
    id: q.id,
    name: q.name,
    size: q.size,
    items: q.items,
    variations: q.variations,
    subevent: q.subeventId,
    close_when_sold_out: q.closeWhenSoldOut,
    closed: q.closed,
    release_after_exit: q.releaseAfterExit,
    ignore_for_event_availability: q.ignoreForEventAvailability,
    ...(availability ? { available: availability.available, available_number: availability.available_number } : {}),
  };
}

export function serializeQuotaAvailability(a: Availability): QuotaAvailabilityResponse {
  return {
    available: a.available,
    available_number: a.available_number,
    total_size: a.total_size,
    pending_orders: a.pending_orders,
    paid_orders: a.paid_orders,
    exited_orders: a.exited_orders,
    cart_positions: a.cart_positions,
    blocking_vouchers: a.blocking_vouchers,
    waiting_list: a.waiting_list,
  };
}

async function loadQuota(c: AppContext): Promise<QuotaRecord> {
  const q = await findQuota(eventContext(c), pathId(c, "id"));
  if (!q) throw notFound();
  return q;
}

export const quotaRoutes = new Hono<AppEnv>();
const doc = apiDocs("Quotas");
const withAvailability = q.bool("adds `available` and `available_number`");
const quotaFilters = queryParams({ subevent: q.int("sub-event id"), with_availability: withAvailability });
const availabilityQuery = queryParams({ with_availability: withAvailability });
const base = "/organizers/:organizer/events/:event/quotas";
const read = eventScope(null);
const write = eventScope("can_change_items");

quotaRoutes.get(
  base,
  read,
  doc.list(quotaResponse, {
    summary: "List quotas",
    ordering: QUOTA_ORDERING,
    conditional: true,
    failures: ["unavailable"],
  }),
  quotaFilters,
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    const filter = { subeventId: f.subevent };
    const withAvailability = f.with_availability ?? false;
    const page = await listQuotas(eventContext(c), filter, req);
    const cached = notModified(c, page.lastModified);
    if (cached && !withAvailability) return cached;
    const availability = withAvailability
      ? await quotaAvailability(
          eventContext(c),
          page.rows.map((q) => q.id),
        )
      : {};
    return respondPage(c, req, page, (q) => serializeQuota(q, withAvailability ? availability[q.id] : undefined));
  },
);

quotaRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(quotaResponse, { summary: "Quota detail", failures: ["unavailable"] }),
  availabilityQuery,
  async (c) => {
    const q = await loadQuota(c);
    const withAvailability = c.req.valid("query").with_availability ?? false;
    const availability = withAvailability ? (await quotaAvailability(eventContext(c), [q.id]))[q.id] : undefined;
    return c.json(serializeQuota(q, availability));
  },
);

quotaRoutes.get(
  `${base}/:id/availability`,
  read,
  doc.ok(quotaAvailabilityResponse, { summary: "A quota's availability", failures: ["unavailable"] }),
  async (c) => {
    const q = await loadQuota(c);
    const a = (await quotaAvailability(eventContext(c), [q.id]))[q.id];
    if (!a) throw notFound();
    return c.json(serializeQuotaAvailability(a));
  },
);

quotaRoutes.post(
  base,
  write,
  doc.created(quotaResponse, { summary: "Create a quota" }),
  jsonBody(quotaInput),
  async (c) => c.json(serializeQuota(await createQuota(eventContext(c), c.req.valid("json"))), 201),
);

quotaRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(quotaResponse, { summary: "Replace a quota" }),
  jsonBody(quotaInput),
  async (c) => c.json(serializeQuota(await changeQuota(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put"))),
);

quotaRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(quotaResponse, { summary: "Change a quota" }),
  jsonBody(quotaPatch),
  async (c) =>
    c.json(serializeQuota(await changeQuota(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch"))),
);

async function removeQuota(c: AppContext) {
  await deleteQuota(eventContext(c), pathId(c, "id"));
  return c.body(null, 204);
}
quotaRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete a quota" }), removeQuota);
// pretix documents the delete path in the singular too
quotaRoutes.delete(
  "/organizers/:organizer/events/:event/quota/:id",
  write,
  doc.noContent({ summary: "Delete a quota (singular path)" }),
  removeQuota,
);
