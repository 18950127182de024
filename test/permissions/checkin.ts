import { expect } from "vitest";
import { unique } from "../harness";
import { checkinListBody, create, id, paidOrder, type SetupWorld } from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";
const org = "/api/v1/organizers/:organizer";

/**
 * Check-in (pretix checkinlists.rst, checkin.rst). Reading lists and tickets needs
 * `checkin:read` (can_view_orders or can_checkin_orders), scanning and reporting failed scans
 * `checkin:scan` (can_change_orders or can_checkin_orders), the check-in history
 * can_view_orders, changing lists can_change_event_settings. The check-in RPC admits any
 * credential of the organizer and refuses the lists of events it cannot use, as pretix does.
 * Devices read and scan, never change lists.
 */
const list = async (w: SetupWorld) => create(w, `${w.ev}/checkinlists`, checkinListBody());
const listParam = async (w: SetupWorld): Promise<RowSetup> => ({ params: { id: id(await list(w)) } });
/** A list of every product and a paid ticket on it. */
async function ticket(w: SetupWorld) {
  const l = await list(w);
  const position = (await paidOrder(w)).positions[0];
  return { list: id(l), position: String(position.id), secret: String(position.secret) };
}
const ticketParams = async (w: SetupWorld): Promise<RowSetup> => {
  const t = await ticket(w);
  return { params: { list: t.list, id: t.position } };
};

export const rows: MatrixRow[] = [
  { route: `GET ${ev}/checkinlists`, permission: "checkin:read", setup: listParam },
  {
    route: `POST ${ev}/checkinlists`,
    permission: "can_change_event_settings",
    setup: async () => ({ body: checkinListBody() }),
  },
  { route: `GET ${ev}/checkinlists/:id`, permission: "checkin:read", setup: listParam },
  { route: `GET ${ev}/checkinlists/:id/status`, permission: "checkin:read", setup: listParam },
  {
    route: `PUT ${ev}/checkinlists/:id`,
    permission: "can_change_event_settings",
    setup: async (w) => ({ ...(await listParam(w)), body: checkinListBody() }),
  },
  {
    route: `PATCH ${ev}/checkinlists/:id`,
    permission: "can_change_event_settings",
    setup: async (w) => ({ ...(await listParam(w)), body: { allow_multiple_entries: true } }),
  },
  { route: `DELETE ${ev}/checkinlists/:id`, permission: "can_change_event_settings", setup: listParam },
  { route: `DELETE ${ev}/checkinlist/:id`, permission: "can_change_event_settings", setup: listParam },
  {
    route: `POST ${ev}/checkinlists/:list/failed_checkins`,
    permission: "checkin:scan",
    setup: async (w) => ({
      params: { list: id(await list(w)) },
      body: { error_reason: "invalid", raw_barcode: "NOT-A-TICKET" },
    }),
  },
  { route: `GET ${ev}/checkinlists/:list/positions`, permission: "checkin:read", setup: ticketParams },
  { route: `GET ${ev}/checkinlists/:list/positions/:id`, permission: "checkin:read", setup: ticketParams },
  {
    route: `POST ${ev}/checkinlists/:list/positions/:id/redeem`,
    permission: "checkin:scan",
    setup: async (w) => ({ ...(await ticketParams(w)), body: {} }),
  },
  { route: `GET ${ev}/checkins`, permission: "can_view_orders" },
  {
    route: `POST ${org}/checkinrpc/redeem`,
    permission: "checkin:scan",
    setup: async (w) => {
      const t = await ticket(w);
      return { body: { secret: t.secret, lists: [Number(t.list)] } };
    },
    refusal: (s) => ({
      status: 400,
      body: { lists: [`Invalid pk "${(s.body as { lists: number[] }).lists[0]}" - object does not exist.`] },
    }),
  },
  {
    // the caller annuls a check-in it made itself (a device may annul only its own)
    route: `POST ${org}/checkinrpc/annul`,
    permission: "checkin:scan",
    status: 200,
    setup: async (w) => {
      const t = await ticket(w);
      const nonce = unique("nonce");
      const lists = [Number(t.list)];
      return {
        body: { lists, nonce, error_explanation: "Turnstile did not turn" },
        byCaller: async (caller) => {
          const scan = await caller.post(`${w.org}/checkinrpc/redeem/`, { secret: t.secret, lists, nonce });
          expect(scan.status, JSON.stringify(scan.body)).toBe(201);
        },
      };
    },
    refusal: (s) => ({
      status: 400,
      body: { lists: [`Invalid pk "${(s.body as { lists: number[] }).lists[0]}" - object does not exist.`] },
    }),
  },
  {
    route: `GET ${org}/checkinrpc/search`,
    permission: "checkin:read",
    setup: async (w) => ({ query: `list=${(await ticket(w)).list}` }),
    refusal: (s) => ({
      status: 403,
      body: {
        detail: `You requested lists that do not exist or that you do not have access to: ${s.query!.slice("list=".length)}`,
      },
    }),
  },
  { route: "GET /api/v1/device/eventselection", permission: null, deviceOnly: true },
  // the lists offline scanners refuse tickets by (pretix orders.rst)
  { route: `GET ${ev}/revokedsecrets`, permission: "can_view_orders" },
  { route: `GET ${ev}/blockedsecrets`, permission: "can_view_orders" },
  // pretixSCAN's sync (docs/clients.md): resources of features the service does not have
  { route: `GET ${ev}/badgelayouts`, permission: "can_view_orders" },
  { route: `GET ${ev}/badgeitems`, permission: "can_view_orders" },
  { route: `GET ${org}/reusablemedia`, permission: "can_view_orders" },
];
