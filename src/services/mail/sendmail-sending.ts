/**
 * Automated email rules at work, run by the cron (docs/api.md; pretix's sendmail plugin,
 * `plugins/sendmail/models.py` ScheduledMail, `signals.py` sendmail_run_rules, placeholders of
 * `get_email_context`). When a rule is due, to whom it goes and which placeholders it fills:
 * docs/open-points.md "email rules: sending". Each mail is written with its record (rule × date ×
 * order / position) in one transaction, only while that record does not exist: each mail goes out once.
 */
import { dispatchMail } from "../../lib/queues";
import { runBatch, type Statement } from "../../db/batch";
import type { DB } from "../../db/client";
import {
  type RecipientOrder,
  type RuleCandidate,
  ruleCandidates,
  ruleDoneStatement,
  ruleMailStatements,
  ruleRecipients,
  type SendKey,
} from "../../db/sendmail-sends";
import type { Row } from "../../db/raw";
import type { Env } from "../../lib/env";
import { addDays, zonedDate, zonedParts, zonedTimeToUtc } from "../../lib/datetime";
import { i18nText, type I18n } from "../../lib/i18n";
import { formatMoney } from "../../lib/money";
import { fillPlaceholders } from "../../lib/placeholders";
import { composeMail } from "./mail";
import { buildName, type NameParts } from "../../rules/person-names";
import { eventSettingsFor } from "../events/settings";
import { orderUrl } from "../../rules/urls";

const DAY = 86_400_000;
/** pretix sends a scheduled mail up to two days late; afterwards it counts as missed. */
export const RULE_GRACE_MS = 2 * DAY;
/** Orders per transaction. */
const ORDERS_PER_BATCH = 25;

/** When a rule's mails are due for the event or date (pretix: ScheduledMail.recompute). */
export function ruleSendTime(
  c: Pick<
    RuleCandidate,
    | "dateIsAbsolute"
    | "sendDate"
    | "sendOffsetDays"
    | "sendOffsetTime"
    | "offsetToEventEnd"
    | "offsetIsAfter"
    | "dateFrom"
    | "dateTo"
    | "timezone"
  >,
): number | null {
  if (c.dateIsAbsolute) return c.sendDate;
  if (c.sendOffsetDays === null || c.sendOffsetTime === null) return null;
  const base = c.offsetToEventEnd ? (c.dateTo ?? c.dateFrom) : c.dateFrom;
  const [y, m, d] = addDays(zonedDate(base, c.timezone), c.offsetIsAfter ? c.sendOffsetDays : -c.sendOffsetDays);
  const [h, mi, s] = c.sendOffsetTime.split(":").map(Number) as [number, number, number];
  return zonedTimeToUtc(c.timezone, y, m, d, h, mi, s ?? 0);
}

type InvoiceAddress = { company?: string; name_parts?: NameParts };

function json<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}

function nameValues(prefix: string, parts: NameParts): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(parts)) if (!k.startsWith("_") && k !== "full_name") out[`${prefix}${k}`] = v;
  if (parts.full_name !== undefined) out[`${prefix}full_name`] = parts.full_name;
  return out;
}

type MailFacts = { fromName: string | null; replyTo: string | null };

function placeholders(
  c: RuleCandidate,
  o: RecipientOrder,
  positions: Row[],
  position: Row | null,
  baseUrl: string,
): Record<string, string> {
  const ia = json<InvoiceAddress | null>(o.invoice_address) ?? {};
  const invoiceName = buildName(ia.name_parts) ?? "";
  const firstAttendee =
    positions.map((p) => json<NameParts>(p.attendee_name_parts)).find((p) => buildName(p) !== null) ?? {};
  const attendee = position ? (json<NameParts>(position.attendee_name_parts) ?? {}) : null;
  // pretix's get_best_name: an attendee mail names the attendee, else the invoice address; an
  // order mail the invoice address, else the first attendee with a name
  let bestParts: NameParts;
  if (attendee && buildName(attendee)) bestParts = attendee;
  else if (invoiceName) bestParts = ia.name_parts ?? {};
  else bestParts = attendee ? {} : firstAttendee;
  const total = formatMoney(Number(o.total));
  const expires = zonedParts(Number(o.expires), c.timezone);
  const values: Record<string, string> = {
    event: i18nText(json<I18n>(c.eventName), String(o.locale)),
    event_slug: c.eventSlug,
    code: String(o.code),
    total,
    currency: c.currency,
    total_with_currency: `${total} ${c.currency}`,
    expire_date: `${expires.year}-${String(expires.month).padStart(2, "0")}-${String(expires.day).padStart(2, "0")}`,
    url: orderUrl(baseUrl, c.organizerSlug, c.eventSlug, String(o.code), String(o.secret)),
    order_email: o.email === null ? "" : String(o.email),
    invoice_name: invoiceName,
    invoice_company: ia.company ?? "",
    name: buildName(bestParts) ?? "",
    ...nameValues("name_", bestParts),
  };
  if (attendee) {
    values.attendee_name = buildName(attendee) ?? "";
    Object.assign(values, nameValues("attendee_name_", attendee));
  }
  return values;
}

type Recipient = { key: SendKey; to: string; position: Row | null };

/** Who gets the rule's mail of one order (pretix ScheduledMail.send). */
function recipientsOf(c: RuleCandidate, o: RecipientOrder, positions: Row[]): Recipient[] {
  const out: Recipient[] = [];
  const orderKey: SendKey = { ruleId: c.ruleId, subeventId: c.subeventId, orderId: o.id, positionId: 0 };
  const email = o.email === null ? "" : String(o.email);
  let orderSent = false;
  if ((c.sendTo === "orders" || c.sendTo === "both") && email) {
    out.push({ key: orderKey, to: email, position: null });
    orderSent = true;
  }
  if (c.sendTo === "attendees" || c.sendTo === "both") {
    const reached = positions.filter(
      (p) =>
        (c.allProducts || c.items.includes(Number(p.item_id))) &&
        (!c.subeventId || Number(p.subevent_id) === c.subeventId),
    );
    for (const p of reached) {
      const attendeeEmail = p.attendee_email === null ? "" : String(p.attendee_email);
      if (attendeeEmail && (attendeeEmail !== email || !orderSent)) {
        out.push({ key: { ...orderKey, positionId: Number(p.id) }, to: attendeeEmail, position: p });
      } else if (!orderSent && email) {
        out.push({ key: orderKey, to: email, position: null });
        orderSent = true;
      }
    }
  }
  return out;
}

export type RuleRunResult = { mails: number; completed: number };

/**
 * Cron: writes the mails of every rule that is due now, for every event and date, and hands
 * them to the mail queue. At most `maxMails` per run; the rest follows on the next run.
 */
export async function sendDueRuleMails(
  env: Env,
  db: DB,
  now: number,
  baseUrl: string,
  maxMails = 2000,
): Promise<RuleRunResult> {
  const result: RuleRunResult = { mails: 0, completed: 0 };
  const candidates = await ruleCandidates(db, now, RULE_GRACE_MS);
  const settingsOf = new Map<number, MailFacts>();
  for (const c of candidates) {
    const sendAt = ruleSendTime(c);
    if (sendAt === null || sendAt > now || sendAt < now - RULE_GRACE_MS) continue;
    let facts = settingsOf.get(c.eventId);
    if (!facts) {
      const s = await eventSettingsFor(db, c.organizerId, c.eventId);
      facts = {
        fromName: (s.mail_from_name as string | null) ?? c.organizerName,
        replyTo: (s.contact_mail as string | null) ?? null,
      };
      settingsOf.set(c.eventId, facts);
    }
    let afterId = 0;
    for (;;) {
      if (result.mails >= maxMails) return result;
      const { orders, positions } = await ruleRecipients(db, c, afterId, ORDERS_PER_BATCH);
      const statements: Statement[] = [];
      for (const o of orders) {
        const own = positions.filter((p) => Number(p.order_id) === o.id);
        for (const r of recipientsOf(c, o, own)) {
          const locale = String(o.locale);
          const values = placeholders(c, o, own, r.position, baseUrl);
          const mail = composeMail({
            kind: "sendmail_rule",
            organizerId: c.organizerId,
            eventId: c.eventId,
            to: r.to,
            subject: fillPlaceholders(i18nText(json<I18n>(c.subject), locale), values),
            text: fillPlaceholders(i18nText(json<I18n>(c.template), locale), values),
            fromName: facts.fromName,
            replyTo: facts.replyTo,
            now,
          });
          statements.push(...ruleMailStatements(db, r.key, mail, now));
        }
      }
      const done = orders.length < ORDERS_PER_BATCH;
      if (done) statements.push(ruleDoneStatement(db, c, sendAt, now));
      if (statements.length) {
        const results = (await runBatch(db, statements)) as unknown[];
        const ids = results.flatMap((r) =>
          Array.isArray(r)
            ? r.map((x: { id?: number }) => x.id).filter((id): id is number => typeof id === "number")
            : [],
        );
        result.mails += ids.length;
        await dispatchMail(env, ids);
      }
      if (done) {
        result.completed++;
        break;
      }
      afterId = orders.at(-1)!.id;
    }
  }
  return result;
}
