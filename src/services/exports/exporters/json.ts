/**
 * `json` "Order data (JSON)" (pretix `base/exporters/json.py`), event level: one document with
 * the event's catalog (categories, products with their variations, questions, quotas, dates)
 * and all its orders with their positions and fees, in the event's language.
 */
import { countEventOrders, eventCatalog, orderDocumentPage } from "../../../db/exports/json";
import type { Row } from "../../../db/raw";
import { toIso } from "../../../lib/datetime";
import { i18nText } from "../../../lib/i18n";
import { formatDecimal } from "../../../lib/money";
import { i18n, json } from "../cells";
import type { ExporterDef, Sheet } from "../exporter";
import type { StoredAnswer } from "../questions";

function jsonDate(ms: unknown): string | null {
  return ms === null || ms === undefined ? null : toIso(Number(ms));
}

const JSON_ORDERS: Sheet = {
  key: "orders",
  title: "orders",
  count: (x) => countEventOrders(x.db, x.events[0]!.id),
  header: () => [],
  async page(x, _facts, cursor, limit) {
    const { orders, positions, fees } = await orderDocumentPage(x.db, x.events[0]!.id, cursor, limit);
    const byOrder = <T extends Row>(rows: T[]) => {
      const m = new Map<number, T[]>();
      for (const r of rows) {
        const k = Number(r.order_id);
        m.set(k, [...(m.get(k) ?? []), r]);
      }
      return m;
    };
    const pos = byOrder(positions);
    const fee = byOrder(fees);
    const out = orders.map((o) => ({
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
    const last = orders.at(-1);
    return { rows: out, after: last ? [Number(last.id)] : cursor };
  },
};

type Catalog = Awaited<ReturnType<typeof eventCatalog>>;

/** An item of the event as the JSON export shows it, with its variations. */
function jsonItem(i: Catalog["items"][number], variations: Catalog["variations"], l: string) {
  return {
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
    variations: variations
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
  };
}

export const jsonExporter: ExporterDef = {
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
      const { meta, categories, items, variations, questions, quotas, quotaItems, subevents } = await eventCatalog(
        x.db,
        ev.id,
      );
      const l = x.locale;
      const head = {
        name: i18nText(ev.name, l),
        slug: ev.slug,
        organizer: { name: x.organizer.name, slug: x.organizer.slug },
        meta_data: Object.fromEntries(meta.map((m) => [m.name, m.value])),
        categories: categories.map((c) => ({
          id: c.id,
          name: i18n(c.name, l),
          description: i18n(c.description, l),
          position: c.position,
          internal_name: c.internal_name ?? null,
        })),
        items: items.map((i) => jsonItem(i, variations, l)),
        questions: questions.map((q) => ({
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
        quotas: quotas.map((q) => ({
          id: q.id,
          size: q.size ?? null,
          subevent: q.subevent_id ?? null,
          items: [...new Set(quotaItems.filter((qi) => qi.quota_id === q.id).map((qi) => qi.item_id))],
          variations: quotaItems
            .filter((qi) => qi.quota_id === q.id && qi.variation_id !== null)
            .map((qi) => qi.variation_id),
        })),
        subevents: subevents.map((s) => ({
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
