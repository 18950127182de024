import { create, id, item, type SetupWorld } from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const ev = "/api/v1/organizers/:organizer/events/:event";
const wl = `${ev}/waitinglistentries`;

/** A product of its own, sold out (quota 0): what an entry may wait for. */
async function soldOutItem(w: SetupWorld) {
  const it = await item(w);
  const quota = await create(w, `${w.ev}/quotas`, { name: "Sold out", size: 0, items: [it.id] });
  return { it, quota };
}

const entryBody = async (w: SetupWorld) => ({ email: "waiting@example.org", item: (await soldOutItem(w)).it.id });

/** A waiting entry of a sold-out product. */
const entry = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.ev}/waitinglistentries`, await entryBody(w))) },
});

/** A waiting entry whose product has a unit again (no automatic voucher: send_voucher gives it). */
const entryWithRoom = async (w: SetupWorld): Promise<RowSetup> => {
  const { it, quota } = await soldOutItem(w);
  const e = await create(w, `${w.ev}/waitinglistentries`, { email: "waiting@example.org", item: it.id });
  await w.admin.patch(`${w.ev}/settings/`, { waiting_list_auto: false });
  await w.admin.patch(`${w.ev}/quotas/${quota.id}/`, { size: 1 });
  return { params: { id: id(e) } };
};

export const rows: MatrixRow[] = [
  // the waiting list (pretix waitinglist.rst): reading can_view_orders, writing can_change_orders
  { route: `GET ${wl}`, permission: "can_view_orders", setup: entry },
  { route: `GET ${wl}/:id`, permission: "can_view_orders", setup: entry },
  { route: `POST ${wl}`, permission: "can_change_orders", setup: async (w) => ({ body: await entryBody(w) }) },
  {
    route: `PUT ${wl}/:id`,
    permission: "can_change_orders",
    setup: async (w) => ({
      ...(await entry(w)),
      body: { email: "put@example.org", item: (await soldOutItem(w)).it.id },
    }),
  },
  {
    route: `PATCH ${wl}/:id`,
    permission: "can_change_orders",
    setup: async (w) => ({ ...(await entry(w)), body: { email: "patch@example.org" } }),
  },
  { route: `DELETE ${wl}/:id`, permission: "can_change_orders", setup: entry },
  { route: `POST ${wl}/:id/send_voucher`, permission: "can_change_orders", setup: entryWithRoom, status: 204 },
];
