/**
 * The lists of secrets that scanners download to refuse tickets offline (pretix docs orders.rst
 * "Revoked ticket secrets", "Blocked ticket secrets"; libpretixsync's
 * `RevokedTicketSecretSyncAdapter`, `BlockedTicketSecretSyncAdapter`):
 *
 * - `revokedsecrets/`: secrets tickets had before they were re-issued, changed or canceled with
 *   signed secrets; `ordering` `secret` / `created` (default `-created`), `created_since`;
 * - `blockedsecrets/`: secrets of tickets that are blocked, or were (`blocked` false); newest
 *   change first; `updated_since`, `blocked`.
 *
 * Both send `X-Page-Generated` (the time to pass back as `created_since` / `updated_since`),
 * accept the spec's `modified_since` for the same, and answer `If-Modified-Since` with 304 while
 * the list has not changed (`Last-Modified`).
 */
import { Hono } from "hono";
import { z } from "zod";
import { type BlockedSecretRow, listBlockedSecrets, listRevokedSecrets, type RevokedSecretRow } from "../db/ticket-secrets";
import { modifiedSince, notModified, setPageGenerated } from "../http/conditional";
import type { AppContext, AppEnv } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { dateTime, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { queryBool, queryDateTime } from "../http/validation";
import { toIso } from "../lib/datetime";

export const revokedSecretResponse = z.object({ id: id(), secret: z.string(), created: dateTime() });
export const blockedSecretResponse = z.object({ id: id(), secret: z.string(), updated: dateTime(), blocked: z.boolean() });

export function serializeRevokedSecret(r: RevokedSecretRow): z.infer<typeof revokedSecretResponse> {
  return { id: r.id, secret: r.secret, created: toIso(r.created) };
}

export function serializeBlockedSecret(r: BlockedSecretRow): z.infer<typeof blockedSecretResponse> {
  return { id: r.id, secret: r.secret, updated: toIso(r.updated), blocked: r.blocked };
}

/** The later of pretix's `…_since` filter and the spec's `modified_since` (both: entries at or after). */
function since(c: AppContext, name: string): number | undefined {
  const values = [queryDateTime(c, name), modifiedSince(c)].filter((v): v is number => v !== undefined);
  return values.length ? Math.max(...values) : undefined;
}

export const ticketSecretRoutes = new Hono<AppEnv>();
const ev = "/organizers/:organizer/events/:event";
const read = eventScope("can_view_orders");

ticketSecretRoutes.get(`${ev}/revokedsecrets`, read, async (c) => {
  const req = listRequest(c);
  setPageGenerated(c, Date.now());
  const page = await listRevokedSecrets(c.var.db, c.var.event.id, { createdSince: since(c, "created_since") }, req);
  return notModified(c, page.lastModified) ?? respondPage(c, req, page, serializeRevokedSecret);
});

ticketSecretRoutes.get(`${ev}/blockedsecrets`, read, async (c) => {
  const req = listRequest(c);
  setPageGenerated(c, Date.now());
  const page = await listBlockedSecrets(c.var.db, c.var.event.id, { updatedSince: since(c, "updated_since"), blocked: queryBool(c, "blocked") }, req);
  return notModified(c, page.lastModified) ?? respondPage(c, req, page, serializeBlockedSecret);
});
