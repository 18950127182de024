/**
 * Acceptance of gift cards across organizers: the API form of pretix's "Gift cards → Acceptance" page
 * (services/payments/giftcard-acceptance.ts), under `giftcard_acceptors/` (the issuer's invitations) and
 * `giftcard_issuers/` (the acceptor's side); can_change_organizer_settings, as pretix's page.
 * Routes: docs/open-points.md "gift card acceptance".
 */
import { Hono } from "hono";
import { z } from "zod";
import { listAcceptors, listIssuers } from "../services/payments/payment-reads";
import {
  acceptGiftCardIssuer,
  type AcceptorRecord,
  acceptorInput,
  inviteGiftCardAcceptor,
  type IssuerRecord,
  removeGiftCardAcceptor,
  removeGiftCardIssuer,
} from "../services/payments/giftcard-acceptance";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { organizerScope } from "../http/tenancy";
import { jsonBody } from "../http/validation";

/** An organizer invited to accept (or accepting) the caller's gift cards. */
export const giftCardAcceptorResponse = z
  .object({
    acceptor: z.string().meta({ description: "organizer slug" }),
    active: z.boolean().meta({ description: "the invitation was accepted" }),
  })
  .meta({ id: "GiftCardAcceptor" });
export type GiftCardAcceptorResponse = z.infer<typeof giftCardAcceptorResponse>;

/** An organizer that invited the caller to accept its gift cards (or whose cards the caller accepts). */
export const giftCardIssuerResponse = z
  .object({
    issuer: giftCardAcceptorResponse.shape.acceptor,
    active: giftCardAcceptorResponse.shape.active,
  })
  .meta({ id: "GiftCardIssuer" });
export type GiftCardIssuerResponse = z.infer<typeof giftCardIssuerResponse>;

export function serializeAcceptor(r: AcceptorRecord): GiftCardAcceptorResponse {
  return { acceptor: r.acceptor, active: r.active };
}

export function serializeIssuer(r: IssuerRecord): GiftCardIssuerResponse {
  return { issuer: r.issuer, active: r.active };
}

export const giftCardAcceptanceRoutes = new Hono<AppEnv>();
const doc = apiDocs("Gift card acceptance");
const perm = organizerScope("can_change_organizer_settings");
const acceptors = "/organizers/:organizer/giftcard_acceptors";
const issuers = "/organizers/:organizer/giftcard_issuers";

giftCardAcceptanceRoutes.get(
  acceptors,
  perm,
  doc.list(giftCardAcceptorResponse, { summary: "List organizers invited to accept this organizer's gift cards" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await listAcceptors(organizerContext(c), req), serializeAcceptor);
  },
);

giftCardAcceptanceRoutes.post(
  acceptors,
  perm,
  doc.created(giftCardAcceptorResponse, { summary: "Invite an organizer to accept this organizer's gift cards" }),
  jsonBody(acceptorInput),
  async (c) => c.json(serializeAcceptor(await inviteGiftCardAcceptor(organizerContext(c), c.req.valid("json"))), 201),
);

giftCardAcceptanceRoutes.delete(
  `${acceptors}/:acceptor`,
  perm,
  doc.noContent({ summary: "Withdraw an invitation or acceptance" }),
  async (c) => {
    await removeGiftCardAcceptor(organizerContext(c), c.req.param("acceptor") ?? "");
    return c.body(null, 204);
  },
);

giftCardAcceptanceRoutes.get(
  issuers,
  perm,
  doc.list(giftCardIssuerResponse, { summary: "List organizers whose gift cards this organizer is invited to accept" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await listIssuers(organizerContext(c), req), serializeIssuer);
  },
);

giftCardAcceptanceRoutes.post(
  `${issuers}/:issuer/accept`,
  perm,
  doc.ok(giftCardIssuerResponse, { summary: "Accept an invitation to accept gift cards" }),
  async (c) => c.json(serializeIssuer(await acceptGiftCardIssuer(organizerContext(c), c.req.param("issuer") ?? ""))),
);

giftCardAcceptanceRoutes.delete(
  `${issuers}/:issuer`,
  perm,
  doc.noContent({ summary: "Decline or stop accepting an issuer's gift cards" }),
  async (c) => {
    await removeGiftCardIssuer(organizerContext(c), c.req.param("issuer") ?? "");
    return c.body(null, 204);
  },
);
