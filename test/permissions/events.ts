import type { MatrixRow } from "./types";

const events = "/api/v1/organizers/:organizer/events";
const event = `${events}/:event`;
const meta = "/api/v1/organizers/:organizer/event_meta_properties";
const sub = `${event}/subevents`;

export const rows: MatrixRow[] = [
  // events: reading needs "event:read" (teams: can_change_event_settings; devices may read)
  { route: `GET ${events}`, permission: "event:read" },
  { route: `POST ${events}`, permission: "can_create_events" },
  { route: `GET ${event}`, permission: "event:read" },
  { route: `PATCH ${event}`, permission: "can_change_event_settings" },
  { route: `DELETE ${event}`, permission: "can_change_event_settings", ownEvent: true },
  // cloning: creating events; the source is the event of the path (access to it is needed)
  { route: `POST ${event}/clone`, permission: "can_create_events" },
  // event settings: devices read the keys box office and check-in apps need
  { route: `GET ${event}/settings`, permission: "event:read" },
  { route: `PATCH ${event}/settings`, permission: "can_change_event_settings" },
  // organizer-defined meta data keys: any team or device reads; organizer settings change them
  { route: `GET ${meta}`, permission: null, device: "allow" },
  { route: `POST ${meta}`, permission: "can_change_organizer_settings" },
  { route: `GET ${meta}/:id`, permission: null, device: "allow" },
  { route: `PUT ${meta}/:id`, permission: "can_change_organizer_settings" },
  { route: `PATCH ${meta}/:id`, permission: "can_change_organizer_settings" },
  { route: `DELETE ${meta}/:id`, permission: "can_change_organizer_settings" },
  // sub-events: any team with access to the event reads, devices too
  { route: `GET ${sub}`, permission: null, device: "allow" },
  { route: `POST ${sub}`, permission: "can_create_events" },
  { route: `GET ${sub}/:id`, permission: null, device: "allow" },
  { route: `PUT ${sub}/:id`, permission: "can_change_event_settings" },
  { route: `PATCH ${sub}/:id`, permission: "can_change_event_settings" },
  { route: `DELETE ${sub}/:id`, permission: "can_change_event_settings" },
  { route: "GET /api/v1/organizers/:organizer/subevents", permission: null, device: "allow" },
];
