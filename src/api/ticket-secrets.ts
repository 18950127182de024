/**
 * The lists of secrets that scanners download to refuse tickets offline: `revokedsecrets/` and
 * `blockedsecrets/` (pretix docs orders.rst; libpretixsync's `RevokedTicketSecretSyncAdapter`,
 * `BlockedTicketSecretSyncAdapter`). Filters, orderings and conditional fetching:
 * docs/open-points.md "revoked and blocked secrets".
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  BLOCKED_ORDERING,
  type BlockedSecretRow,
  listBlockedSecrets,
  listRevokedSecrets,
  REVOKED_ORDERING,
  type RevokedSecretRow,
} from "../services/tickets/ticket-reads";
import { modifiedSinceParam, notModified, setPageGenerated } from "../http/conditional";
import { type AppEnv, eventContext } from "../http/context";
import { apiDocs } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { q, queryParams } from "../http/validation";
import { toIso } from "../lib/datetime";

export const revokedSecretResponse = z
  .object({ id: id(), secret: z.string(), created: dateTime() })
  .meta({ id: "RevokedSecret" });
export const blockedSecretResponse = z
  .object({ id: id(), secret: z.string(), updated: dateTime(), blocked: z.boolean() })
  .meta({ id: "BlockedSecret" });

export function serializeRevokedSecret(r: RevokedSecretRow): z.infer<typeof revokedSecretResponse> {
  return { id: r.id, secret: r.secret, created: toIso(r.created) };
}

export function serializeBlockedSecret(r: BlockedSecretRow): z.infer<typeof blockedSecretResponse> {
  return { id: r.id, secret: r.secret, updated: toIso(r.updated), blocked: r.blocked };
}

/** The later of pretix's `…_since` filter and the service's `modified_since` (both: entries at or after). */
function since(...values: (number | undefined)[]): number | undefined {
  const given = values.filter((v): v is number => v !== undefined);
  return given.length ? Math.max(...given) : undefined;
}

export const ticketSecretRoutes = new Hono<AppEnv>();
const ev = "/organizers/:organizer/events/:event";
const read = eventScope("can_view_orders");
const doc = apiDocs("Scanner sync");
const sinceText = "(with `modified_since`, the later of both applies)";

ticketSecretRoutes.get(
  `${ev}/revokedsecrets`,
  read,
  doc.list(revokedSecretResponse, {
    summary: "List revoked ticket secrets",
    description:
      "Secrets tickets had before they were re-issued, changed or canceled with signed secrets: scanners refuse them offline. `X-Page-Generated` is the time to pass back as `created_since`.",
    ordering: REVOKED_ORDERING,
    conditional: true,
  }),
  queryParams({
    created_since: q.dateTime(`only secrets revoked at or after then ${sinceText}`),
    modified_since: modifiedSinceParam,
  }),
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    setPageGenerated(c, Date.now());
    const page = await listRevokedSecrets(
      eventContext(c),
      { createdSince: since(f.created_since, f.modified_since) },
      req,
    );
    return notModified(c, page.lastModified) ?? respondPage(c, req, page, serializeRevokedSecret);
  },
);

ticketSecretRoutes.get(
  `${ev}/blockedsecrets`,
  read,
  doc.list(blockedSecretResponse, {
    summary: "List blocked ticket secrets",
    description:
      "Secrets of tickets that are blocked, or were (`blocked` false), newest change first. `X-Page-Generated` is the time to pass back as `updated_since`.",
    ordering: BLOCKED_ORDERING,
    conditional: true,
  }),
  queryParams({
    updated_since: q.dateTime(`only secrets changed at or after then ${sinceText}`),
    modified_since: modifiedSinceParam,
    blocked: q.bool("only blocked (`true`) or unblocked (`false`) secrets"),
  }),
  async (c) => {
    const req = listRequest(c);
    const f = c.req.valid("query");
    setPageGenerated(c, Date.now());
    const page = await listBlockedSecrets(
      eventContext(c),
      { updatedSince: since(f.updated_since, f.modified_since), blocked: f.blocked },
      req,
    );
    return notModified(c, page.lastModified) ?? respondPage(c, req, page, serializeBlockedSecret);
  },
);
