/**
 * The permission model: team flags, the fixed grant of devices, and event scope.
 * Routes declare the permission they need; http/tenancy.ts enforces it.
 */

/** The team permission flags of the spec (the operator command reads this list too, under Node). */
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
 * What a route may require: a team flag, or `event:read` (reading an event's own metadata:
 * teams need can_change_event_settings per the spec; devices have it by their fixed grant).
 */
export type Permission = TeamPermission | "event:read";

/** Devices: view event metadata and products, view and change orders, manage gift cards. */
export const DEVICE_GRANT: ReadonlySet<Permission> = new Set<Permission>([
  "event:read",
  "can_view_orders",
  "can_change_orders",
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
};

export function teamPermissionSet(flags: Record<TeamPermission, boolean>): Set<Permission> {
  const set = new Set<Permission>();
  for (const p of TEAM_PERMISSIONS) if (flags[p]) set.add(p);
  if (flags.can_change_event_settings) set.add("event:read");
  return set;
}

export function hasPermission(principal: Principal, permission: Permission | null): boolean {
  return permission === null || principal.permissions.has(permission);
}

export function canAccessEvent(principal: Principal, eventId: number): boolean {
  return principal.allEvents || principal.eventIds.has(eventId);
}
