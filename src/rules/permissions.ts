/**
 * The permission model: team flags, the fixed grant of devices, and event scope.
 * Routes declare the permission they need; http/tenancy.ts enforces it.
 */

/** The team permission flags (pretix docs teams.rst) (the operator command reads this list too, under Node). */
export const TEAM_PERMISSIONS = [
  "can_create_events",
  "can_change_teams",
  "can_change_organizer_settings",
  "can_manage_customers",
  "can_manage_gift_cards",
  "can_change_event_settings",
  "can_change_items",
  "can_view_orders",
  "can_change_orders",
  "can_view_vouchers",
  "can_change_vouchers",
  "can_checkin_orders",
] as const;

export type TeamPermission = (typeof TEAM_PERMISSIONS)[number];

/**
 * What a route may require: a team flag, or one that several flags give:
 * - `event:read`: reading an event's own metadata (teams need can_change_event_settings (docs/api.md,
 *   "Permissions"); devices have it by their fixed grant);
 * - `checkin:read`: reading check-in lists and their tickets (pretix: can_view_orders or
 *   can_checkin_orders);
 * - `checkin:scan`: scanning and reporting failed scans (pretix: can_change_orders or
 *   can_checkin_orders).
 */
export type Permission = TeamPermission | "event:read" | "checkin:read" | "checkin:scan";

/** The team flags that give each permission several flags give (the others are their own flag). */
export const GIVEN_BY: Readonly<Partial<Record<Permission, readonly TeamPermission[]>>> = {
  "event:read": ["can_change_event_settings"],
  "checkin:read": ["can_view_orders", "can_checkin_orders"],
  "checkin:scan": ["can_change_orders", "can_checkin_orders"],
};

/** Devices: view event metadata and products, view and change orders (and so check in), manage gift cards. */
export const DEVICE_GRANT: ReadonlySet<Permission> = new Set<Permission>([
  "event:read",
  "can_view_orders",
  "can_change_orders",
  "checkin:read",
  "checkin:scan",
  "can_manage_gift_cards",
]);

export type Principal = {
  kind: "token" | "device";
  organizerId: number;
  /** Team of a token; null for devices. */
  teamId: number | null;
  /** Device row id; null for tokens. */
  deviceId: number | null;
  tokenId: number | null;
  allEvents: boolean;
  /** Events reachable when allEvents is false. */
  eventIds: ReadonlySet<number>;
  permissions: ReadonlySet<Permission>;
  /** Stable identity of the credential (owner of uploads). */
  identity: string;
  /** SHA-256 of the presented key (device routes change the device only while it is still this key). */
  credentialHash: string;
  /** A device's security profile (DEVICE_SECURITY_PROFILES); null for team tokens. */
  securityProfile: string | null;
  /** The software a device reported (`software_brand`); null for team tokens. */
  softwareBrand: string | null;
};

export function teamPermissionSet(flags: Record<TeamPermission, boolean>): Set<Permission> {
  const set = new Set<Permission>();
  for (const p of TEAM_PERMISSIONS) if (flags[p]) set.add(p);
  for (const [given, by] of Object.entries(GIVEN_BY)) if (by.some((f) => flags[f])) set.add(given as Permission);
  return set;
}

export function hasPermission(principal: Principal, permission: Permission | null): boolean {
  return permission === null || principal.permissions.has(permission);
}

export function canAccessEvent(principal: Principal, eventId: number): boolean {
  return principal.allEvents || principal.eventIds.has(eventId);
}

// ---- device security profiles ----

/**
 * pretix's device security profiles (pretix `src/pretix/api/auth/devicesecurity.py`, the
 * profiles pretix itself registers): `full` allows every call the device's grant allows; the
 * others are allow-lists of (method, url name). A call outside the device's profile is refused
 * with 403 by the permission layer (http/tenancy.ts).
 */
export const DEVICE_SECURITY_PROFILES = [
  "full",
  "pretixscan",
  "pretixscan_online_kiosk",
  "pretixscan_online_noorders",
] as const;
export type DeviceSecurityProfile = (typeof DEVICE_SECURITY_PROFILES)[number];

const ORG = "/api/v1/organizers/:organizer";
const EVENT = `${ORG}/events/:event`;
const LISTS = `${EVENT}/checkinlists`;

/**
 * pretix's url names (namespace `api-v1`) with the route patterns of this service that answer
 * them, as registered with the router. An empty list: the service has no such endpoint (the
 * profile's entry then allows nothing).
 */
const PRETIX_URL_NAMES = {
  version: [],
  "idempotency.query": [],
  "device.eventselection": ["/api/v1/device/eventselection"],
  "device.info": ["/api/v1/device/info"],
  "device.update": ["/api/v1/device/update"],
  "device.revoke": ["/api/v1/device/revoke"],
  "device.roll": ["/api/v1/device/roll"],
  "event-list": [`${ORG}/events`],
  "event-detail": [EVENT],
  // pretix serves the organizer's and the event's sub-event lists with one view (one url name)
  "subevent-list": [`${ORG}/subevents`, `${EVENT}/subevents`],
  "subevent-detail": [`${EVENT}/subevents/:id`],
  "itemcategory-list": [`${EVENT}/categories`],
  "item-list": [`${EVENT}/items`],
  "question-list": [`${EVENT}/questions`],
  "badgelayout-list": [],
  "badgeitem-list": [],
  "checkinlist-list": [LISTS],
  "checkinlist-status": [`${LISTS}/:id/status`],
  "checkinlist-failed_checkins": [`${LISTS}/:id/failed_checkins`],
  "checkinlistpos-list": [`${LISTS}/:list/positions`],
  "checkinlistpos-redeem": [`${LISTS}/:list/positions/:id/redeem`],
  "revokedsecrets-list": [`${EVENT}/revokedsecrets`],
  "blockedsecrets-list": [`${EVENT}/blockedsecrets`],
  "order-list": [`${EVENT}/orders`],
  "orderposition-pdf_image": [],
  "orderposition-printlog": [],
  "event.settings": [`${EVENT}/settings`],
  upload: ["/api/v1/upload"],
  "checkinrpc.redeem": [`${ORG}/checkinrpc/redeem`],
  "checkinrpc.search": [`${ORG}/checkinrpc/search`],
  "checkinrpc.annul": [`${ORG}/checkinrpc/annul`],
  "reusablemedium-list": [],
} as const satisfies Record<string, readonly string[]>;

type PretixUrlName = keyof typeof PRETIX_URL_NAMES;
type AllowEntry = readonly ["GET" | "POST", PretixUrlName];

type ListProfile = Exclude<DeviceSecurityProfile, "full">;

/**
 * The allow-lists as data. pretix's scanner profiles nest: the kiosk's list is what every
 * scanner may call; `pretixscan_online_noorders` adds the positions of a check-in list (online
 * search), and `pretixscan` adds the order sync and reusable media on top of that. Each profile
 * names the profile it builds on and what it adds, so every entry is written once.
 */
const PROFILE_ALLOW_LISTS: Record<ListProfile, { buildsOn: ListProfile | null; adds: readonly AllowEntry[] }> = {
  // kiosk mode: no order sync, no list of a check-in list's positions
  pretixscan_online_kiosk: {
    buildsOn: null,
    adds: [
      ["GET", "version"],
      ["GET", "device.eventselection"],
      ["GET", "idempotency.query"],
      ["GET", "device.info"],
      ["POST", "device.update"],
      ["POST", "device.revoke"],
      ["POST", "device.roll"],
      ["GET", "event-list"],
      ["GET", "event-detail"],
      ["GET", "subevent-list"],
      ["GET", "subevent-detail"],
      ["GET", "itemcategory-list"],
      ["GET", "item-list"],
      ["GET", "question-list"],
      ["GET", "badgelayout-list"],
      ["GET", "badgeitem-list"],
      ["GET", "checkinlist-list"],
      ["GET", "checkinlist-status"],
      ["POST", "checkinlist-failed_checkins"],
      ["POST", "checkinlistpos-redeem"],
      ["GET", "revokedsecrets-list"],
      ["GET", "blockedsecrets-list"],
      ["GET", "orderposition-pdf_image"],
      ["POST", "orderposition-printlog"],
      ["GET", "event.settings"],
      ["POST", "upload"],
      ["POST", "checkinrpc.redeem"],
      ["GET", "checkinrpc.search"],
      // pretix 2025: pretixSCAN (kiosk mode) annuls the check-in of a turnstile that did not turn
      ["POST", "checkinrpc.annul"],
    ],
  },
  // online only: no order sync
  pretixscan_online_noorders: { buildsOn: "pretixscan_online_kiosk", adds: [["GET", "checkinlistpos-list"]] },
  pretixscan: {
    buildsOn: "pretixscan_online_noorders",
    adds: [
      ["GET", "order-list"],
      ["GET", "reusablemedium-list"],
    ],
  },
};

/** A profile's whole allow-list: its own entries and those of the profiles it builds on. */
function allowEntries(profile: ListProfile): readonly AllowEntry[] {
  const { buildsOn, adds } = PROFILE_ALLOW_LISTS[profile];
  return buildsOn === null ? adds : [...allowEntries(buildsOn), ...adds];
}

/**
 * A route pattern with its parameter names left out (`/events/:event/x/:id` → `/events/:/x/:`)
 * and no trailing slash, so that an entry matches whatever the route names its parameters.
 */
export function routeShape(pattern: string): string {
  return pattern.replace(/:\w+(\{[^/]*\})?/g, ":").replace(/\/+$/, "");
}

const ALLOWED: ReadonlyMap<string, ReadonlySet<string>> = new Map(
  (Object.keys(PROFILE_ALLOW_LISTS) as ListProfile[]).map((profile) => [
    profile,
    new Set(
      allowEntries(profile).flatMap(([method, name]) =>
        PRETIX_URL_NAMES[name].map((pattern) => `${method} ${routeShape(pattern)}`),
      ),
    ),
  ]),
);

/**
 * Whether a device's security profile allows calling the route registered as `routePattern`
 * with `method` (HEAD counts as GET). A profile name the service does not know allows nothing
 * (pretix would fall back to full access; names are checked when set, so this cannot happen
 * through the API).
 */
export function deviceProfileAllows(profile: string, method: string, routePattern: string): boolean {
  if (profile === "full") return true;
  const allowed = ALLOWED.get(profile);
  if (!allowed) return false;
  return allowed.has(`${method === "HEAD" ? "GET" : method} ${routeShape(routePattern)}`);
}
