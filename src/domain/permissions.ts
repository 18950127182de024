/**
 * The permission model: team flags, the fixed grant of devices, and event scope.
 * Routes declare the permission they need; http/tenancy.ts enforces it.
 */

import { TEAM_PERMISSIONS, type TeamPermission } from "../db/teams";

export { TEAM_PERMISSIONS, type TeamPermission };

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
