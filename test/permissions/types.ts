import type { Permission } from "../../src/rules/permissions";
import type { Client } from "../harness";

/** What a row's setup works with: the organizer's administrator and the event the call runs on. */
export type SetupWorld = {
  admin: Client;
  orgId: number;
  orgSlug: string;
  eventSlug: string;
  /** `/api/v1/organizers/<organizer>` */
  org: string;
  /** `/api/v1/organizers/<organizer>/events/<event>` */
  ev: string;
};

/** What a row's call uses: real objects for its path parameters, a valid body. */
export type RowSetup = {
  /** Values for path parameters other than :organizer and :event. */
  params?: Record<string, string>;
  /** Body sent with POST/PUT/PATCH. */
  body?: unknown;
  /** Another event of the organizer to run the call on (e.g. an event series). */
  event?: string;
  /** A query string for the call (without `?`). */
  query?: string;
  /** Request headers of the call (a queue ticket). */
  headers?: Record<string, string>;
  /** A raw body with its own headers instead of JSON (uploads). */
  raw?: { body: BodyInit; headers: Record<string, string> };
  /** What the caller itself does first (a check-in it then annuls: only the device that made one may). */
  byCaller?: (caller: Client) => Promise<void>;
};

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
  /**
   * Creates (with the administrator) the objects an allowed call acts on, and its body, so
   * that the allowed call succeeds. Runs before every allowed call (each gets its own objects).
   */
  setup?: (w: SetupWorld) => Promise<RowSetup>;
  /** The status of an allowed call; default GET 200, POST 201, PUT and PATCH 200, DELETE 204. */
  status?: number;
  /**
   * Credentials the route takes: "device" — device keys only (teams get 401); "none" — a public
   * route (anyone passes). Default: teams and devices, by permission.
   */
  auth?: "device" | "none";
  /** The request changes the calling device itself (roll, revoke): run it with a throwaway device. */
  ownDevice?: boolean;
  /**
   * The route admits any credential of the organizer and refuses, itself, the objects a caller
   * without `permission` names (pretix's check-in RPC: lists of events the caller cannot use are
   * unknown lists): the answer such a caller gets for the objects of the row's setup, where
   * other routes answer the permission layer's 403.
   */
  refusal?: (setup: RowSetup) => { status: number; body: unknown };
};
