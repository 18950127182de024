import type { Permission } from "../../src/domain/permissions";

/**
 * One row of the permission matrix (in the style of pretix's test_permissions.py): an
 * endpoint, the permission it needs, and whether an initialized device may call it.
 */
export type MatrixRow = {
  /** Method and the route pattern as registered, e.g. "GET /api/v1/organizers/:organizer/teams". */
  route: string;
  /** null: any team of the organizer (with access to the event, for event routes). */
  permission: Permission | null;
  /** Devices' expected outcome; default: allowed exactly when DEVICE_GRANT has the permission. */
  device?: "allow" | "deny";
  /** Values for path parameters other than :organizer and :event (default "999999"). */
  params?: Record<string, string>;
  /** The request changes or deletes the event itself: run it against a throwaway event. */
  ownEvent?: boolean;
  /** Body sent with POST/PUT/PATCH (default {}). */
  body?: unknown;
  /**
   * Credentials the route takes: "device" — device keys only (teams get 401); "none" — a public
   * route (anyone passes). Default: teams and devices, by permission.
   */
  auth?: "device" | "none";
  /** The request changes the calling device itself (roll, revoke): run it with a throwaway device. */
  ownDevice?: boolean;
};
