/**
 * The exporters (spec "Exporter"; pretix docs exporters.rst), with pretix's identifiers,
 * verbose names, inputs and columns (pretix `base/exporters/orderlist.py`, `invoices.py`,
 * `json.py`, `customers.py`, `plugins/checkinlists/exporters.py`) as far as this service holds
 * the data:
 *
 * - `orderlist` "Order data" (event and organizer level): sheets orders, positions, fees;
 * - `invoicedata` "Invoice data" (event and organizer level): sheets invoices, invoice lines;
 * - `checkinlist` "Check-in list" (event level): the tickets of one check-in list with their
 *   check-ins on it (last entry, last exit, automatic check-in);
 * - `json` "Order data (JSON)" (event level): the event's catalog and all orders in one document;
 * - `giftcardlist` "Gift cards" and `customerlist` "Customer accounts" (organizer level, with
 *   can_manage_gift_cards / can_manage_customers as in pretix).
 *
 * Each list is read in pages by keyset, so a job step reads only the rows it writes. What must
 * stay the same over all steps of one export (the tax rate columns, the questions, the
 * payment providers) is fixed when the export starts (`facts`).
 */
import { sql, type SQL } from "drizzle-orm";
import type { DB } from "../../db/client";
import { checkinListTicketsSql } from "../../db/checkin/lists";
import { eventIn, readBatch, readRows, type Row } from "../../db/exports";
import type { I18n } from "../../lib/i18n";
import { i18nText } from "../../lib/i18n";
import { addDays, parseDate, toIso, zonedParts, zonedTimeToUtc } from "../../lib/datetime";
import { formatDecimal } from "../../lib/money";
import type { TeamPermission } from "../../rules/permissions";
import { buildName, NAME_SCHEMES } from "../../rules/person-names";
import { badRequest } from "../../lib/failure";
import { type Cell, decimal, type FileFormat } from "./formats";
import type { InputDef } from "./inputs";

/** An event of the export, as the rows need it. */
export type ExportEvent = {
  id: number;
  slug: string;
  name: I18n;
  timezone: string;
  currency: string;
  hasSubevents: boolean;
};

export type ExportContext = {
  db: DB;
  organizer: { id: number; slug: string; name: string };
  /** The export's events (one for event-level exports; none for organizer-only lists). */
  events: ExportEvent[];
  eventLevel: boolean;
  params: Record<string, unknown>;
  /** Of a single-event export: the event's name scheme and language (pretix: `settings.name_scheme`, `locale`). */
  nameScheme: string | null;
  locale: string;
  now: number;
};

/** Values fixed at the start of an export (JSON). */
export type Facts = Record<string, unknown>;

export type SheetPage = { rows: unknown[]; after: unknown };

export type Sheet = {
  key: string;
  title: string;
  count(x: ExportContext, facts: Facts): Promise<number>;
  header(x: ExportContext, facts: Facts): Cell[];
  page(x: ExportContext, facts: Facts, after: unknown, limit: number): Promise<SheetPage>;
};

export type ExporterDef = {
  identifier: string;
  verboseName: string;
  eventLevel: boolean;
  organizerLevel: boolean;
  /** Organizer-level only: the organizer permission it needs (pretix's organizer_required_permission). */
  organizerPermission?: TeamPermission;
  /** The inputs besides `events`. */
  inputs(x: InputContext): InputDef[];
  sheets: Sheet[];
  /** The file's format and the sheets it holds, from the checked inputs. */
  plan(params: Record<string, unknown>): { format: FileFormat; sheets: string[] };
  facts(x: ExportContext): Promise<Facts>;
  filename(x: ExportContext): string;
  /** JSON documents: what comes before the first and after the last row. */
  json?: { head(x: ExportContext, facts: Facts): Promise<string>; tail: string };
};

/** What the inputs of an exporter depend on. */
export type InputContext = {
  eventLevel: boolean;
  /** Single-event exports: the event is a series. */
  hasSubevents: boolean;
  nameScheme: string | null;
  /** Single-event exports: the event's question ids. */
  questionIds: ReadonlySet<number>;
  /** Single-event exports: the event's check-in list ids. */
  checkinListIds: ReadonlySet<number>;
};

// ---- row helpers ----

const STATUS_LABEL: Record<string, string> = { n: "pending", p: "paid", e: "expired", c: "canceled" };
const yesNo = (v: unknown) => (v ? "Yes" : "No");
const money = (cents: unknown) => decimal(formatDecimal(Number(cents ?? 0)));
const text = (v: unknown): string => (v === null || v === undefined ? "" : String(v));
const pad = (n: number) => String(n).padStart(2, "0");

function localDate(ms: number, tz: string): string {
  const p = zonedParts(ms, tz);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}
function localTime(ms: number, tz: string): string {
  const p = zonedParts(ms, tz);
  return `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}`;
}
function localDateTime(ms: number | null, tz: string): string {
  return ms === null ? "" : `${localDate(ms, tz)} ${localTime(ms, tz)}`;
}
function json<T>(v: unknown): T {
  return (typeof v === "string" ? JSON.parse(v) : v) as T;
}
const i18n = (v: unknown, locale: string) => i18nText(json<I18n | null>(v), locale);

type InvoiceAddress = {
  company?: string;
  name_parts?: Record<string, string>;
  street?: string;
  zipcode?: string;
  city?: string;
  country?: string;
  state?: string;
  vat_id?: string;
};

/** The name scheme's fields when it has more than one (pretix adds a column per part then). */
function schemeParts(x: ExportContext): string[] {
  if (!x.eventLevel || !x.nameScheme) return [];
  const fields = NAME_SCHEMES[x.nameScheme]?.fields ?? [];
  return fields.length > 1 ? [...fields] : [];
}
const PART_LABELS: Record<string, string> = {
  given_name: "Given name",
  family_name: "Family name",
  middle_name: "Middle name",
  title: "Title",
  full_name: "Full name",
  calling_name: "Calling name",
  latin_transcription: "Latin transcription",
};
const partLabel = (p: string) => PART_LABELS[p] ?? p;

function eventOf(x: ExportContext, id: unknown): ExportEvent {
  return x.events.find((e) => e.id === Number(id)) ?? x.events[0]!;
}

/** The timezone that dates in the inputs are read in: the (first) event's. */
function inputTimezone(x: ExportContext): string {
  return x.events[0]?.timezone ?? "UTC";
}

function dayStart(value: unknown, tz: string, plusDays = 0): number | null {
  if (typeof value !== "string") return null;
  const d = parseDate(value);
  if (!d) return null;
  const [y, m, day] = addDays(d, plusDays);
  return zonedTimeToUtc(tz, y, m, day);
}

/** Conditions on orders (alias `o`) from the orderlist inputs. */
function orderConditions(x: ExportContext): SQL[] {
  const tz = inputTimezone(x);
  const p = x.params;
  const out: SQL[] = [
    eventIn(
      sql`o.event_id`,
      x.events.map((e) => e.id),
    ),
  ];
  if (p.paid_only) out.push(sql`o.status = 'p'`);
  const from = dayStart(p.date_from, tz);
  const to = dayStart(p.date_to, tz, 1);
  if (from !== null) out.push(sql`o.datetime >= ${from}`);
  if (to !== null) out.push(sql`o.datetime < ${to}`);
  const evFrom = dayStart(p.event_date_from, tz);
  const evTo = dayStart(p.event_date_to, tz, 1);
  const dateOf = sql`coalesce((SELECT s2.date_from FROM subevents s2 WHERE s2.id = p2.subevent_id), (SELECT e2.date_from FROM events e2 WHERE e2.id = o.event_id))`;
  if (evFrom !== null)
    out.push(sql`EXISTS (SELECT 1 FROM order_positions p2 WHERE p2.order_id = o.id AND ${dateOf} >= ${evFrom})`);
  if (evTo !== null)
    out.push(sql`EXISTS (SELECT 1 FROM order_positions p2 WHERE p2.order_id = o.id AND ${dateOf} < ${evTo})`);
  return out;
}

const and = (conditions: SQL[]) => sql.join(conditions, sql` AND `);

function after(values: unknown, columns: SQL): SQL {
  if (!Array.isArray(values)) return sql`1`;
  return sql`(${columns}) > (${sql.join(
    values.map((v) => sql`${v}`),
    sql`, `,
  )})`;
}

const PROVIDERS = sql`(SELECT group_concat(DISTINCT pay.provider) FROM order_payments pay WHERE pay.order_id = o.id AND pay.state IN ('confirmed', 'refunded', 'pending', 'created'))`;

function providerList(v: unknown): string {
  return [...new Set(text(v).split(","))]
    .filter((p) => p && p !== "free")
    .sort()
    .join(", ");
}

function invoiceColumns(x: ExportContext, withVat = true, withCompanyAndName = true): string[] {
  const parts = schemeParts(x);
  return [
    ...(withCompanyAndName ? ["Company", "Name"] : []),
    ...parts.map(partLabel),
    "Address",
    "ZIP code",
    "City",
    "Country",
    "State",
    ...(withVat ? ["VAT ID"] : []),
  ];
}

function invoiceCells(x: ExportContext, raw: unknown, withVat = true, withCompanyAndName = true): Cell[] {
  const ia = json<InvoiceAddress | null>(raw);
  const parts = schemeParts(x);
  if (!ia) return Array.from({ length: invoiceColumns(x, withVat, withCompanyAndName).length }, () => "");
  return [
    ...(withCompanyAndName ? [text(ia.company), buildName(ia.name_parts) ?? ""] : []),
    ...parts.map((k) => text(ia.name_parts?.[k])),
    text(ia.street),
    text(ia.zipcode),
    text(ia.city),
    text(ia.country),
    text(ia.state),
    ...(withVat ? [text(ia.vat_id)] : []),
  ];
}

function orderHead(x: ExportContext, r: Row): Cell[] {
  return [eventOf(x, r.event_id).slug, text(r.code)];
}

// ---- orderlist ----

type QuestionFact = { id: number; question: I18n; type: string; options: { id: number; answer: I18n }[] };

async function loadQuestions(x: ExportContext): Promise<QuestionFact[]> {
  const [questions, options] = await readBatch(x.db, [
    sql`SELECT id, question, type FROM questions WHERE ${eventIn(
      sql`event_id`,
      x.events.map((e) => e.id),
    )} ORDER BY event_id, position, id`,
    sql`SELECT o.id, o.question_id, o.answer FROM question_options o JOIN questions q ON q.id = o.question_id
        WHERE ${eventIn(
          sql`q.event_id`,
          x.events.map((e) => e.id),
        )} ORDER BY o.position, o.id`,
  ]);
  return questions!.map((q) => ({
    id: Number(q.id),
    question: json<I18n>(q.question),
    type: text(q.type),
    options: options!
      .filter((o) => Number(o.question_id) === Number(q.id))
      .map((o) => ({ id: Number(o.id), answer: json<I18n>(o.answer) })),
  }));
}

function questionHeaders(x: ExportContext, questions: QuestionFact[], grouped: boolean): string[] {
  return questions.flatMap((q) => {
    const title = i18nText(q.question, x.locale);
    if (q.type === "M" && !grouped) return q.options.map((o) => `${title} – ${i18nText(o.answer, x.locale)}`);
    return [title];
  });
}

type StoredAnswer = { question: number; answer: string; options?: number[] };

function answerCells(
  x: ExportContext,
  questions: QuestionFact[],
  grouped: boolean,
  answersRaw: unknown,
  parentAnswersRaw?: unknown,
): Cell[] {
  const byQuestion = new Map<number, StoredAnswer>();
  for (const a of json<StoredAnswer[] | null>(parentAnswersRaw) ?? []) byQuestion.set(a.question, a);
  for (const a of json<StoredAnswer[] | null>(answersRaw) ?? []) byQuestion.set(a.question, a);
  return questions.flatMap((q): Cell[] => {
    const a = byQuestion.get(q.id);
    if (q.type === "M") {
      const chosen = new Set(a?.options ?? []);
      if (grouped)
        return [
          q.options
            .filter((o) => chosen.has(o.id))
            .map((o) => i18nText(o.answer, x.locale))
            .join(", "),
        ];
      return q.options.map((o) => yesNo(chosen.has(o.id)));
    }
    return [a ? text(a.answer) : ""];
  });
}

const ORDER_SHEET: Sheet = {
  key: "orders",
  title: "Orders",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM orders o WHERE ${and(orderConditions(x))}`,
    );
    return Number(r?.n ?? 0);
  },
  header(x, facts) {
    const rates = facts.taxRates as number[];
    const providers = facts.paymentProviders as string[];
    return [
      "Event slug",
      "Order code",
      "Order total",
      "Status",
      "Email",
      "Phone number",
      "Order date",
      "Order time",
      ...invoiceColumns(x),
      "Date of last payment",
      "Fees",
      "Order locale",
      ...rates.flatMap((r) => [
        `Gross at ${formatDecimal(r)} % tax`,
        `Net at ${formatDecimal(r)} % tax`,
        `Tax value at ${formatDecimal(r)} % tax`,
      ]),
      "Sales channel",
      "Requires special attention",
      "Comment",
      "Positions",
      "Payment providers",
      ...(x.params.include_payment_amounts ? providers.map((p) => `Paid by ${p}`) : []),
    ];
  },
  async page(x, facts, cursor, limit) {
    const where = and([...orderConditions(x), after(cursor, sql`o.datetime, o.id`)]);
    const pageIds = sql`SELECT o.id FROM orders o WHERE ${where} ORDER BY o.datetime, o.id LIMIT ${limit}`;
    const [orders, taxes, paid] = await readBatch(x.db, [
      sql`SELECT o.id, o.event_id, o.code, o.total, o.status, o.email, o.phone, o.datetime, o.invoice_address, o.locale, o.sales_channel,
                 o.checkin_attention, o.comment,
                 (SELECT max(pay.payment_date) FROM order_payments pay WHERE pay.order_id = o.id AND pay.state IN ('confirmed', 'refunded')) AS last_payment,
                 (SELECT coalesce(sum(f.value), 0) FROM order_fees f WHERE f.order_id = o.id AND f.canceled = 0) AS fees,
                 (SELECT count(*) FROM order_positions p WHERE p.order_id = o.id AND p.canceled = 0) AS positions,
                 ${PROVIDERS} AS providers
          FROM orders o WHERE ${where} ORDER BY o.datetime, o.id LIMIT ${limit}`,
      sql`SELECT order_id, tax_rate, sum(gross) AS gross, sum(tax) AS tax FROM (
            SELECT order_id, tax_rate, price AS gross, tax_value AS tax FROM order_positions WHERE canceled = 0 AND order_id IN (${pageIds})
            UNION ALL
            SELECT order_id, tax_rate, value, tax_value FROM order_fees WHERE canceled = 0 AND order_id IN (${pageIds})
          ) GROUP BY order_id, tax_rate`,
      sql`SELECT order_id, provider, sum(amount) AS amount FROM order_payments
          WHERE state IN ('confirmed', 'refunded') AND order_id IN (${pageIds}) GROUP BY order_id, provider`,
    ]);
    const rates = facts.taxRates as number[];
    const providers = facts.paymentProviders as string[];
    const taxOf = new Map(taxes!.map((t) => [`${t.order_id}:${t.tax_rate}`, t]));
    const paidOf = new Map(paid!.map((t) => [`${t.order_id}:${t.provider}`, Number(t.amount)]));
    const rows = orders!.map((r): Cell[] => {
      const tz = eventOf(x, r.event_id).timezone;
      const dt = Number(r.datetime);
      return [
        ...orderHead(x, r),
        money(r.total),
        STATUS_LABEL[text(r.status)] ?? text(r.status),
        text(r.email),
        text(r.phone),
        localDate(dt, tz),
        localTime(dt, tz),
        ...invoiceCells(x, r.invoice_address),
        r.last_payment === null ? "" : localDate(Number(r.last_payment), tz),
        money(r.fees),
        text(r.locale),
        ...rates.flatMap((rate) => {
          const t = taxOf.get(`${r.id}:${rate}`);
          const gross = Number(t?.gross ?? 0),
            tax = Number(t?.tax ?? 0);
          return [money(gross), money(gross - tax), money(tax)];
        }),
        text(r.sales_channel),
        yesNo(r.checkin_attention),
        text(r.comment),
        Number(r.positions),
        providerList(r.providers),
        ...(x.params.include_payment_amounts ? providers.map((p) => money(paidOf.get(`${r.id}:${p}`) ?? 0)) : []),
      ];
    });
    const last = orders!.at(-1);
    return { rows, after: last ? [Number(last.datetime), Number(last.id)] : cursor };
  },
};

const POSITION_SHEET: Sheet = {
  key: "positions",
  title: "Order positions",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE p.canceled = 0 AND ${and(orderConditions(x))}`,
    );
    return Number(r?.n ?? 0);
  },
  header(x, facts) {
    const parts = schemeParts(x);
    return [
      "Event slug",
      "Order code",
      "Position ID",
      "Status",
      "Email",
      "Phone number",
      "Order date",
      "Order time",
      ...(facts.hasSubevents ? ["Date", "Start date", "End date"] : []),
      "Product",
      "Variation",
      "Price",
      "Tax rate",
      "Tax rule",
      "Tax value",
      "Attendee name",
      ...parts.map((p) => `Attendee name: ${partLabel(p)}`),
      "Attendee email",
      "Voucher",
      "Pseudonymization ID",
      "Seat ID",
      "Seat name",
      "Seat zone",
      "Seat row",
      "Seat number",
      "Order comment",
      ...questionHeaders(x, facts.questions as QuestionFact[], Boolean(x.params.group_multiple_choice)),
      "Company",
      "Invoice address name",
      ...parts.map((p) => `Invoice address name: ${partLabel(p)}`),
      "Address",
      "ZIP code",
      "City",
      "Country",
      "State",
      "VAT ID",
      "Sales channel",
      "Order locale",
      "Payment providers",
    ];
  },
  async page(x, facts, cursor, limit) {
    const rows = await readRows(
      x.db,
      sql`SELECT p.id, p.positionid, p.price, p.tax_rate, p.tax_value, p.attendee_name, p.attendee_name_parts, p.attendee_email,
                 p.pseudonymization_id, p.seat, p.seat_name, p.answers,
                 o.id AS order_id, o.event_id, o.code, o.status, o.email, o.phone, o.datetime, o.comment, o.invoice_address, o.sales_channel, o.locale,
                 i.name AS item_name, v.value AS variation_name, tr.name AS tax_rule_name, vo.code AS voucher_code,
                 se.name AS subevent_name, se.date_from AS subevent_from, se.date_to AS subevent_to,
                 s.zone_name, s.row_name, s.seat_number,
                 ${PROVIDERS} AS providers
          FROM order_positions p
          JOIN orders o ON o.id = p.order_id
          JOIN items i ON i.id = p.item_id
          LEFT JOIN item_variations v ON v.id = p.variation_id
          LEFT JOIN tax_rules tr ON tr.id = p.tax_rule_id
          LEFT JOIN vouchers vo ON vo.id = p.voucher_id
          LEFT JOIN subevents se ON se.id = p.subevent_id
          LEFT JOIN seating_plan_seats s ON s.id = p.seat_id
          WHERE p.canceled = 0 AND ${and(orderConditions(x))} AND ${after(cursor, sql`o.datetime, o.id, p.positionid`)}
          ORDER BY o.datetime, o.id, p.positionid LIMIT ${limit}`,
    );
    const parts = schemeParts(x);
    const questions = facts.questions as QuestionFact[];
    const grouped = Boolean(x.params.group_multiple_choice);
    const out = rows.map((r): Cell[] => {
      const tz = eventOf(x, r.event_id).timezone;
      const dt = Number(r.datetime);
      const nameParts = json<Record<string, string>>(r.attendee_name_parts) ?? {};
      const ia = json<InvoiceAddress | null>(r.invoice_address);
      return [
        ...orderHead(x, r),
        Number(r.positionid),
        STATUS_LABEL[text(r.status)] ?? text(r.status),
        text(r.email),
        text(r.phone),
        localDate(dt, tz),
        localTime(dt, tz),
        ...(facts.hasSubevents
          ? r.subevent_name === null
            ? ["", "", ""]
            : [
                i18n(r.subevent_name, x.locale),
                localDateTime(Number(r.subevent_from), tz),
                r.subevent_to === null ? "" : localDateTime(Number(r.subevent_to), tz),
              ]
          : []),
        i18n(r.item_name, x.locale),
        r.variation_name === null ? "" : i18n(r.variation_name, x.locale),
        money(r.price),
        decimal(formatDecimal(Number(r.tax_rate))),
        r.tax_rule_name === null ? "" : i18n(r.tax_rule_name, x.locale),
        money(r.tax_value),
        text(r.attendee_name),
        ...parts.map((k) => text(nameParts[k])),
        text(r.attendee_email),
        text(r.voucher_code),
        text(r.pseudonymization_id),
        text(r.seat),
        text(r.seat_name),
        r.seat === null ? "" : text(r.zone_name),
        r.seat === null ? "" : text(r.row_name),
        r.seat === null ? "" : text(r.seat_number),
        text(r.comment),
        ...answerCells(x, questions, grouped, r.answers),
        text(ia?.company),
        ia ? (buildName(ia.name_parts) ?? "") : "",
        ...invoiceCells(x, r.invoice_address, true, false),
        text(r.sales_channel),
        text(r.locale),
        providerList(r.providers),
      ];
    });
    const last = rows.at(-1);
    return {
      rows: out,
      after: last ? [Number(last.datetime), Number(last.order_id), Number(last.positionid)] : cursor,
    };
  },
};

const FEE_TYPE_LABEL: Record<string, string> = {
  payment: "Payment fee",
  shipping: "Shipping fee",
  service: "Service fee",
  cancellation: "Cancellation fee",
  insurance: "Insurance fee",
  late: "Late fee",
  other: "Other fees",
  giftcard: "Gift card",
};

const FEE_SHEET: Sheet = {
  key: "fees",
  title: "Order fees",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM order_fees f JOIN orders o ON o.id = f.order_id WHERE f.canceled = 0 AND ${and(orderConditions(x))}`,
    );
    return Number(r?.n ?? 0);
  },
  header(x) {
    const parts = schemeParts(x);
    return [
      "Event slug",
      "Order code",
      "Status",
      "Email",
      "Phone number",
      "Order date",
      "Order time",
      "Fee type",
      "Description",
      "Price",
      "Tax rate",
      "Tax rule",
      "Tax value",
      "Company",
      "Invoice address name",
      ...parts.map((p) => `Invoice address name: ${partLabel(p)}`),
      "Address",
      "ZIP code",
      "City",
      "Country",
      "State",
      "VAT ID",
      "Payment providers",
    ];
  },
  async page(x, _facts, cursor, limit) {
    const rows = await readRows(
      x.db,
      sql`SELECT f.id, f.fee_type, f.description, f.value, f.tax_rate, f.tax_value, tr.name AS tax_rule_name,
                 o.id AS order_id, o.event_id, o.code, o.status, o.email, o.phone, o.datetime, o.invoice_address, ${PROVIDERS} AS providers
          FROM order_fees f JOIN orders o ON o.id = f.order_id LEFT JOIN tax_rules tr ON tr.id = f.tax_rule_id
          WHERE f.canceled = 0 AND ${and(orderConditions(x))} AND ${after(cursor, sql`o.datetime, o.id, f.id`)}
          ORDER BY o.datetime, o.id, f.id LIMIT ${limit}`,
    );
    const out = rows.map((r): Cell[] => {
      const tz = eventOf(x, r.event_id).timezone;
      const dt = Number(r.datetime);
      const ia = json<InvoiceAddress | null>(r.invoice_address);
      return [
        ...orderHead(x, r),
        STATUS_LABEL[text(r.status)] ?? text(r.status),
        text(r.email),
        text(r.phone),
        localDate(dt, tz),
        localTime(dt, tz),
        FEE_TYPE_LABEL[text(r.fee_type)] ?? text(r.fee_type),
        text(r.description),
        money(r.value),
        decimal(formatDecimal(Number(r.tax_rate))),
        r.tax_rule_name === null ? "" : i18n(r.tax_rule_name, x.locale),
        money(r.tax_value),
        text(ia?.company),
        ia ? (buildName(ia.name_parts) ?? "") : "",
        ...invoiceCells(x, r.invoice_address, true, false),
        providerList(r.providers),
      ];
    });
    const last = rows.at(-1);
    return { rows: out, after: last ? [Number(last.datetime), Number(last.order_id), Number(last.id)] : cursor };
  },
};

/** pretix's `_format` of multi-sheet lists: `xlsx` (all sheets) or `<sheet>:<dialect>` (one sheet as CSV). */
function multiSheetFormats(sheets: readonly Sheet[]): string[] {
  return ["xlsx", ...sheets.flatMap((s) => [`${s.key}:default`, `${s.key}:excel`, `${s.key}:semicolon`])];
}

function multiSheetPlan(
  sheets: readonly Sheet[],
  params: Record<string, unknown>,
): { format: FileFormat; sheets: string[] } {
  const f = String(params._format);
  if (f === "xlsx") return { format: { kind: "xlsx" }, sheets: sheets.map((s) => s.key) };
  const [sheet, dialect] = f.split(":") as [string, "default" | "excel" | "semicolon"];
  return { format: { kind: "csv", dialect }, sheets: [sheet] };
}

/** pretix's `_format` of single lists. */
const LIST_FORMATS = ["xlsx", "default", "csv-excel", "semicolon"] as const;

function listPlan(sheet: Sheet, params: Record<string, unknown>): { format: FileFormat; sheets: string[] } {
  const f = String(params._format);
  if (f === "xlsx") return { format: { kind: "xlsx" }, sheets: [sheet.key] };
  return {
    format: { kind: "csv", dialect: f === "csv-excel" ? "excel" : f === "semicolon" ? "semicolon" : "default" },
    sheets: [sheet.key],
  };
}

const ORDER_SHEETS = [ORDER_SHEET, POSITION_SHEET, FEE_SHEET];

const orderlist: ExporterDef = {
  identifier: "orderlist",
  verboseName: "Order data",
  eventLevel: true,
  organizerLevel: true,
  inputs(c) {
    const defs: InputDef[] = [
      { name: "_format", kind: "choice", required: true, choices: multiSheetFormats(ORDER_SHEETS) },
      { name: "paid_only", kind: "bool" },
      { name: "include_payment_amounts", kind: "bool" },
      { name: "group_multiple_choice", kind: "bool" },
      { name: "date_from", kind: "date" },
      { name: "date_to", kind: "date" },
    ];
    if (!c.eventLevel || c.hasSubevents)
      defs.push({ name: "event_date_from", kind: "date" }, { name: "event_date_to", kind: "date" });
    return defs;
  },
  sheets: ORDER_SHEETS,
  plan: (params) => multiSheetPlan(ORDER_SHEETS, params),
  async facts(x) {
    const ids = x.events.map((e) => e.id);
    const [rates, providers] = await readBatch(x.db, [
      sql`SELECT DISTINCT tax_rate FROM (
            SELECT p.tax_rate FROM order_positions p WHERE ${eventIn(sql`p.event_id`, ids)}
            UNION SELECT f.tax_rate FROM order_fees f JOIN orders o ON o.id = f.order_id WHERE ${eventIn(sql`o.event_id`, ids)}
          ) ORDER BY tax_rate`,
      sql`SELECT DISTINCT pay.provider FROM order_payments pay JOIN orders o ON o.id = pay.order_id
          WHERE ${eventIn(sql`o.event_id`, ids)} AND pay.provider <> 'free' ORDER BY pay.provider`,
    ]);
    return {
      taxRates: rates!.map((r) => Number(r.tax_rate)),
      paymentProviders: providers!.map((r) => text(r.provider)),
      hasSubevents: x.events.some((e) => e.hasSubevents),
      questions: await loadQuestions(x),
    };
  },
  filename: (x) => `${x.eventLevel ? x.events[0]!.slug : x.organizer.slug}_orders`,
};

// ---- checkinlist ----

/** The check-in list of a `checkinlist` export, as it was when the export started. */
type ListFact = { id: number; name: string; allProducts: boolean; subeventId: number | null; includePending: boolean };

/**
 * pretix's check-in list export (`CSVCheckinList`): the tickets of the chosen list (its
 * products, its date, paid orders and with `include_pending` also pending ones), with the
 * list's check-ins: the last entry ("Checked in"), the last exit ("Checked out") and whether an
 * automatic check-in happened, all of successful scans on that list only.
 */
function checkinSort(x: ExportContext): SQL {
  const sort = String(x.params.sort ?? "name");
  let key: SQL;
  if (sort === "code") key = sql`o.code`;
  else if (sort.startsWith("name:")) {
    const path = `$.${sort.slice(5)}`;
    key = sql`coalesce(nullif(json_extract(p.attendee_name_parts, ${path}), ''), nullif(json_extract(parent.attendee_name_parts, ${path}), ''), nullif(json_extract(o.invoice_address, ${`$.name_parts.${sort.slice(5)}`}), ''), '')`;
  } else {
    key = sql`coalesce(nullif(p.attendee_name, ''), nullif(parent.attendee_name, ''), nullif(json_extract(o.invoice_address, '$.name_parts.full_name'), ''),
                       nullif(trim(coalesce(json_extract(o.invoice_address, '$.name_parts.given_name'), '') || ' ' || coalesce(json_extract(o.invoice_address, '$.name_parts.family_name'), '')), ''),
                       o.code)`;
  }
  return key;
}

/** The last successful scan of a type on the list (pretix: `Max('datetime')` of `Checkin.objects`, which are the successful ones). */
function lastScan(list: ListFact, type: "entry" | "exit"): SQL {
  return sql`(SELECT max(c.datetime) FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 AND c.type = ${type})`;
}

/** pretix's `status` input: '' all, '1' checked in, '2' present, '3' checked in but left, '0' not checked in. */
function checkinStatusCondition(list: ListFact, status: unknown): SQL | null {
  const lastIn = lastScan(list, "entry");
  const lastOut = lastScan(list, "exit");
  switch (status) {
    case "1":
      return sql`${lastIn} IS NOT NULL`;
    case "2":
      // pretix's `positions_inside`: an entry, and no exit since
      return sql`${lastIn} IS NOT NULL AND (${lastOut} IS NULL OR ${lastOut} < ${lastIn})`;
    case "3":
      return sql`${lastIn} IS NOT NULL AND ${lastOut} IS NOT NULL AND ${lastOut} >= ${lastIn}`;
    case "0":
      return sql`${lastIn} IS NULL`;
    default:
      return null;
  }
}

function checkinConditions(x: ExportContext, facts: Facts): SQL[] {
  const tz = inputTimezone(x);
  const list = facts.list as ListFact;
  const out: SQL[] = [sql`p.event_id = ${x.events[0]!.id}`, checkinListTicketsSql(list)];
  if (x.params.attention_only) out.push(sql`(i.checkin_attention = 1 OR o.checkin_attention = 1)`);
  const status = checkinStatusCondition(list, x.params.status);
  if (status) out.push(status);
  const from = dayStart(x.params.date_from, tz);
  const to = dayStart(x.params.date_to, tz, 1);
  if (from !== null) out.push(sql`se.date_from >= ${from}`);
  if (to !== null) out.push(sql`se.date_from < ${to}`);
  return out;
}

const CHECKIN_FROM = sql`order_positions p JOIN orders o ON o.id = p.order_id JOIN items i ON i.id = p.item_id
  LEFT JOIN order_positions parent ON parent.id = p.addon_to
  LEFT JOIN subevents se ON se.id = p.subevent_id`;

const CHECKIN_SHEET: Sheet = {
  key: "checkinlist",
  title: "Check-in list",
  async count(x, facts) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM ${CHECKIN_FROM} WHERE ${and(checkinConditions(x, facts))}`,
    );
    return Number(r?.n ?? 0);
  },
  header(x, facts) {
    const parts = schemeParts(x);
    const questions = (facts.questions as QuestionFact[]).filter((q) =>
      (x.params.questions as number[]).includes(q.id),
    );
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
      ...questions.map((q) => i18nText(q.question, x.locale)),
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
    const key = checkinSort(x);
    const list = facts.list as ListFact;
    const rows = await readRows(
      x.db,
      sql`SELECT * FROM (
            SELECT p.id, ${x.events[0]!.hasSubevents ? sql`coalesce(se.date_from, 0)` : sql`0`} AS sort_date, ${key} AS sort_key, p.price, p.attendee_name, p.attendee_name_parts, p.attendee_email, p.secret, p.answers, p.seat, p.seat_name,
                   parent.attendee_name AS parent_name, parent.attendee_name_parts AS parent_name_parts, parent.attendee_email AS parent_email, parent.answers AS parent_answers,
                   o.code, o.status, o.email, o.datetime, o.comment, o.invoice_address, o.checkin_attention AS order_attention,
                   i.name AS item_name, i.checkin_attention AS item_attention, v.value AS variation_name, vo.code AS voucher_code,
                   se.name AS subevent_name, se.date_from AS subevent_from, se.date_to AS subevent_to,
                   s.zone_name, s.row_name, s.seat_number,
                   ${lastScan(list, "entry")} AS last_checked_in, ${lastScan(list, "exit")} AS last_checked_out,
                   EXISTS (SELECT 1 FROM checkins c WHERE c.position_id = p.id AND c.list_id = ${list.id} AND c.successful = 1 AND c.auto_checked_in = 1) AS auto_checked_in
            FROM ${CHECKIN_FROM}
            LEFT JOIN item_variations v ON v.id = p.variation_id
            LEFT JOIN vouchers vo ON vo.id = p.voucher_id
            LEFT JOIN seating_plan_seats s ON s.id = p.seat_id
            WHERE ${and(checkinConditions(x, facts))}
          ) WHERE ${after(cursor, sql`sort_date, sort_key, id`)} ORDER BY sort_date, sort_key, id LIMIT ${limit}`,
    );
    const parts = schemeParts(x);
    const tz = x.events[0]!.timezone;
    const questions = (facts.questions as QuestionFact[]).filter((q) =>
      (x.params.questions as number[]).includes(q.id),
    );
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

const checkinlist: ExporterDef = {
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
    const [lists, questions] = await Promise.all([
      readRows(
        x.db,
        sql`SELECT id, name, all_products, subevent_id, include_pending FROM checkin_lists WHERE id = ${Number(x.params.list)} AND event_id = ${x.events[0]!.id}`,
      ),
      loadQuestions(x),
    ]);
    const row = lists[0];
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

// ---- json ----

function jsonDate(ms: unknown): string | null {
  return ms === null || ms === undefined ? null : toIso(Number(ms));
}

const JSON_ORDERS: Sheet = {
  key: "orders",
  title: "orders",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM orders WHERE event_id = ${x.events[0]!.id}`,
    );
    return Number(r?.n ?? 0);
  },
  header: () => [],
  async page(x, _facts, cursor, limit) {
    const ev = x.events[0]!;
    const where = sql`o.event_id = ${ev.id} AND ${after(cursor, sql`o.id`)}`;
    const pageIds = sql`SELECT o.id FROM orders o WHERE ${where} ORDER BY o.id LIMIT ${limit}`;
    const [orders, positions, fees] = await readBatch(x.db, [
      sql`SELECT o.*, c.identifier AS customer FROM orders o LEFT JOIN customers c ON c.id = o.customer_id WHERE ${where} ORDER BY o.id LIMIT ${limit}`,
      sql`SELECT p.* FROM order_positions p WHERE p.canceled = 0 AND p.order_id IN (${pageIds}) ORDER BY p.order_id, p.positionid`,
      sql`SELECT f.* FROM order_fees f WHERE f.canceled = 0 AND f.order_id IN (${pageIds}) ORDER BY f.order_id, f.id`,
    ]);
    const byOrder = <T extends Row>(rows: T[]) => {
      const m = new Map<number, T[]>();
      for (const r of rows) {
        const k = Number(r.order_id);
        m.set(k, [...(m.get(k) ?? []), r]);
      }
      return m;
    };
    const pos = byOrder(positions!);
    const fee = byOrder(fees!);
    const out = orders!.map((o) => ({
      code: o.code,
      status: o.status,
      customer: o.customer ?? null,
      testmode: Boolean(o.testmode),
      user: o.email ?? null,
      email: o.email ?? null,
      phone: o.phone ?? null,
      locale: o.locale,
      comment: o.comment,
      require_approval: Boolean(o.require_approval),
      checkin_attention: Boolean(o.checkin_attention),
      sales_channel: o.sales_channel,
      expires: jsonDate(o.expires),
      datetime: jsonDate(o.datetime),
      fees: (fee.get(Number(o.id)) ?? []).map((f) => ({
        type: f.fee_type,
        description: f.description,
        value: formatDecimal(Number(f.value)),
      })),
      total: formatDecimal(Number(o.total)),
      positions: (pos.get(Number(o.id)) ?? []).map((p) => ({
        id: p.id,
        positionid: p.positionid,
        item: p.item_id,
        variation: p.variation_id ?? null,
        subevent: p.subevent_id ?? null,
        seat: p.seat ?? null,
        price: formatDecimal(Number(p.price)),
        tax_rate: formatDecimal(Number(p.tax_rate)),
        tax_value: formatDecimal(Number(p.tax_value)),
        attendee_name: p.attendee_name ?? null,
        attendee_email: p.attendee_email ?? null,
        secret: p.secret,
        addon_to: p.addon_to ?? null,
        answers: (json<StoredAnswer[]>(p.answers) ?? []).map((a) => ({ question: a.question, answer: a.answer })),
      })),
    }));
    const last = orders!.at(-1);
    return { rows: out, after: last ? [Number(last.id)] : cursor };
  },
};

const jsonExporter: ExporterDef = {
  identifier: "json",
  verboseName: "Order data (JSON)",
  eventLevel: true,
  organizerLevel: false,
  inputs: () => [],
  sheets: [JSON_ORDERS],
  plan: () => ({ format: { kind: "json" }, sheets: ["orders"] }),
  facts: async () => ({}),
  filename: (x) => `${x.events[0]!.slug}_pretixdata`,
  json: {
    async head(x) {
      const ev = x.events[0]!;
      const [meta, categories, items, variations, questions, quotas, quotaItems, subevents] = await readBatch(x.db, [
        sql`SELECT p.name, v.value FROM event_meta_values v JOIN event_meta_properties p ON p.id = v.property_id WHERE v.event_id = ${ev.id}`,
        sql`SELECT * FROM item_categories WHERE event_id = ${ev.id} ORDER BY position, id`,
        sql`SELECT i.*, t.rate AS tax_rate_value, t.name AS tax_name FROM items i LEFT JOIN tax_rules t ON t.id = i.tax_rule_id WHERE i.event_id = ${ev.id} ORDER BY i.position, i.id`,
        sql`SELECT v.* FROM item_variations v JOIN items i ON i.id = v.item_id WHERE i.event_id = ${ev.id} ORDER BY v.position, v.id`,
        sql`SELECT * FROM questions WHERE event_id = ${ev.id} ORDER BY position, id`,
        sql`SELECT * FROM quotas WHERE event_id = ${ev.id} ORDER BY id`,
        sql`SELECT qi.* FROM quota_items qi JOIN quotas q ON q.id = qi.quota_id WHERE q.event_id = ${ev.id}`,
        sql`SELECT * FROM subevents WHERE event_id = ${ev.id} ORDER BY date_from, id`,
      ]);
      const l = x.locale;
      const head = {
        name: i18nText(ev.name, l),
        slug: ev.slug,
        organizer: { name: x.organizer.name, slug: x.organizer.slug },
        meta_data: Object.fromEntries(meta!.map((m) => [m.name, m.value])),
        categories: categories!.map((c) => ({
          id: c.id,
          name: i18n(c.name, l),
          description: i18n(c.description, l),
          position: c.position,
          internal_name: c.internal_name ?? null,
        })),
        items: items!.map((i) => ({
          id: i.id,
          position: i.position,
          name: i18n(i.name, l),
          internal_name: i.internal_name ?? null,
          category: i.category_id ?? null,
          price: formatDecimal(Number(i.default_price)),
          tax_rate: formatDecimal(Number(i.tax_rate_value ?? 0)),
          tax_name: i.tax_name === null ? null : i18n(i.tax_name, l),
          admission: Boolean(i.admission),
          personalized: Boolean(i.personalized),
          active: Boolean(i.active),
          sales_channels: json<string[]>(i.sales_channels),
          description: i18n(i.description, l),
          available_from: jsonDate(i.available_from),
          available_until: jsonDate(i.available_until),
          require_voucher: Boolean(i.require_voucher),
          hide_without_voucher: Boolean(i.hide_without_voucher),
          allow_cancel: Boolean(i.allow_cancel),
          require_bundling: Boolean(i.require_bundling),
          min_per_order: i.min_per_order ?? null,
          max_per_order: i.max_per_order ?? null,
          checkin_attention: Boolean(i.checkin_attention),
          original_price: i.original_price === null ? null : formatDecimal(Number(i.original_price)),
          issue_giftcard: Boolean(i.issue_giftcard),
          meta_data: json<Record<string, string>>(i.meta_data),
          require_membership: Boolean(i.require_membership),
          variations: variations!
            .filter((v) => v.item_id === i.id)
            .map((v) => ({
              id: v.id,
              active: Boolean(v.active),
              price: formatDecimal(Number(v.default_price ?? i.default_price)),
              name: i18n(v.value, l),
              description: i18n(v.description, l),
              position: v.position,
              require_membership: Boolean(v.require_membership),
              sales_channels: json<string[]>(v.sales_channels),
              available_from: jsonDate(v.available_from),
              available_until: jsonDate(v.available_until),
              hide_without_voucher: Boolean(v.hide_without_voucher),
            })),
        })),
        questions: questions!.map((q) => ({
          id: q.id,
          identifier: q.identifier,
          required: Boolean(q.required),
          question: i18n(q.question, l),
          position: q.position,
          hidden: Boolean(q.hidden),
          ask_during_checkin: Boolean(q.ask_during_checkin),
          help_text: i18n(q.help_text, l),
          type: q.type,
        })),
        quotas: quotas!.map((q) => ({
          id: q.id,
          size: q.size ?? null,
          subevent: q.subevent_id ?? null,
          items: [...new Set(quotaItems!.filter((qi) => qi.quota_id === q.id).map((qi) => qi.item_id))],
          variations: quotaItems!
            .filter((qi) => qi.quota_id === q.id && qi.variation_id !== null)
            .map((qi) => qi.variation_id),
        })),
        subevents: subevents!.map((s) => ({
          id: s.id,
          name: i18n(s.name, l),
          location: i18n(s.location, l),
          date_from: jsonDate(s.date_from),
          date_to: jsonDate(s.date_to),
          date_admission: jsonDate(s.date_admission),
          geo_lat: s.geo_lat ?? null,
          geo_lon: s.geo_lon ?? null,
          is_public: Boolean(s.is_public),
        })),
      };
      const text = JSON.stringify({ event: head });
      // the orders follow as the event's last member
      return `${text.slice(0, -2)},"orders":[`;
    },
    tail: "]}}",
  },
};

// ---- invoicedata ----

/**
 * pretix's `InvoiceDataExporter` ("Invoice data", `base/exporters/invoices.py`): a sheet with a
 * row per invoice and one with a row per invoice line, of the export's events, ordered by
 * invoice number. Inputs as pretix's `InvoiceExporterMixin`: the date range the invoices were
 * issued in (`date_from`, `date_to`: the invoice date, inclusive) and `payment_provider` (orders
 * with at least one payment attempt of that provider). Columns as pretix's as far as the
 * service's invoices carry them (no reverse charge flag, no payment matching ids: the service's
 * payment providers have none); the foreign currency columns stay empty (the service converts no
 * currencies, as the invoices' `foreign_currency_*` say).
 */

/** pretix's payment providers that are not meta providers (`free` is one), as the service has them. */
const INVOICE_PAYMENT_PROVIDERS = ["", "giftcard", "manual"] as const;

/** Conditions on invoices (alias `i`, their order `o`) from the inputs. */
function invoiceConditions(x: ExportContext): SQL[] {
  const p = x.params;
  const out: SQL[] = [
    eventIn(
      sql`i.event_id`,
      x.events.map((e) => e.id),
    ),
  ];
  // invoice dates are stored as YYYY-MM-DD (in the event's timezone), so text comparison is date comparison
  if (typeof p.date_from === "string") out.push(sql`i.date >= ${p.date_from}`);
  if (typeof p.date_to === "string") out.push(sql`i.date <= ${p.date_to}`);
  if (typeof p.payment_provider === "string" && p.payment_provider !== "") {
    out.push(
      sql`EXISTS (SELECT 1 FROM order_payments pay WHERE pay.order_id = i.order_id AND pay.provider = ${p.payment_provider}
                  AND pay.state IN ('confirmed', 'refunded', 'pending', 'created'))`,
    );
  }
  return out;
}

const INVOICE_FROM = sql`invoices i JOIN orders o ON o.id = i.order_id LEFT JOIN invoices r ON r.id = i.refers_id`;

const SENDER_COLUMNS = ["Name", "Address", "ZIP code", "City", "Country", "Tax ID", "VAT ID"].map(
  (c) => `Invoice sender: ${c}`,
);
const RECIPIENT_COLUMNS = [
  "Company",
  "Name",
  "Street address",
  "ZIP code",
  "City",
  "Country",
  "State",
  "VAT ID",
  "Beneficiary",
  "Internal reference",
].map((c) => `Invoice recipient: ${c}`);

type StoredTexts = Partial<Record<string, string | null>>;

function senderCells(t: StoredTexts): Cell[] {
  return [
    text(t.invoice_from_name),
    text(t.invoice_from),
    text(t.invoice_from_zipcode),
    text(t.invoice_from_city),
    text(t.invoice_from_country),
    text(t.invoice_from_tax_id),
    text(t.invoice_from_vat_id),
  ];
}

function recipientCells(t: StoredTexts): Cell[] {
  return [
    text(t.invoice_to_company),
    text(t.invoice_to_name),
    text(t.invoice_to_street) || text(t.invoice_to),
    text(t.invoice_to_zipcode),
    text(t.invoice_to_city),
    text(t.invoice_to_country),
    text(t.invoice_to_state),
    text(t.invoice_to_vat_id),
    text(t.invoice_to_beneficiary),
    text(t.internal_reference),
  ];
}

const invoiceType = (v: unknown) => (v ? "Cancellation" : "Invoice");

const INVOICE_SHEET: Sheet = {
  key: "invoices",
  title: "Invoices",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM ${INVOICE_FROM} WHERE ${and(invoiceConditions(x))}`,
    );
    return Number(r?.n ?? 0);
  },
  header: () => [
    "Invoice number",
    "Date",
    "Order code",
    "Email address",
    "Invoice type",
    "Cancellation of",
    "Language",
    ...SENDER_COLUMNS,
    ...RECIPIENT_COLUMNS,
    "Shown foreign currency",
    "Foreign currency rate",
    "Total value (with taxes)",
    "Total value (without taxes)",
    "Payment providers",
  ],
  async page(x, _facts, cursor, limit) {
    const rows = await readRows(
      x.db,
      sql`SELECT i.id, i.number, i.date, i.locale, i.is_cancellation, i.texts, r.number AS refers_number, o.code, o.email,
                 (SELECT coalesce(sum(json_extract(l.value, '$.gross_value')), 0) FROM json_each(i.lines) l) AS gross,
                 (SELECT coalesce(sum(json_extract(l.value, '$.tax_value')), 0) FROM json_each(i.lines) l) AS tax,
                 ${PROVIDERS} AS providers
          FROM ${INVOICE_FROM}
          WHERE ${and(invoiceConditions(x))} AND ${after(cursor, sql`i.number, i.id`)}
          ORDER BY i.number, i.id LIMIT ${limit}`,
    );
    const out = rows.map((r): Cell[] => {
      const t = json<StoredTexts>(r.texts) ?? {};
      const gross = Number(r.gross),
        tax = Number(r.tax);
      return [
        text(r.number),
        text(r.date),
        text(r.code),
        text(r.email),
        invoiceType(r.is_cancellation),
        text(r.refers_number),
        text(r.locale),
        ...senderCells(t),
        ...recipientCells(t),
        "",
        "",
        money(gross),
        money(gross - tax),
        providerList(r.providers),
      ];
    });
    const last = rows.at(-1);
    return { rows: out, after: last ? [text(last.number), Number(last.id)] : cursor };
  },
};

type StoredLine = {
  position?: number;
  description?: string;
  gross_value?: number;
  tax_value?: number;
  tax_rate?: number;
  tax_name?: string;
  event_date_from?: number | null;
  event_date_to?: number | null;
  event_location?: string | null;
};

const INVOICE_LINE_SHEET: Sheet = {
  key: "lines",
  title: "Invoice lines",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT coalesce(sum(json_array_length(i.lines)), 0) AS n FROM ${INVOICE_FROM} WHERE ${and(invoiceConditions(x))}`,
    );
    return Number(r?.n ?? 0);
  },
  header: () => [
    "Invoice number",
    "Line number",
    "Description",
    "Gross price",
    "Net price",
    "Tax value",
    "Tax rate",
    "Tax name",
    "Event start date",
    "Date",
    "Order code",
    "Email address",
    "Invoice type",
    "Cancellation of",
    ...SENDER_COLUMNS,
    ...RECIPIENT_COLUMNS,
    "Payment providers",
    "Event end date",
    "Location",
  ],
  async page(x, _facts, cursor, limit) {
    const rows = await readRows(
      x.db,
      sql`SELECT i.id, i.event_id, i.number, i.date, i.is_cancellation, i.texts, r.number AS refers_number, o.code, o.email,
                 l.key AS line_index, l.value AS line, ${PROVIDERS} AS providers
          FROM ${INVOICE_FROM} JOIN json_each(i.lines) l
          WHERE ${and(invoiceConditions(x))} AND ${after(cursor, sql`i.number, i.id, l.key`)}
          ORDER BY i.number, i.id, l.key LIMIT ${limit}`,
    );
    const out = rows.map((r): Cell[] => {
      const t = json<StoredTexts>(r.texts) ?? {};
      const l = json<StoredLine>(r.line) ?? {};
      const tz = eventOf(x, r.event_id).timezone;
      const gross = Number(l.gross_value ?? 0),
        tax = Number(l.tax_value ?? 0);
      return [
        text(r.number),
        l.position ?? Number(r.line_index) + 1,
        text(l.description).replace(/\n/g, " - "),
        money(gross),
        money(gross - tax),
        money(tax),
        decimal(formatDecimal(Number(l.tax_rate ?? 0))),
        text(l.tax_name),
        l.event_date_from === null || l.event_date_from === undefined ? "" : localDate(Number(l.event_date_from), tz),
        text(r.date),
        text(r.code),
        text(r.email),
        invoiceType(r.is_cancellation),
        text(r.refers_number),
        ...senderCells(t),
        ...recipientCells(t),
        providerList(r.providers),
        l.event_date_to === null || l.event_date_to === undefined ? "" : localDate(Number(l.event_date_to), tz),
        text(l.event_location),
      ];
    });
    const last = rows.at(-1);
    return { rows: out, after: last ? [text(last.number), Number(last.id), Number(last.line_index)] : cursor };
  },
};

const INVOICE_SHEETS = [INVOICE_SHEET, INVOICE_LINE_SHEET];

const invoicedata: ExporterDef = {
  identifier: "invoicedata",
  verboseName: "Invoice data",
  eventLevel: true,
  organizerLevel: true,
  inputs: () => [
    { name: "_format", kind: "choice", required: true, choices: multiSheetFormats(INVOICE_SHEETS) },
    { name: "date_from", kind: "date" },
    { name: "date_to", kind: "date" },
    { name: "payment_provider", kind: "choice", required: false, choices: INVOICE_PAYMENT_PROVIDERS },
  ],
  sheets: INVOICE_SHEETS,
  plan: (params) => multiSheetPlan(INVOICE_SHEETS, params),
  facts: async () => ({}),
  filename: (x) => `${x.eventLevel ? x.events[0]!.slug : x.organizer.slug}_invoices`,
};

// ---- organizer lists ----

const GIFTCARD_SHEET: Sheet = {
  key: "giftcardlist",
  title: "Gift cards",
  async count(x) {
    const [r] = await readRows<{ n: number }>(x.db, sql`SELECT count(*) AS n FROM (${giftcardQuery(x)})`);
    return Number(r?.n ?? 0);
  },
  header: () => [
    "Gift card code",
    "Test mode card",
    "Creation date",
    "Expiry date",
    "Special terms and conditions",
    "Currency",
    "Current value",
    "Created in order",
  ],
  async page(x, _facts, cursor, limit) {
    const rows = await readRows(
      x.db,
      sql`SELECT * FROM (${giftcardQuery(x)}) WHERE ${after(cursor, sql`issuance, id`)} ORDER BY issuance, id LIMIT ${limit}`,
    );
    const tz = "UTC";
    const out = rows.map((r): Cell[] => [
      text(r.secret),
      yesNo(r.testmode),
      localDate(Number(r.issuance), tz),
      r.expires === null ? "" : localDate(Number(r.expires), tz),
      text(r.conditions),
      text(r.currency),
      money(r.value_at),
      r.order_code === null ? "" : `${text(r.order_event).toUpperCase()}-${text(r.order_code)}`,
    ]);
    const last = rows.at(-1);
    return { rows: out, after: last ? [Number(last.issuance), Number(last.id)] : cursor };
  },
};

/** Gift cards of the organizer as of the `date` input, with pretix's `testmode` and `state` filters. */
function giftcardQuery(x: ExportContext): SQL {
  const at = typeof x.params.date === "number" ? x.params.date : x.now;
  const conditions: SQL[] = [sql`1`];
  if (x.params.testmode === "yes") conditions.push(sql`testmode = 1`);
  if (x.params.testmode === "no") conditions.push(sql`testmode = 0`);
  const state = x.params.state;
  if (state === "empty") conditions.push(sql`value_at = 0`);
  if (state === "valid_value") conditions.push(sql`value_at <> 0 AND (expires IS NULL OR expires >= ${at})`);
  if (state === "expired_value") conditions.push(sql`value_at <> 0 AND expires < ${at}`);
  if (state === "expired") conditions.push(sql`expires < ${at}`);
  return sql`SELECT * FROM (
      SELECT g.id, g.secret, g.testmode, g.issuance, g.expires, g.conditions, g.currency,
             (SELECT coalesce(sum(t.value), 0) FROM gift_card_transactions t WHERE t.card_id = g.id AND t.datetime <= ${at}) AS value_at,
             (SELECT o.code FROM gift_card_transactions t JOIN orders o ON o.id = t.order_id WHERE t.card_id = g.id ORDER BY t.datetime, t.id LIMIT 1) AS order_code,
             (SELECT e.slug FROM gift_card_transactions t JOIN orders o ON o.id = t.order_id JOIN events e ON e.id = o.event_id WHERE t.card_id = g.id ORDER BY t.datetime, t.id LIMIT 1) AS order_event
      FROM gift_cards g WHERE g.issuer_id = ${x.organizer.id} AND g.issuance <= ${at}
    ) WHERE ${and(conditions)}`;
}

const giftcardlist: ExporterDef = {
  identifier: "giftcardlist",
  verboseName: "Gift cards",
  eventLevel: false,
  organizerLevel: true,
  organizerPermission: "can_manage_gift_cards",
  inputs: () => [
    { name: "_format", kind: "choice", required: true, choices: LIST_FORMATS },
    { name: "date", kind: "datetime" },
    { name: "testmode", kind: "choice", required: false, choices: ["", "yes", "no"] },
    {
      name: "state",
      kind: "choice",
      required: false,
      choices: ["", "empty", "valid_value", "expired_value", "expired"],
    },
  ],
  sheets: [GIFTCARD_SHEET],
  plan: (params) => listPlan(GIFTCARD_SHEET, params),
  facts: async () => ({}),
  filename: (x) => `${x.organizer.slug}_giftcards`,
};

const CUSTOMER_SHEET: Sheet = {
  key: "customerlist",
  title: "Customer accounts",
  async count(x) {
    const [r] = await readRows<{ n: number }>(
      x.db,
      sql`SELECT count(*) AS n FROM customers WHERE organizer_id = ${x.organizer.id}`,
    );
    return Number(r?.n ?? 0);
  },
  header: () => [
    "Customer ID",
    "External identifier",
    "Email",
    "Full name",
    "Account active",
    "Verified email address",
    "Last login",
    "Registration date",
    "Language",
    "Notes",
  ],
  async page(x, _facts, cursor, limit) {
    const rows = await readRows(
      x.db,
      sql`SELECT id, identifier, external_identifier, email, name_cached, is_active, is_verified, last_login, date_joined, locale, notes
          FROM customers WHERE organizer_id = ${x.organizer.id} AND ${after(cursor, sql`id`)} ORDER BY id LIMIT ${limit}`,
    );
    const out = rows.map((r): Cell[] => [
      text(r.identifier),
      text(r.external_identifier),
      text(r.email),
      text(r.name_cached),
      yesNo(r.is_active),
      yesNo(r.is_verified),
      r.last_login === null ? "" : localDate(Number(r.last_login), "UTC"),
      Number(r.date_joined) ? localDate(Number(r.date_joined), "UTC") : "",
      text(r.locale),
      text(r.notes),
    ]);
    const last = rows.at(-1);
    return { rows: out, after: last ? [Number(last.id)] : cursor };
  },
};

const customerlist: ExporterDef = {
  identifier: "customerlist",
  verboseName: "Customer accounts",
  eventLevel: false,
  organizerLevel: true,
  organizerPermission: "can_manage_customers",
  inputs: () => [{ name: "_format", kind: "choice", required: true, choices: LIST_FORMATS }],
  sheets: [CUSTOMER_SHEET],
  plan: (params) => listPlan(CUSTOMER_SHEET, params),
  facts: async () => ({}),
  filename: (x) => `${x.organizer.slug}_customers`,
};

/** Every exporter, in pretix's order of the list (by verbose name). */
export const EXPORTERS: readonly ExporterDef[] = [
  checkinlist,
  customerlist,
  giftcardlist,
  invoicedata,
  orderlist,
  jsonExporter,
];

export function findExporter(identifier: string): ExporterDef | undefined {
  return EXPORTERS.find((e) => e.identifier === identifier);
}
