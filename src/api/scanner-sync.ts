/**
 * pretix resources that pretixSCAN's sync reads (libpretixsync, docs/clients.md) of features
 * this service does not have: reusable media, and badge layouts (it prints no badges). Their
 * lists are therefore always empty, answered in pretix's shape (pretix docs reusablemedia.rst,
 * badges.rst): a scanner's sync stops at an error answer here, so these lists are part of what
 * makes it work. (Revoked and blocked secrets are real lists: api/ticket-secrets.ts.)
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../http/context";
import { apiDocs } from "../http/openapi";
import { envelopeSchema, listRequest, respondPage } from "../http/pagination";
import { dateTime, id } from "../http/responses";
import { eventScope, organizerScope } from "../http/tenancy";

export const badgeLayoutResponse = z
  .object({
    id: id(),
    name: z.string(),
    default: z.boolean(),
    layout: z.array(z.unknown()),
    background: z.string().nullable(),
  })
  .meta({ id: "BadgeLayout" });
export const badgeItemResponse = z.object({ id: id(), item: id(), layout: id().nullable() }).meta({ id: "BadgeItem" });
export const reusableMediumResponse = z
  .object({ id: id(), type: z.string(), identifier: z.string(), active: z.boolean(), expires: dateTime().nullable() })
  .meta({ id: "ReusableMedium" });
export const emptyListResponse = envelopeSchema(z.never());

export const scannerCompatRoutes = new Hono<AppEnv>();
const ev = "/organizers/:organizer/events/:event";
const read = eventScope("can_view_orders");

/** An empty page (the first; any later page is past the end: 404, as every list answers). */
const none = (c: Parameters<typeof respondPage>[0]) =>
  respondPage(c, listRequest(c), { count: 0, rows: [] as never[] }, (r: never) => r);

const doc = apiDocs("Scanner sync");
const empty = "Always empty: the service has no such objects (pretixSCAN's sync reads the list).";

scannerCompatRoutes.get(
  `${ev}/badgelayouts`,
  read,
  doc.list(badgeLayoutResponse, { summary: "List badge layouts", description: empty }),
  (c) => none(c),
);
scannerCompatRoutes.get(
  `${ev}/badgeitems`,
  read,
  doc.list(badgeItemResponse, { summary: "List badge layout assignments", description: empty }),
  (c) => none(c),
);
scannerCompatRoutes.get(
  "/organizers/:organizer/reusablemedia",
  organizerScope("can_view_orders"),
  doc.list(reusableMediumResponse, { summary: "List reusable media", description: empty }),
  (c) => none(c),
);
