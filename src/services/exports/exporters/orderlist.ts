/**
 * `orderlist` "Order data" (pretix `base/exporters/orderlist.py`), event and organizer level:
 * sheets "Orders", "Order positions" and "Order fees" of the export's events in order of the
 * orders' time, filtered by status, order date and (organizer level, or a series) the tickets'
 * date. The tax rate and payment provider columns and the questions are fixed when it starts.
 */
import {
  countFees,
  countOrders,
  countPositions,
  feePage,
  type OrderFilter,
  orderListFacts,
  orderPage,
  positionPage,
} from "../../../db/exports/orderlist";
import { formatDecimal } from "../../../lib/money";
import { feeName } from "../../../rules/fees";
import { buildName } from "../../../rules/person-names";
import {
  eventOf,
  i18n,
  type InvoiceAddress,
  invoiceCells,
  invoiceColumns,
  json,
  localDate,
  localDateTime,
  localTime,
  money,
  orderHead,
  partLabel,
  providerList,
  STATUS_LABEL,
  schemeParts,
  text,
  yesNo,
} from "../cells";
import {
  type ExportContext,
  type ExporterDef,
  inputDay,
  multiSheetFormats,
  multiSheetPlan,
  type Sheet,
} from "../exporter";
import { type Cell, decimal } from "../formats";
import type { InputDef } from "../inputs";
import { answerCells, loadQuestions, type QuestionFact, questionHeaders } from "../questions";

/** The order inputs of the export. */
function orderFilter(x: ExportContext): OrderFilter {
  const p = x.params;
  return {
    eventIds: x.events.map((e) => e.id),
    paidOnly: Boolean(p.paid_only),
    from: inputDay(x, p.date_from),
    to: inputDay(x, p.date_to, 1),
    eventFrom: inputDay(x, p.event_date_from),
    eventTo: inputDay(x, p.event_date_to, 1),
  };
}

const ORDER_SHEET: Sheet = {
  key: "orders",
  title: "Orders",
  count: (x) => countOrders(x.db, orderFilter(x)),
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
    const { orders, taxes, paid } = await orderPage(x.db, orderFilter(x), cursor, limit);
    const rates = facts.taxRates as number[];
    const providers = facts.paymentProviders as string[];
    const taxOf = new Map(taxes.map((t) => [`${t.order_id}:${t.tax_rate}`, t]));
    const paidOf = new Map(paid.map((t) => [`${t.order_id}:${t.provider}`, Number(t.amount)]));
    const rows = orders.map((r): Cell[] => {
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
    const last = orders.at(-1);
    return { rows, after: last ? [Number(last.datetime), Number(last.id)] : cursor };
  },
};

const POSITION_SHEET: Sheet = {
  key: "positions",
  title: "Order positions",
  count: (x) => countPositions(x.db, orderFilter(x)),
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
    const rows = await positionPage(x.db, orderFilter(x), cursor, limit);
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

const FEE_SHEET: Sheet = {
  key: "fees",
  title: "Order fees",
  count: (x) => countFees(x.db, orderFilter(x)),
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
    const rows = await feePage(x.db, orderFilter(x), cursor, limit);
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
        feeName(text(r.fee_type)),
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

const ORDER_SHEETS = [ORDER_SHEET, POSITION_SHEET, FEE_SHEET];

export const orderlist: ExporterDef = {
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
    const { taxRates, paymentProviders } = await orderListFacts(
      x.db,
      x.events.map((e) => e.id),
    );
    return {
      taxRates,
      paymentProviders,
      hasSubevents: x.events.some((e) => e.hasSubevents),
      questions: await loadQuestions(x),
    };
  },
  filename: (x) => `${x.eventLevel ? x.events[0]!.slug : x.organizer.slug}_orders`,
};
