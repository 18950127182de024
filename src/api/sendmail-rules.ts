/**
 * Automated email rules (spec "Automated email rule"; pretix docs sendmail_rules.rst).
 * Reading and writing need can_change_event_settings, as in pretix.
 *
 * DELETE: the spec (copying pretix's documentation) names 403 "when the rule is in use".
 * pretix itself never refuses: its rule view deletes the rule together with its scheduled
 * sending records, and nothing else refers to a rule. Nothing in this service refers to a
 * rule either, so no rule is ever "in use": DELETE answers 204, and 403 only comes from the
 * permission layer.
 */
import { Hono } from "hono";
import { z } from "zod";
import { SENDMAIL_SEND_TO } from "../db/schema";
import {
  createSendmailRule,
  deleteSendmailRule,
  findSendmailRule,
  type SendmailRuleRecord,
  type SendmailRuleValues,
  sendmailRuleCount,
  sendmailRulePage,
  updateSendmailRule,
} from "../db/sendmail";
import { validateSendmailRule } from "../domain/catalog";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, notFound } from "../domain/failure";
import { dateTime, i18nRequired } from "../domain/fields";
import { envelope, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { toIso } from "../lib/datetime";
import { checkEventItems, idList } from "../domain/catalog-fields";

/** "HH:MM:SS" stored; written as "HH:MM" (seconds only when not zero). */
function formatTime(t: string | null): string | null {
  if (t === null) return null;
  return t.endsWith(":00") ? t.slice(0, 5) : t;
}

export function serializeSendmailRule({ rule: r, items }: SendmailRuleRecord) {
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

/** A time of day: "HH:MM" or "HH:MM:SS". */
const timeOfDay = () =>
  z.string().transform((v, ctx) => {
    const m = /^(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?$/.exec(v.trim());
    if (!m || Number(m[1]) > 23 || Number(m[2]) > 59 || Number(m[3] ?? 0) > 59) {
      ctx.addIssue({ code: "custom", message: "Time has wrong format. Use one of these formats instead: hh:mm[:ss]." });
      return z.NEVER;
    }
    return `${m[1]}:${m[2]}:${m[3] ?? "00"}`;
  });

const ruleFields = z.object({
  enabled: z.boolean(),
  subject: i18nRequired(),
  template: i18nRequired(),
  all_products: z.boolean(),
  limit_products: idList(),
  include_pending: z.boolean(),
  date_is_absolute: z.boolean(),
  send_date: dateTime().nullable(),
  send_offset_days: z.number().int().min(0).max(36500).nullable(),
  send_offset_time: timeOfDay().nullable(),
  offset_to_event_end: z.boolean(),
  offset_is_after: z.boolean(),
  send_to: z.enum(SENDMAIL_SEND_TO),
});
type RuleInput = z.output<typeof ruleFields>;

const ruleFull = ruleFields.partial().required({ subject: true, template: true });
const rulePatch = ruleFields.partial();

/** Column values; with `full` (POST, PUT) omitted fields take their defaults. */
function ruleValues(input: Partial<RuleInput>, full: boolean): Partial<SendmailRuleValues> {
  const v: Partial<SendmailRuleValues> = {};
  const set = <K extends keyof SendmailRuleValues>(key: K, value: SendmailRuleValues[K] | undefined, fallback: SendmailRuleValues[K]) => {
    if (value !== undefined) v[key] = value;
    else if (full) v[key] = fallback;
  };
  if (input.subject !== undefined) v.subject = input.subject;
  if (input.template !== undefined) v.template = input.template;
  set("enabled", input.enabled, true);
  set("allProducts", input.all_products, true);
  set("includePending", input.include_pending, false);
  set("dateIsAbsolute", input.date_is_absolute, true);
  set("sendDate", input.send_date, null);
  set("sendOffsetDays", input.send_offset_days, null);
  set("sendOffsetTime", input.send_offset_time, null);
  set("offsetToEventEnd", input.offset_to_event_end, false);
  set("offsetIsAfter", input.offset_is_after, false);
  set("sendTo", input.send_to, "orders");
  return v;
}

async function check(c: AppContext, values: Partial<SendmailRuleValues>, itemIds: number[] | undefined, current?: SendmailRuleRecord) {
  const m = { ...current?.rule, ...values } as SendmailRuleValues;
  const errors = new Problems();
  await checkEventItems(c.var.db, c.var.event.id, errors, "limit_products", itemIds);
  validateSendmailRule(
    {
      allProducts: m.allProducts ?? true,
      limitProducts: itemIds ?? (current ? (JSON.parse(current.items) as number[]) : []),
      dateIsAbsolute: m.dateIsAbsolute ?? true,
      sendDate: m.sendDate ?? null,
      sendOffsetDays: m.sendOffsetDays ?? null,
      sendOffsetTime: m.sendOffsetTime ?? null,
    },
    errors,
  );
  errors.throwIfAny();
}

async function loadRule(c: AppContext): Promise<SendmailRuleRecord> {
  const record = await findSendmailRule(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!record) throw notFound();
  return record;
}

async function reload(c: AppContext, id: number) {
  const record = await findSendmailRule(c.var.db, c.var.event.id, id);
  if (!record) throw notFound();
  return serializeSendmailRule(record);
}

export const sendmailRuleRoutes = new Hono<AppEnv>();
const perm = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/sendmail_rules";

sendmailRuleRoutes.get(base, perm, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [[total], rows] = await db.batch([sendmailRuleCount(db, eventId), sendmailRulePage(db, eventId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeSendmailRule)));
});

sendmailRuleRoutes.get(`${base}/:id`, perm, async (c) => c.json(serializeSendmailRule(await loadRule(c))));

sendmailRuleRoutes.post(base, perm, jsonBody(ruleFull), async (c) => {
  const input = c.req.valid("json");
  const values = ruleValues(input, true);
  const itemIds = input.limit_products ?? [];
  await check(c, values, itemIds);
  const id = await createSendmailRule(c.var.db, c.var.event.id, values as SendmailRuleValues, itemIds);
  return c.json(await reload(c, id), 201);
});

async function changeRule(c: AppContext, input: Partial<RuleInput>, full: boolean) {
  const current = await loadRule(c);
  const values = ruleValues(input, full);
  const itemIds = full ? (input.limit_products ?? []) : input.limit_products;
  await check(c, values, itemIds, current);
  await updateSendmailRule(c.var.db, c.var.event.id, current.rule.id, values, itemIds);
  return c.json(await reload(c, current.rule.id));
}

sendmailRuleRoutes.put(`${base}/:id`, perm, jsonBody(ruleFull), (c) => changeRule(c, c.req.valid("json"), true));
sendmailRuleRoutes.patch(`${base}/:id`, perm, jsonBody(rulePatch), (c) => changeRule(c, c.req.valid("json"), false));

sendmailRuleRoutes.delete(`${base}/:id`, perm, async (c) => {
  const { rule } = await loadRule(c);
  await deleteSendmailRule(c.var.db, c.var.event.id, rule.id);
  return c.body(null, 204);
});
