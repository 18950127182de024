/**
 * pretix's `expand` for the check-in resources: ids of dates, items, variations (and, in a
 * scan's answer, the questions of answers) replaced by the full objects, each serialized by its
 * own family. Only read when a client asks for it.
 */
import {
  questionRecordsByIds,
  findEvent,
  findItem,
  findVariation,
  findSubevent,
} from "../services/checkin/checkin-reads";
import { ORDER_STATUSES } from "../services/stored-values";
import { fieldError } from "../lib/failure";
import { type AppContext, publicBase } from "../http/context";
import { q, type QueryParam, type QueryValues } from "../http/validation";
import { itemView, serializeItem, serializeVariation } from "./items-serializers";
import { serializeQuestion } from "./questions";
import { serializeSubevent } from "./subevents";
import type { Expanded } from "./checkin-serializers";

/** `expand` (repeatable, also comma-separated): declare it as `expand: expandParam` in the route's `queryParams`. */
export const expandParam = q.list(
  "ids replaced by the full objects: `item`, `variation`, `subevent` (and in a scan's answer `answers.question`, and `addons`: the ticket's add-ons)",
  {
    commaSeparated: true,
  },
);

/** `exclude` (repeatable, also comma-separated): declare it as `exclude: excludeParam`. */
export const excludeParam = q.list("a field to leave out of the answer (repeatable), e.g. `checkin_count`", {
  commaSeparated: true,
  omitsFields: true,
});

/** `pdf_data`, which pretixSCAN sends with scans and order downloads. */
export const pdfDataParam = q.ignored(
  { type: "boolean" },
  "the service renders the ticket PDFs itself (`downloads`, open point 12).",
);

/** The `expand` values of the request. */
export function expandOf(c: AppContext): Set<string> {
  return new Set(expandParam.read(c, "expand") ?? []);
}

/** The `exclude` values of the request. */
export function excludeOf(c: AppContext): string[] {
  return excludeParam.read(c, "exclude") ?? [];
}

export async function expandSubevents(
  c: AppContext,
  eventId: number,
  ids: Iterable<number | null>,
): Promise<Map<number, Record<string, unknown>>> {
  const unique = [...new Set([...ids].filter((x): x is number => x !== null))];
  const rows = await Promise.all(unique.map((id) => findSubevent(c.var, eventId, id)));
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
  const db = c.var;
  if (expand.has("subevent"))
    out.subevents = await expandSubevents(
      c,
      eventId,
      rows.map((r) => r.subeventId),
    );
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
      const pairs = [
        ...new Map(rows.filter((r) => r.variationId !== null).map((r) => [r.variationId!, r.itemId])).entries(),
      ];
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
export async function expandAnswerQuestions(
  c: AppContext,
  eventId: number,
  position: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answers = (position.answers as { question: number }[] | undefined) ?? [];
  if (answers.length === 0) return position;
  const questions = new Map(
    (
      await questionRecordsByIds(
        c.var,
        eventId,
        answers.map((a) => a.question),
      )
    ).map((q) => [q.question.id, serializeQuestion(q)]),
  );
  return { ...position, answers: answers.map((a) => ({ ...a, question: questions.get(a.question) ?? a.question })) };
}

// ---- the filters of a list's tickets ----

const STATUS_SET = new Set<string>(ORDER_STATUSES);

/** `order__status__in`: comma-separated order statuses. */
const statusInParam: QueryParam<string[]> = {
  description: "comma-separated order statuses (`n`, `p`, `e`, `c`)",
  schema: { type: "array", items: { type: "string", enum: [...ORDER_STATUSES] } },
  style: "form",
  read(c, name) {
    const many = q.string().read(c, name)?.split(",").filter(Boolean);
    for (const s of many ?? [])
      if (!STATUS_SET.has(s))
        throw fieldError(name, `Select a valid choice. ${s} is not one of the available choices.`);
    return many;
  },
};

/** The filters of a list's tickets (pretix checkinlists.rst; also `checkinrpc/search`): spread them into the route's `queryParams`. */
export const POSITION_FILTER_PARAMS = {
  ignore_status: q.bool("also tickets of orders in a status the list does not admit"),
  order: q.string("order code"),
  search: q.string("the start of the secret or the order code, or text in a name or email address"),
  item: q.int(),
  item__in: q.intList(),
  variation: q.int(),
  variation__in: q.intList(),
  attendee_name: q.string(),
  secret: q.string(),
  order__status: q.choice(ORDER_STATUSES),
  order__status__in: statusInParam,
  has_checkin: q.bool(),
  subevent: q.int(),
  subevent__in: q.intList(),
  addon_to: q.int(),
  addon_to__in: q.intList(),
  voucher: q.int(),
  voucher__code: q.string(),
};

/** The parsed filters of a list's tickets, as the database reads them. */
export function positionFilters(f: QueryValues<typeof POSITION_FILTER_PARAMS>) {
  return {
    ignoreStatus: f.ignore_status,
    order: f.order,
    search: f.search,
    item: f.item,
    itemIn: f.item__in,
    variation: f.variation,
    variationIn: f.variation__in,
    attendeeName: f.attendee_name,
    secret: f.secret,
    orderStatus: f.order__status,
    orderStatusIn: f.order__status__in,
    hasCheckin: f.has_checkin,
    subevent: f.subevent,
    subeventIn: f.subevent__in,
    addonTo: f.addon_to,
    addonToIn: f.addon_to__in,
    voucher: f.voucher,
    voucherCode: f.voucher__code,
  };
}
