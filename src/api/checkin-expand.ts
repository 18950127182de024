/**
 * pretix's `expand` for the check-in resources: ids of dates, items, variations (and, in a
 * scan's answer, the questions of answers) replaced by the full objects, each serialized by its
 * own family. Only read when a client asks for it.
 */
import { questionRecordsByIds } from "../db/checkin";
import { findEvent } from "../db/events";
import { findItem, findVariation } from "../db/items";
import { findSubevent } from "../db/subevents";
import { ORDER_STATUSES } from "../db/schema";
import { fieldError } from "../domain/failure";
import type { AppContext } from "../http/context";
import { queryBool, queryInt, queryIntList, queryString } from "../http/validation";
import { itemView, serializeItem, serializeVariation } from "./items-serializers";
import { publicBase } from "../http/urls";
import { serializeQuestion } from "./questions";
import { serializeSubevent } from "./subevents";
import type { Expanded } from "./checkin-serializers";

/** The `expand` values of the request (repeatable, also comma-separated). */
export function expandOf(c: AppContext): Set<string> {
  return new Set((c.req.queries("expand") ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean));
}

/** The `exclude` values of the request (repeatable). */
export function excludeOf(c: AppContext): string[] {
  return (c.req.queries("exclude") ?? []).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
}

export async function expandSubevents(c: AppContext, eventId: number, ids: Iterable<number | null>): Promise<Map<number, Record<string, unknown>>> {
  const unique = [...new Set([...ids].filter((x): x is number => x !== null))];
  const rows = await Promise.all(unique.map((id) => findSubevent(c.var.db, eventId, id)));
  const out = new Map<number, Record<string, unknown>>();
  rows.forEach((r, i) => r && out.set(unique[i]!, serializeSubevent(r)));
  return out;
}

/** Full objects for the tickets' items, variations and dates, as far as `expand` asks. */
export async function expandPositions(
  c: AppContext,
  eventId: number,
  rows: readonly { itemId: number; variationId: number | null; subeventId: number | null }[],
  expand: Set<string>,
): Promise<Expanded> {
  const out: Expanded = {};
  const db = c.var.db;
  if (expand.has("subevent")) out.subevents = await expandSubevents(c, eventId, rows.map((r) => r.subeventId));
  if (expand.has("item") || expand.has("variation")) {
    const itemIds = [...new Set(rows.map((r) => r.itemId))];
    // Organizer-level calls (checkinrpc) scan tickets of several events: each its own item view.
    const event = c.var.event?.id === eventId ? c.var.event : (await findEvent(db, c.var.organizer.id, eventId))?.event;
    if (!event) return out;
    const view = itemView(publicBase(c), event);
    const records = await Promise.all(itemIds.map((id) => findItem(db, eventId, id)));
    if (expand.has("item")) {
      out.items = new Map();
      records.forEach((r, i) => r && out.items!.set(itemIds[i]!, serializeItem(view, r) as Record<string, unknown>));
    }
    if (expand.has("variation")) {
      out.variations = new Map();
      const pairs = [...new Map(rows.filter((r) => r.variationId !== null).map((r) => [r.variationId!, r.itemId])).entries()];
      const vars = await Promise.all(pairs.map(([v, item]) => findVariation(db, item, v)));
      vars.forEach((v, i) => {
        const item = records[itemIds.indexOf(pairs[i]![1])]?.item;
        if (v && item) out.variations!.set(pairs[i]![0], serializeVariation(view, item, v) as Record<string, unknown>);
      });
    }
  }
  return out;
}

/** `expand=answers.question`: a ticket's answers with their questions as full objects. */
export async function expandAnswerQuestions(c: AppContext, eventId: number, position: Record<string, unknown>): Promise<Record<string, unknown>> {
  const answers = (position.answers as { question: number }[] | undefined) ?? [];
  if (answers.length === 0) return position;
  const questions = new Map((await questionRecordsByIds(c.var.db, eventId, answers.map((a) => a.question))).map((q) => [q.question.id, serializeQuestion(q)]));
  return { ...position, answers: answers.map((a) => ({ ...a, question: questions.get(a.question) ?? a.question })) };
}

// ---- the filters of a list's tickets ----

const STATUS_SET = new Set<string>(ORDER_STATUSES);

function statusFilter(c: AppContext) {
  const one = queryString(c, "order__status");
  if (one !== undefined && !STATUS_SET.has(one)) throw fieldError("order__status", `Select a valid choice. ${one} is not one of the available choices.`);
  const many = queryString(c, "order__status__in")?.split(",").filter(Boolean);
  for (const s of many ?? []) if (!STATUS_SET.has(s)) throw fieldError("order__status__in", `Select a valid choice. ${s} is not one of the available choices.`);
  return { orderStatus: one, orderStatusIn: many };
}

/** The filters of a list's tickets (pretix checkinlists.rst; also `checkinrpc/search`). */
export function positionFilters(c: AppContext) {
  return {
    ignoreStatus: queryBool(c, "ignore_status"),
    order: queryString(c, "order"),
    search: queryString(c, "search"),
    item: queryInt(c, "item"),
    itemIn: queryIntList(c, "item__in"),
    variation: queryInt(c, "variation"),
    variationIn: queryIntList(c, "variation__in"),
    attendeeName: queryString(c, "attendee_name"),
    secret: queryString(c, "secret"),
    ...statusFilter(c),
    hasCheckin: queryBool(c, "has_checkin"),
    subevent: queryInt(c, "subevent"),
    subeventIn: queryIntList(c, "subevent__in"),
    addonTo: queryInt(c, "addon_to"),
    addonToIn: queryIntList(c, "addon_to__in"),
    voucher: queryInt(c, "voucher"),
    voucherCode: queryString(c, "voucher__code"),
  };
}

