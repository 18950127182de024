/**
 * Automated email rules (docs/api.md; pretix docs sendmail_rules.rst): the request
 * bodies, the timing and product rules, and the services that create, change and delete a rule. A
 * rule that sent is deleted with its records, as pretix does, never refused with a 403
 * (docs/open-points.md, row `email rules "in use"`). Sending: services/mail/sendmail-sending.ts.
 */
import { z } from "zod";
import { isForeignKeyError } from "../../db/constraints";
import { SENDMAIL_SEND_TO } from "../../db/schema/index";
import {
  deleteSendmailRuleRow,
  findSendmailRule,
  insertSendmailRule,
  type SendmailRuleRecord,
  type SendmailRuleValues,
  updateSendmailRuleValues,
} from "../../db/sendmail";
import { checkEventItems, idList } from "../catalog/catalog-fields";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { notFound, Problems } from "../../lib/failure";
import { dateTime, i18nRequired } from "../../rules/fields";

/** A time of day: "HH:MM" or "HH:MM:SS" (stored as "HH:MM:SS"). */
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

/** The body of POST and PUT: `subject` and `template` required, the rest defaults. */
export const sendmailRuleInput = ruleFields.partial().required({ subject: true, template: true });
/** The body of PATCH: any field. */
export const sendmailRulePatch = ruleFields.partial();
export type SendmailRuleInput = z.output<typeof sendmailRuleInput>;
export type SendmailRulePatch = z.output<typeof sendmailRulePatch>;

/** Column values; omitted fields take their defaults unless the mode is `patch`. */
function ruleValues(input: SendmailRulePatch, mode: WriteMode): Partial<SendmailRuleValues> {
  const v: Partial<SendmailRuleValues> = {};
  const set = <K extends keyof SendmailRuleValues>(
    key: K,
    value: SendmailRuleValues[K] | undefined,
    fallback: SendmailRuleValues[K],
  ) => {
    if (value !== undefined) v[key] = value;
    else if (mode !== "patch") v[key] = fallback;
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

/**
 * The rule's state after the change: when the mail goes out must be defined, and a
 * product-limited rule needs products (of the event).
 */
async function checkRule(
  ctx: EventContext,
  r: SendmailRuleValues,
  itemIds: number[] | undefined,
  limitProducts: readonly number[],
): Promise<void> {
  const errors = new Problems();
  await checkEventItems(ctx.db, ctx.event.id, errors, "limit_products", itemIds);
  if (r.dateIsAbsolute ?? true) {
    if ((r.sendDate ?? null) === null) errors.add("send_date", "This field is required when date_is_absolute is true.");
  } else {
    if ((r.sendOffsetDays ?? null) === null)
      errors.add("send_offset_days", "This field is required when date_is_absolute is false.");
    if ((r.sendOffsetTime ?? null) === null)
      errors.add("send_offset_time", "This field is required when date_is_absolute is false.");
  }
  if (!(r.allProducts ?? true) && limitProducts.length === 0) {
    errors.add("limit_products", "This field is required when all_products is false.");
  }
  errors.throwIfAny();
}

/** A rule of the event; not found otherwise. */
export async function loadSendmailRule(ctx: EventContext, id: number): Promise<SendmailRuleRecord> {
  const record = await findSendmailRule(ctx.db, ctx.event.id, id);
  if (!record) throw notFound();
  return record;
}

export async function createSendmailRule(ctx: EventContext, input: SendmailRuleInput): Promise<SendmailRuleRecord> {
  const values = ruleValues(input, "create") as SendmailRuleValues;
  const itemIds = input.limit_products ?? [];
  await checkRule(ctx, values, itemIds, itemIds);
  return insertSendmailRule(ctx.db, ctx.event.id, values, itemIds);
}

/** PUT (`put`) or PATCH (`patch`), checked on the merged state. */
export async function updateSendmailRule(
  ctx: EventContext,
  id: number,
  input: SendmailRulePatch,
  mode: ChangeMode,
): Promise<SendmailRuleRecord> {
  const current = await loadSendmailRule(ctx, id);
  const values = ruleValues(input, mode);
  const itemIds = mode === "put" ? (input.limit_products ?? []) : input.limit_products;
  await checkRule(ctx, { ...current.rule, ...values }, itemIds, itemIds ?? (JSON.parse(current.items) as number[]));
  let record: SendmailRuleRecord | undefined;
  try {
    record = await updateSendmailRuleValues(ctx.db, ctx.event.id, current.rule.id, values, itemIds);
  } catch (e) {
    // deleted meanwhile: its product links have nothing to refer to
    if (isForeignKeyError(e)) throw notFound();
    throw e;
  }
  if (!record) throw notFound();
  return record;
}

export async function deleteSendmailRule(ctx: EventContext, id: number): Promise<void> {
  if (!(await deleteSendmailRuleRow(ctx.db, ctx.event.id, id))) throw notFound();
}
