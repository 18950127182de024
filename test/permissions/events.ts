import { expect } from "vitest";
import {
  create,
  eventBody,
  id,
  itemBody,
  metaPropertyBody,
  seriesWorld,
  subeventBody,
  type SetupWorld,
} from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const events = "/api/v1/organizers/:organizer/events";
const event = `${events}/:event`;
const meta = "/api/v1/organizers/:organizer/event_meta_properties";
const sub = `${event}/subevents`;

const metaProperty = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.org}/event_meta_properties`, metaPropertyBody())) },
});

/** A date of a new event series; the call runs on that series. */
const subevent = async (w: SetupWorld): Promise<RowSetup> => {
  const series = await seriesWorld(w);
  const date = await create(w, `${series.ev}/subevents`, subeventBody());
  return { event: series.eventSlug, params: { id: id(date) } };
};

/** A new event on sale, live and public: its live availability is open to anyone. */
const liveEvent = async (w: SetupWorld): Promise<RowSetup> => {
  const ev = await create(w, `${w.org}/events`, eventBody());
  const path = `${w.org}/events/${ev.slug}`;
  const item = await create(w, `${path}/items`, itemBody());
  await create(w, `${path}/quotas`, { name: "Tickets", size: 5, items: [item.id] });
  const res = await w.admin.patch(`${path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { event: ev.slug };
};

export const rows: MatrixRow[] = [
  // events: reading needs "event:read" (teams: can_change_event_settings; devices may read)
  { route: `GET ${events}`, permission: "event:read" },
  { route: `POST ${events}`, permission: "can_create_events", setup: async () => ({ body: eventBody() }) },
  { route: `GET ${event}`, permission: "event:read" },
  {
    route: `PATCH ${event}`,
    permission: "can_change_event_settings",
    setup: async () => ({ body: { location: { en: "Main hall" } } }),
  },
  { route: `DELETE ${event}`, permission: "can_change_event_settings", ownEvent: true },
  // cloning: creating events; the source is the event of the path (access to it is needed)
  { route: `POST ${event}/clone`, permission: "can_create_events", setup: async () => ({ body: eventBody() }) },
  // event settings: devices read the keys box office and check-in apps need
  { route: `GET ${event}/settings`, permission: "event:read" },
  {
    route: `PATCH ${event}/settings`,
    permission: "can_change_event_settings",
    setup: async () => ({ body: { contact_mail: "info@example.org" } }),
  },
  // organizer-defined meta data keys: any team or device reads; organizer settings change them
  { route: `GET ${meta}`, permission: null, device: "allow", setup: metaProperty },
  {
    route: `POST ${meta}`,
    permission: "can_change_organizer_settings",
    setup: async () => ({ body: metaPropertyBody() }),
  },
  { route: `GET ${meta}/:id`, permission: null, device: "allow", setup: metaProperty },
  {
    route: `PUT ${meta}/:id`,
    permission: "can_change_organizer_settings",
    setup: async (w) => ({ ...(await metaProperty(w)), body: metaPropertyBody() }),
  },
  {
    route: `PATCH ${meta}/:id`,
    permission: "can_change_organizer_settings",
    setup: async (w) => ({ ...(await metaProperty(w)), body: { default: "x" } }),
  },
  { route: `DELETE ${meta}/:id`, permission: "can_change_organizer_settings", setup: metaProperty },
  // sub-events: any team with access to the event reads, devices too
  { route: `GET ${sub}`, permission: null, device: "allow", setup: subevent },
  {
    route: `POST ${sub}`,
    permission: "can_create_events",
    setup: async (w) => ({ event: (await seriesWorld(w)).eventSlug, body: subeventBody() }),
  },
  { route: `GET ${sub}/:id`, permission: null, device: "allow", setup: subevent },
  {
    route: `PUT ${sub}/:id`,
    permission: "can_change_event_settings",
    setup: async (w) => ({ ...(await subevent(w)), body: subeventBody() }),
  },
  {
    route: `PATCH ${sub}/:id`,
    permission: "can_change_event_settings",
    setup: async (w) => ({ ...(await subevent(w)), body: { active: true } }),
  },
  { route: `DELETE ${sub}/:id`, permission: "can_change_event_settings", setup: subevent },
  { route: "GET /api/v1/organizers/:organizer/subevents", permission: null, device: "allow", setup: subevent },
  // the live availability: public, no credentials (a key sent along changes nothing)
  {
    route: `GET ${event}/availability/live`,
    permission: null,
    auth: "none",
    device: "allow",
    setup: liveEvent,
  },
];
