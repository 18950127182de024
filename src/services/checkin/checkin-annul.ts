/**
 * Annulling a check-in (pretix docs checkin.rst "Annulment of a check-in", `checkinrpc/annul/`): an
 * automated entry (a turnstile, pretixSCAN's kiosk) takes back a check-in when the person did not get
 * in. It is named by its scan's nonce on the given lists; a device sees only its own check-ins, within
 * pretix's 15 minutes of the scanner's `datetime` (so offline annulments count). It then shows as
 * failed, `annulled`; the event's Durable Object takes it back (objects/event/annul.ts).
 */
import { z } from "zod";
import { checkinsWithNonce } from "../../db/checkin/passages";
import { Failure, nonFieldError, notFound } from "../../lib/failure";
import type { AnnulOutcome } from "../../objects/event/types";
import { dateTime } from "../../rules/fields";
import { resolveLists, type Scanner } from "./checkin-redeem";
import type { OrganizerContext } from "../context";
import { withEventObject } from "../../objects/client";
import { survivingD1Faults } from "../faults";
import { readSettled } from "../orders/settled-reads";

/** pretix's window for an annulment after the check-in's time. */
export const ANNUL_WINDOW_MS = 15 * 60_000;

/** Body of `checkinrpc/annul` (pretix checkin.rst). */
export const annulInput = z.object({
  lists: z.array(z.number().int().min(1)).min(1).max(50),
  nonce: z.string().min(1).max(190),
  datetime: dateTime().nullable().optional(),
  error_explanation: z.string().max(1000).nullable().optional(),
});
export type AnnulInput = z.output<typeof annulInput>;

/** pretix answers these refusals as a bare list of one message. */
const refused = (message: string) => new Failure("invalid", message, { body: [message] });

/** Annuls the check-in the nonce names; `{"status": "ok"}`, else pretix's refusal. */
export const annulCheckin = survivingD1Faults(async function annulCheckin(
  ctx: OrganizerContext,
  scanner: Scanner,
  input: AnnulInput,
): Promise<{ status: "ok" }> {
  const lists = await resolveLists(ctx, scanner, input.lists);
  // a scan answered moments ago may not be in D1 yet: its event's object writes what it holds first
  const found = await readSettled(
    ctx,
    lists.map((l) => ({ id: l.home.eventId, geoLat: l.home.geoLat, geoLon: l.home.geoLon })),
    (db) =>
      checkinsWithNonce(
        db,
        lists.map((l) => l.listId),
        input.nonce,
        scanner.deviceId,
      ),
    (rows) => rows.length > 0,
  );
  if (found.length === 0) throw notFound("No check-in found based on nonce");
  if (found.length > 1) throw refused("Multiple check-ins found based on nonce");
  const ci = found[0]!;
  if (!ci.successful || ci.positionId === null || ci.secret === null)
    throw refused("Cannot annul an unsuccessful checkin");
  if ((input.datetime ?? ctx.now) - ci.datetime > ANNUL_WINDOW_MS)
    throw nonFieldError("Annulment is not allowed more than 15 minutes after check-in");
  if (ci.deviceId !== null && ci.deviceId !== scanner.deviceId)
    throw nonFieldError("Annulment is only allowed from the same device");
  const home = lists.find((l) => l.listId === ci.listId)!.home;
  const outcome = await withEventObject<AnnulOutcome>(
    ctx.env,
    { id: home.eventId, geoLat: home.geoLat, geoLon: home.geoLon },
    (s, call) =>
      s.annul(call, {
        uid: ci.uid,
        ticketId: ci.positionId!,
        secret: ci.secret!,
        explanation: input.error_explanation ?? null,
      }),
  );
  // annulled meanwhile by another request
  if (outcome !== "annulled") throw refused("Cannot annul an unsuccessful checkin");
  return { status: "ok" };
});
