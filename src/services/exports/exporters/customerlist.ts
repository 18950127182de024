/**
 * `customerlist` "Customer accounts" (pretix `base/exporters/customers.py`), organizer level
 * with can_manage_customers: the organizer's customer accounts by id.
 */
import { countCustomers, customerPage } from "../../../db/exports/customerlist";
import { localDate, text, yesNo } from "../cells";
import { type ExporterDef, LIST_FORMATS, listPlan, type Sheet } from "../exporter";
import type { Cell } from "../formats";

const CUSTOMER_SHEET: Sheet = {
  key: "customerlist",
  title: "Customer accounts",
  count: (x) => countCustomers(x.db, x.organizer.id),
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
    const rows = await customerPage(x.db, x.organizer.id, cursor, limit);
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

export const customerlist: ExporterDef = {
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
