/**
 * Acceptance of gift cards across organizers: the API form of pretix's "Gift cards →
 * Acceptance" page, which pretix offers only in its web interface (pretix docs, gift cards:
 * "Accepting gift cards across different organizers"). The issuer invites another organizer
 * by slug; the invited organizer accepts; either side removes the connection. While it is
 * active, the acceptor reaches the issuer's cards with `include_accepted=true`. Needs
 * can_change_organizer_settings, as the pretix page does.
 *
 * - GET    /organizers/{o}/giftcard_acceptors/            organizers invited to accept o's cards
 * - POST   /organizers/{o}/giftcard_acceptors/            {"acceptor": "<slug>"}: invite (201)
 * - DELETE /organizers/{o}/giftcard_acceptors/{slug}/     withdraw the invitation / acceptance (204)
 * - GET    /organizers/{o}/giftcard_issuers/              organizers that invited o
 * - POST   /organizers/{o}/giftcard_issuers/{slug}/accept/ accept an invitation (200)
 * - DELETE /organizers/{o}/giftcard_issuers/{slug}/       decline / stop accepting (204)
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  acceptInvitation,
  acceptorCount,
  acceptorPage,
  inviteAcceptor,
  issuerCount,
  issuerPage,
  organizerIdBySlug,
  removeAcceptance,
} from "../db/giftcards";
import type { AppContext, AppEnv } from "../http/context";
import { fieldError, notFound } from "../domain/failure";
import { envelope, pageRequest } from "../http/pagination";
import { organizerScope } from "../http/tenancy";
import { jsonBody } from "../http/validation";

export const giftCardAcceptanceRoutes = new Hono<AppEnv>();
const perm = organizerScope("can_change_organizer_settings");
const acceptors = "/organizers/:organizer/giftcard_acceptors";
const issuers = "/organizers/:organizer/giftcard_issuers";

/** Another organizer named in the path; 404 when it does not exist or is the caller. */
async function otherOrganizer(c: AppContext, param: string): Promise<number> {
  const id = await organizerIdBySlug(c.var.db, c.req.param(param) ?? "");
  if (id === undefined || id === c.var.organizer.id) throw notFound();
  return id;
}

giftCardAcceptanceRoutes.get(acceptors, perm, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([acceptorCount(db, orgId), acceptorPage(db, orgId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows));
});

const CANNOT_INVITE = "The selected organizer does not exist or cannot be invited.";

giftCardAcceptanceRoutes.post(acceptors, perm, jsonBody(z.object({ acceptor: z.string().trim().min(1).max(190) })), async (c) => {
  const slug = c.req.valid("json").acceptor;
  const acceptorId = await organizerIdBySlug(c.var.db, slug);
  if (acceptorId === undefined || acceptorId === c.var.organizer.id) throw fieldError("acceptor", CANNOT_INVITE);
  if (!(await inviteAcceptor(c.var.db, c.var.organizer.id, acceptorId, Date.now()))) {
    throw fieldError("acceptor", "This organizer has already been invited to accept your gift cards.");
  }
  return c.json({ acceptor: slug, active: false }, 201);
});

giftCardAcceptanceRoutes.delete(`${acceptors}/:acceptor`, perm, async (c) => {
  const acceptorId = await otherOrganizer(c, "acceptor");
  if (!(await removeAcceptance(c.var.db, c.var.organizer.id, acceptorId))) throw notFound();
  return c.body(null, 204);
});

giftCardAcceptanceRoutes.get(issuers, perm, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const orgId = c.var.organizer.id;
  const [[total], rows] = await db.batch([issuerCount(db, orgId), issuerPage(db, orgId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows));
});

giftCardAcceptanceRoutes.post(`${issuers}/:issuer/accept`, perm, async (c) => {
  const issuerId = await otherOrganizer(c, "issuer");
  if (!(await acceptInvitation(c.var.db, issuerId, c.var.organizer.id))) throw notFound();
  return c.json({ issuer: c.req.param("issuer"), active: true });
});

giftCardAcceptanceRoutes.delete(`${issuers}/:issuer`, perm, async (c) => {
  const issuerId = await otherOrganizer(c, "issuer");
  if (!(await removeAcceptance(c.var.db, issuerId, c.var.organizer.id))) throw notFound();
  return c.body(null, 204);
});
