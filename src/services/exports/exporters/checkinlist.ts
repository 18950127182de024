/**
 * `checkinlist` "Check-in list" (pretix's `CSVCheckinList`, `plugins/checkinlists/exporters.py`),
 * event level: the tickets of the chosen list (its products, its date, paid orders and with
 * `include_pending` also pending ones), with the list's check-ins: the last entry ("Checked
 * in"), the last exit ("Checked out") and whether an automatic check-in happened, all of
 * successful scans on that list only. The list is fixed when the export starts.
 */
import {
  type CheckinExportList,
  type CheckinQuery,
  checkinListOfExport,
  checkinTicketPage,
  countCheckinTickets,
} from "../../../db/exports/checkinlist";
import { badRequest } from "../../../lib/failure";
import { i18nText } from "../../../lib/i18n";
import { buildName, NAME_SCHEMES } from "../../../rules/person-names";
import {
  i18n,
  type InvoiceAddress,
  json,
  localDate,
  localDateTime,
  money,
  partLabel,
  schemeParts,
  text,
  yesNo,
} from "../cells";
import {
  type ExportContext,
  type ExporterDef,
  type Facts,
  inputDay,
  LIST_FORMATS,
  listPlan,
  type Sheet,
} from "../exporter";
import type { Cell } from "../formats";
import type { InputDef } from "../inputs";
import { answerCells, loadQuestions, type QuestionFact } from "../questions";

/** The check-in list of a `checkinlist` export, as it was when the export started. */
type ListFact = CheckinExportList & { name: string };

function checkinQuery(x: ExportContext, facts: Facts): CheckinQuery {
  return {
    eventId: x.events[0]!.id,
    list: facts.list as ListFact,
    attentionOnly: Boolean(x.params.attention_only),
    status: typeof x.params.status === "string" ? x.params.status : null,
    from: inputDay(x, x.params.date_from),
    to: inputDay(x, x.params.date_to, 1),
    sort: String(x.params.sort ?? "name"),
    hasSubevents: x.events[0]!.hasSubevents,
  };
}

/** The questions the export was asked to show. */
function chosenQuestions(x: ExportContext, facts: Facts): QuestionFact[] {
  return (facts.questions as QuestionFact[]).filter((q) => (x.params.questions as number[]).includes(q.id));
}

const CHECKIN_SHEET: Sheet = {
  key: "checkinlist",
  title: "Check-in list",
  count: (x, facts) => countCheckinTickets(x.db, checkinQuery(x, facts)),
  header(x, facts) {
    const parts = schemeParts(x);
    return [
      "Order code",
      "Attendee name",
      ...parts.map((p) => `Attendee name: ${partLabel(p)}`),
      "Product",
      "Price",
      "Checked in",
      "Checked out",
      "Automatically checked in",
      ...((facts.list as ListFact).includePending ? ["Paid"] : []),
      ...(x.params.secrets ? ["Secret"] : []),
      "E-mail",
      ...(x.events[0]!.hasSubevents ? ["Date", "Start date", "End date"] : []),
      ...chosenQuestions(x, facts).map((q) => i18nText(q.question, x.locale)),
      "Company",
      "Voucher code",
      "Order date",
      "Requires special attention",
      "Comment",
      "Seat ID",
      "Seat name",
      "Seat zone",
      "Seat row",
      "Seat number",
    ];
  },
  async page(x, facts, cursor, limit) {
    const list = facts.list as ListFact;
    const rows = await checkinTicketPage(x.db, checkinQuery(x, facts), cursor, limit);
    const parts = schemeParts(x);
    const tz = x.events[0]!.timezone;
    const questions = chosenQuestions(x, facts);
    const out = rows.map((r): Cell[] => {
      const ia = json<InvoiceAddress | null>(r.invoice_address);
      const own = json<Record<string, string>>(r.attendee_name_parts) ?? {};
      const parent = json<Record<string, string> | null>(r.parent_name_parts) ?? {};
      const nameParts = Object.keys(own).length ? own : Object.keys(parent).length ? parent : (ia?.name_parts ?? {});
      const variation = r.variation_name === null ? "" : ` – ${i18n(r.variation_name, x.locale)}`;
      const scanned = (v: unknown) => (v === null || v === undefined ? "" : localDateTime(Number(v), tz));
      return [
        text(r.code),
        text(r.attendee_name) || text(r.parent_name) || (ia ? (buildName(ia.name_parts) ?? "") : ""),
        ...parts.map((k) => text(nameParts[k])),
        `${i18n(r.item_name, x.locale)}${variation}`,
        money(r.price),
        scanned(r.last_checked_in),
        scanned(r.last_checked_out),
        yesNo(r.auto_checked_in),
        ...(list.includePending ? [yesNo(r.status === "p")] : []),
        ...(x.params.secrets ? [text(r.secret)] : []),
        text(r.attendee_email) || text(r.parent_email) || text(r.email),
        ...(x.events[0]!.hasSubevents
          ? r.subevent_name === null
            ? ["", "", ""]
            : [
                i18n(r.subevent_name, x.locale),
                localDateTime(Number(r.subevent_from), tz),
                r.subevent_to === null ? "" : localDateTime(Number(r.subevent_to), tz),
              ]
          : []),
        ...answerCells(x, questions, true, r.answers, r.parent_answers),
        text(ia?.company),
        text(r.voucher_code),
        localDate(Number(r.datetime), tz),
        yesNo(r.order_attention || r.item_attention),
        text(r.comment),
        text(r.seat),
        text(r.seat_name),
        r.seat === null ? "" : text(r.zone_name),
        r.seat === null ? "" : text(r.row_name),
        r.seat === null ? "" : text(r.seat_number),
      ];
    });
    const last = rows.at(-1);
    return { rows: out, after: last ? [Number(last.sort_date), last.sort_key, Number(last.id)] : cursor };
  },
};

/** pretix's `status` choices of the check-in list export. */
const CHECKIN_STATUS_CHOICES = ["", "1", "2", "3", "0"] as const;

export const checkinlist: ExporterDef = {
  identifier: "checkinlist",
  verboseName: "Check-in list",
  eventLevel: true,
  organizerLevel: false,
  inputs(c) {
    const fields = c.nameScheme ? (NAME_SCHEMES[c.nameScheme]?.fields ?? []) : [];
    const defs: InputDef[] = [
      { name: "_format", kind: "choice", required: true, choices: LIST_FORMATS },
      { name: "list", kind: "pk", required: true, valid: c.checkinListIds },
    ];
    if (c.hasSubevents) defs.push({ name: "date_from", kind: "date" }, { name: "date_to", kind: "date" });
    defs.push(
      { name: "secrets", kind: "bool" },
      { name: "attention_only", kind: "bool" },
      { name: "status", kind: "choice", required: false, choices: CHECKIN_STATUS_CHOICES },
      {
        name: "sort",
        kind: "choice",
        required: false,
        choices: ["name", "code", ...(fields.length > 1 ? fields.map((f) => `name:${f}`) : [])],
      },
      { name: "questions", kind: "ids", valid: c.questionIds },
    );
    return defs;
  },
  sheets: [CHECKIN_SHEET],
  plan: (params) => listPlan(CHECKIN_SHEET, params),
  async facts(x) {
    const [row, questions] = await Promise.all([
      checkinListOfExport(x.db, Number(x.params.list), x.events[0]!.id),
      loadQuestions(x),
    ]);
    // pretix: `checkin_lists.get(pk=...)` fails the export when the list was deleted meanwhile
    if (!row) throw badRequest("The check-in list of this export no longer exists.");
    const list: ListFact = {
      id: Number(row.id),
      name: text(row.name),
      allProducts: Boolean(row.all_products),
      subeventId: row.subevent_id === null ? null : Number(row.subevent_id),
      includePending: Boolean(row.include_pending),
    };
    return { list, questions };
  },
  filename: (x) => `${x.events[0]!.slug}_checkin`,
};
