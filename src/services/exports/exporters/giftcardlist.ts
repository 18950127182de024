/**
 * `giftcardlist` "Gift cards" (pretix `base/exporters/orderlist.py`), organizer level with
 * can_manage_gift_cards: the organizer's gift cards as of `date` (default: now), with their
 * value then and the order that created them; `testmode` and `state` filter them.
 */
import { countGiftCards, type GiftCardFilter, giftCardPage } from "../../../db/exports/giftcardlist";
import { localDate, money, text, yesNo } from "../cells";
import { type ExportContext, type ExporterDef, LIST_FORMATS, listPlan, type Sheet } from "../exporter";
import type { Cell } from "../formats";

function giftCardFilter(x: ExportContext): GiftCardFilter {
  const p = x.params;
  return {
    organizerId: x.organizer.id,
    at: typeof p.date === "number" ? p.date : x.now,
    testmode: typeof p.testmode === "string" ? p.testmode : null,
    state: typeof p.state === "string" ? p.state : null,
  };
}

const GIFTCARD_SHEET: Sheet = {
  key: "giftcardlist",
  title: "Gift cards",
  count: (x) => countGiftCards(x.db, giftCardFilter(x)),
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
    const rows = await giftCardPage(x.db, giftCardFilter(x), cursor, limit);
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

export const giftcardlist: ExporterDef = {
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
