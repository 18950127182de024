/**
 * On-sale queues: reading needs can_view_orders, changing can_change_event_settings. Each call
 * runs on an event of its own, so that its queue gates no other row's sales.
 */
import { create, id, seriesWorld, type SetupWorld } from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const base = "/api/v1/organizers/:organizer/events/:event/onsale_queues";

export const queueBody = () => ({ opens_at: "2030-05-01T10:00:00Z", admissions_per_minute: 100 });

/** A new event; the call runs on it. */
const ownEvent = async (w: SetupWorld): Promise<RowSetup> => ({ event: (await seriesWorld(w)).eventSlug });

/** A queue of a new event; the call runs on that event. */
const queue = async (w: SetupWorld, body?: unknown): Promise<RowSetup> => {
  const own = await seriesWorld(w);
  const q = await create(w, `${own.ev}/onsale_queues`, queueBody());
  return { event: own.eventSlug, params: { id: id(q) }, ...(body ? { body } : {}) };
};

export const rows: MatrixRow[] = [
  { route: `GET ${base}`, permission: "can_view_orders", setup: (w) => queue(w) },
  {
    route: `POST ${base}`,
    permission: "can_change_event_settings",
    setup: async (w) => ({ ...(await ownEvent(w)), body: queueBody() }),
  },
  { route: `GET ${base}/:id`, permission: "can_view_orders", setup: (w) => queue(w) },
  { route: `PUT ${base}/:id`, permission: "can_change_event_settings", setup: (w) => queue(w, queueBody()) },
  { route: `PATCH ${base}/:id`, permission: "can_change_event_settings", setup: (w) => queue(w, { active: false }) },
  { route: `DELETE ${base}/:id`, permission: "can_change_event_settings", setup: (w) => queue(w) },
];
