/**
 * Vouchers for the waiting list (pretix docs waitinglist.rst): `send_voucher` for one entry,
 * and `offerFreedCapacity`, which every path that frees capacity calls (a cancellation, an
 * expiry, a changed quota, the cron for vouchers that expired): with `waiting_list_auto`, the
 * next entries get vouchers, in order, exactly as many as fit. The event object decides which
 * (objects/event/waitinglist.ts); this prepares the vouchers and their mails.
 */
import type { DB } from "../../db/client";
import { eventById } from "../../db/invoices";
import type { MailInsert } from "../../db/mail";
import { findOrganizerById } from "../../db/organizers";
import type { EventRow, OrganizerRow } from "../../db/tenancy";
import { eventsWithWaitingEntries, findWaitingEntry, waitingInOrder } from "../../db/waitinglist";
import { readConfig, type Env } from "../../lib/env";
import { badRequest, notFound } from "../../lib/failure";
import { i18nText } from "../../lib/i18n";
import { log } from "../../lib/log";
import { dispatchMail } from "../../lib/queues";
import { inventoryStamp, withEventObject } from "../../objects/client";
import type { WaitingCandidate, WaitingOutcome } from "../../objects/event/waitinglist";
import { eventPublicUrl } from "../../rules/urls";
import { autoAssignmentOpen } from "../../rules/waitinglist";
import type { EventContext } from "../context";
import { survivingD1Faults } from "../faults";
import { composeMail } from "../mail/mail";
import { eventSettingsFor } from "../events/settings";
import { generatedCode } from "../catalog/vouchers";

/** What an assignment needs: the event's bindings and database; organizer and base URL are read when not given. */
export type WaitingScope = { env: Env; db: DB; event: EventRow; organizer?: OrganizerRow; baseUrl?: string };

/** Entries read per round, and vouchers given per call of the event object (one D1 batch). */
const CANDIDATES = 200;
const PER_CALL = 25;
/** Rounds of one offer (a run that gives more leaves the rest to the next free or cron). */
const ROUNDS = 8;

type Ready = { scope: WaitingScope & { organizer: OrganizerRow; baseUrl: string }; settings: Record<string, unknown> };

async function prepare(scope: WaitingScope): Promise<Ready | null> {
  const organizer = scope.organizer ?? (await findOrganizerById(scope.db, scope.event.organizerId));
  if (!organizer) return null;
  const baseUrl = scope.baseUrl ?? readConfig(scope.env).publicBaseUrl ?? "";
  const settings = await eventSettingsFor(scope.db, organizer.id, scope.event.id);
  return { scope: { ...scope, organizer, baseUrl }, settings };
}

type EntryRow = Awaited<ReturnType<typeof waitingInOrder>>[number];

/** The voucher an entry would get and the mail that tells it (pretix's waiting list mail). */
function candidate(r: Ready, row: EntryRow, now: number): WaitingCandidate {
  const { scope, settings } = r;
  const e = row.entry;
  const hours = (settings.waiting_list_hours as number | undefined) ?? 48;
  const code = generatedCode();
  const eventName = i18nText(scope.event.name, e.locale);
  const product = row.variationName
    ? `${i18nText(row.itemName, e.locale)} – ${i18nText(row.variationName, e.locale)}`
    : i18nText(row.itemName, e.locale);
  // the event's page with the code (pretix links its shop's `redeem` page; the service has no shop page)
  const url = `${eventPublicUrl(scope.baseUrl, scope.organizer.slug, scope.event.slug)}?voucher=${code}`;
  const text =
    `Hello,\n\nwe are happy to tell you that a ticket for ${product} for ${eventName} is available for you now.\n\n` +
    `Please redeem it within the next ${hours} hours with the voucher code\n\n  ${code}\n\nor by following this link:\n${url}\n\n` +
    `After ${hours} hours the voucher expires and the ticket goes to the next person on the waiting list.\n\n` +
    `Best regards,\n${scope.organizer.name}\n`;
  const mail: MailInsert = composeMail({
    kind: "waiting_list_voucher",
    organizerId: scope.organizer.id,
    eventId: scope.event.id,
    to: e.email,
    subject: `You have been selected from the waiting list for ${eventName}`,
    text,
    fromName: (settings.mail_from_name as string | null) ?? scope.organizer.name,
    replyTo: (settings.contact_mail as string | null) ?? null,
    now,
  });
  return {
    entryId: e.id,
    voucher: {
      code,
      itemId: e.itemId,
      variationId: e.variationId,
      subeventId: e.subeventId,
      validUntil: now + hours * 3_600_000,
      comment: `Automatically created from waiting list entry for ${e.email}`,
    },
    mail,
  };
}

async function assign(r: Ready, candidates: WaitingCandidate[], manual: boolean): Promise<WaitingOutcome> {
  const { env, db, event } = r.scope;
  const stamp = await inventoryStamp(db, event.id);
  const outcome = await withEventObject<WaitingOutcome>(
    env,
    event.id,
    (s, call) => s.assignWaitingList(call, stamp, { candidates, manual, limit: PER_CALL }),
    409,
  );
  const mails = outcome.assigned.map((a) => a.mailId).filter((x): x is number => x !== null);
  if (mails.length) await dispatchMail(env, mails);
  return outcome;
}

/**
 * Capacity may have become free: with `waiting_list_auto` (and before `waiting_list_auto_disable`),
 * the entries next in line get vouchers, as many as fit. Returns how many got one. Never throws:
 * the change that freed the capacity stands; what is left waits for the next free or the cron.
 */
export async function offerFreedCapacity(scope: WaitingScope): Promise<number> {
  try {
    let r: Ready | null = null;
    let given = 0;
    for (let round = 0; round < ROUNDS; round++) {
      // nobody waiting (the common case): one read, nothing else
      const rows = await waitingInOrder(scope.db, scope.event.id, CANDIDATES, { activeItems: true });
      if (rows.length === 0) break;
      r ??= await prepare(scope);
      const ready = r;
      if (!ready || !autoAssignmentOpen(scope.event, ready.settings, Date.now())) break;
      const now = Date.now();
      const outcome = await assign(
        ready,
        rows.map((x) => candidate(ready, x, now)),
        false,
      );
      given += outcome.assigned.length;
      if (outcome.assigned.length < PER_CALL) break;
    }
    return given;
  } catch (e) {
    log.error("waiting list: offering freed capacity failed; the next free or the cron retries", {
      event_id: scope.event.id,
      error: e,
    });
    return 0;
  }
}

/**
 * The cron's pass (pretix's periodic assignment): every event with entries still waiting is
 * offered what is free, so that a voucher that expired unused passes its unit on. Returns how
 * many vouchers were given.
 */
export async function offerToWaitingLists(env: Env, db: DB): Promise<number> {
  let given = 0;
  for (const eventId of await eventsWithWaitingEntries(db)) {
    const event = await eventById(db, eventId);
    if (event) given += await offerFreedCapacity({ env, db, event });
  }
  return given;
}

const HAS_VOUCHER = "A voucher has already been sent to this person.";
const UNAVAILABLE = "This product is currently not available.";

/** `send_voucher`: the entry gets its voucher now if its product has a unit left (400 otherwise). */
export const sendWaitingListVoucher = survivingD1Faults(async function sendWaitingListVoucher(
  ctx: EventContext,
  entryId: number,
): Promise<void> {
  const [row] = await waitingInOrder(ctx.db, ctx.event.id, 1, { ids: [entryId] });
  if (!row) throw (await findWaitingEntry(ctx.db, ctx.event.id, entryId)) ? badRequest(HAS_VOUCHER) : notFound();
  const r = (await prepare(ctx))!;
  const outcome = await assign(r, [candidate(r, row, Date.now())], true);
  if (outcome.assigned.length) return;
  throw badRequest(outcome.refused === "has_voucher" ? HAS_VOUCHER : UNAVAILABLE);
});
