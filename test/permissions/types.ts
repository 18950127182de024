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
  /** A device-only endpoint: every team key is refused with 401. */
  deviceOnly?: boolean;
  /** Values for path parameters other than :organizer and :event (default "999999"). */
  params?: Record<string, string>;
  /** The request changes or deletes the event itself: run it against a throwaway event. */
  ownEvent?: boolean;
  /** Body sent with POST/PUT/PATCH (default {}). */
  body?: unknown;
};
