/**
 * Acceptance of gift cards across organizers (pretix docs, gift cards: "Accepting gift cards
 * across different organizers"; pretix offers it only in its web interface). The issuer invites
 * another organizer by slug; the invited organizer accepts; either side removes the connection.
 * While it is active, the acceptor reaches the issuer's cards with `include_accepted=true`.
 */
import { z } from "zod";
import { acceptInvitation, inviteAcceptor, organizerIdBySlug, removeAcceptance } from "../../db/giftcards";
import type { OrganizerContext } from "../context";
import { fieldError, notFound } from "../../lib/failure";

/** POST giftcard_acceptors: the organizer to invite, by slug. */
export const acceptorInput = z.object({ acceptor: z.string().trim().min(1).max(190) });
export type AcceptorInput = z.output<typeof acceptorInput>;

/** A connection as the acceptor's side sees it. */
export type AcceptorRecord = { acceptor: string; active: boolean };
/** A connection as the issuer's side sees it. */
export type IssuerRecord = { issuer: string; active: boolean };

const CANNOT_INVITE = "The selected organizer does not exist or cannot be invited.";

/** Another organizer named by slug (in the path); 404 when it does not exist or is the caller. */
async function otherOrganizer(ctx: OrganizerContext, slug: string): Promise<number> {
  const id = await organizerIdBySlug(ctx.db, slug);
  if (id === undefined || id === ctx.organizer.id) throw notFound();
  return id;
}

/** The issuer invites an organizer to accept its cards (inactive until accepted). */
export async function inviteGiftCardAcceptor(ctx: OrganizerContext, input: AcceptorInput): Promise<AcceptorRecord> {
  const acceptorId = await organizerIdBySlug(ctx.db, input.acceptor);
  if (acceptorId === undefined || acceptorId === ctx.organizer.id) throw fieldError("acceptor", CANNOT_INVITE);
  // the connection's primary key refuses a second invitation, also one sent at the same time
  if (!(await inviteAcceptor(ctx.db, ctx.organizer.id, acceptorId, ctx.now))) {
    throw fieldError("acceptor", "This organizer has already been invited to accept your gift cards.");
  }
  return { acceptor: input.acceptor, active: false };
}

/** The issuer withdraws an invitation or ends an acceptance. */
export async function removeGiftCardAcceptor(ctx: OrganizerContext, acceptorSlug: string): Promise<void> {
  const acceptorId = await otherOrganizer(ctx, acceptorSlug);
  if (!(await removeAcceptance(ctx.db, ctx.organizer.id, acceptorId))) throw notFound();
}

/** The invited organizer accepts the issuer's invitation. */
export async function acceptGiftCardIssuer(ctx: OrganizerContext, issuerSlug: string): Promise<IssuerRecord> {
  const issuerId = await otherOrganizer(ctx, issuerSlug);
  if (!(await acceptInvitation(ctx.db, issuerId, ctx.organizer.id))) throw notFound();
  return { issuer: issuerSlug, active: true };
}

/** The invited organizer declines, or stops accepting the issuer's cards. */
export async function removeGiftCardIssuer(ctx: OrganizerContext, issuerSlug: string): Promise<void> {
  const issuerId = await otherOrganizer(ctx, issuerSlug);
  if (!(await removeAcceptance(ctx.db, issuerId, ctx.organizer.id))) throw notFound();
}
