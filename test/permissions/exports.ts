import type { MatrixRow } from "./types";

const org = "/api/v1/organizers/:organizer";
const ev = `${org}/events/:event`;

/**
 * Exporters (pretix: event level can_view_orders; organizer level any team, each exporter
 * then by its own permission). The run rows send an empty body: 400 (no `_format`), no export
 * starts.
 */
export const rows: MatrixRow[] = [
  { route: `GET ${ev}/exporters`, permission: "can_view_orders" },
  { route: `POST ${ev}/exporters/:identifier/run`, permission: "can_view_orders", params: { identifier: "orderlist" } },
  { route: `GET ${ev}/exporters/:identifier/download/:id`, permission: "can_view_orders", params: { identifier: "orderlist", id: "00000000-0000-4000-8000-000000000000" } },
  { route: `GET ${org}/exporters`, permission: null },
  { route: `POST ${org}/exporters/:identifier/run`, permission: null, params: { identifier: "orderlist" } },
  { route: `GET ${org}/exporters/:identifier/download/:id`, permission: null, params: { identifier: "orderlist", id: "00000000-0000-4000-8000-000000000000" } },
];
