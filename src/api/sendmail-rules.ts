/**
 * Automated email rules (docs/api.md; pretix docs sendmail_rules.rst).
 * Reading and writing need can_change_event_settings, as in pretix. The rules and services
 * are in services/mail/sendmail-rules.ts (including why DELETE never answers "in use").
 */
import { Hono } from "hono";
import { z } from "zod";
import { SENDMAIL_SEND_TO } from "../services/stored-values";
import { listSendmailRules, type SendmailRuleRecord } from "../services/mail/mail-reads";
import {
  createSendmailRule,
  deleteSendmailRule,
  loadSendmailRule,
  sendmailRuleInput,
  sendmailRulePatch,
  updateSendmailRule,
} from "../services/mail/sendmail-rules";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { dateTime, i18n, id } from "../http/responses";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { toIso } from "../lib/datetime";

export const sendmailRuleResponse = z
  .object({
    id: id(),
    enabled: z.boolean(),
    subject: i18n(),
    template: i18n(),
    all_products: z.boolean(),
    limit_products: z.array(id()),
    include_pending: z.boolean(),
    date_is_absolute: z.boolean(),
    send_date: dateTime().nullable(),
    send_offset_days: z.number().int().nullable(),
    send_offset_time: z.string().meta({ description: "time of day, HH:MM or HH:MM:SS" }).nullable(),
    offset_to_event_end: z.boolean(),
    offset_is_after: z.boolean(),
    send_to: z.enum(SENDMAIL_SEND_TO),
  })
  .meta({ id: "SendmailRule" });
export type SendmailRuleResponse = z.infer<typeof sendmailRuleResponse>;

/** "HH:MM:SS" stored; written as "HH:MM" (seconds only when not zero). */
function formatTime(t: string | null): string | null {
  if (t === null) return null;
  return t.endsWith(":00") ? t.slice(0, 5) : t;
}

export function serializeSendmailRule({ rule: r, items }: SendmailRuleRecord): SendmailRuleResponse {
  return {
    id: r.id,
    enabled: r.enabled,
    subject: r.subject,
    template: r.template,
    all_products: r.allProducts,
    limit_products: JSON.parse(items) as number[],
    include_pending: r.includePending,
    date_is_absolute: r.dateIsAbsolute,
    send_date: toIso(r.sendDate),
    send_offset_days: r.sendOffsetDays,
    send_offset_time: formatTime(r.sendOffsetTime),
    offset_to_event_end: r.offsetToEventEnd,
    offset_is_after: r.offsetIsAfter,
    send_to: r.sendTo,
  };
}

export const sendmailRuleRoutes = new Hono<AppEnv>();
const doc = apiDocs("Automated email rules");
const perm = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/sendmail_rules";

sendmailRuleRoutes.get(
  base,
  perm,
  doc.list(sendmailRuleResponse, { summary: "List automated email rules" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await listSendmailRules(eventContext(c), req), serializeSendmailRule);
  },
);

sendmailRuleRoutes.get(
  `${base}/:id`,
  perm,
  doc.ok(sendmailRuleResponse, { summary: "Automated email rule detail" }),
  async (c) => c.json(serializeSendmailRule(await loadSendmailRule(eventContext(c), pathId(c, "id")))),
);

sendmailRuleRoutes.post(
  base,
  perm,
  doc.created(sendmailRuleResponse, { summary: "Create an automated email rule" }),
  jsonBody(sendmailRuleInput),
  async (c) => {
    return c.json(serializeSendmailRule(await createSendmailRule(eventContext(c), c.req.valid("json"))), 201);
  },
);

sendmailRuleRoutes.put(
  `${base}/:id`,
  perm,
  doc.ok(sendmailRuleResponse, { summary: "Replace an automated email rule" }),
  jsonBody(sendmailRuleInput),
  async (c) => {
    return c.json(
      serializeSendmailRule(await updateSendmailRule(eventContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    );
  },
);

sendmailRuleRoutes.patch(
  `${base}/:id`,
  perm,
  doc.ok(sendmailRuleResponse, { summary: "Change an automated email rule" }),
  jsonBody(sendmailRulePatch),
  async (c) => {
    return c.json(
      serializeSendmailRule(await updateSendmailRule(eventContext(c), pathId(c, "id"), c.req.valid("json"), "patch")),
    );
  },
);

sendmailRuleRoutes.delete(
  `${base}/:id`,
  perm,
  doc.noContent({ summary: "Delete an automated email rule" }),
  async (c) => {
    await deleteSendmailRule(eventContext(c), pathId(c, "id"));
    return c.body(null, 204);
  },
);
