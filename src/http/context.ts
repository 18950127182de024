import type { Context } from "hono";
import type { DB } from "../db/client";
import type { RequestSession } from "../db/sessions";
import type { PrefetchedTenancy } from "../db/principals";
import type { EventRow, OrganizerRow } from "../db/tenancy";
import type { Principal } from "../rules/permissions";
import type { GroupRoute } from "../services/organizers/organizer-groups";
import type { EventContext, OrganizerContext } from "../services/context";
import { ADMISSION_HEADER, type SaleCaller } from "../services/waiting-room/gate";
import type { Env } from "../lib/env";
import type { CredentialAhead } from "./credential-batch";
import { readConfig } from "../lib/env";

export type { EventRow, OrganizerRow };

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    /** The request's organizer group (http/organizer-group.ts); null: group 1, no organizer known. */
    groupRoute: GroupRoute | null;
    /** The request's D1 session (http/request-context.ts); `db` works in it. */
    session: RequestSession;
    db: DB;
    principal: Principal;
    /** The path's organizer and event, looked up with the credential (http/auth.ts). */
    tenancy: PrefetchedTenancy | null;
    /** The credential check left for the route's first batch (http/credential-batch.ts), or undefined. */
    credentialAhead: CredentialAhead | undefined;
    organizer: OrganizerRow;
    event: EventRow;
  };
};

export type AppContext = Context<AppEnv>;

/** The service context of an organizer-level route (src/services/context.ts). */
export function organizerContext(c: AppContext): OrganizerContext {
  return { env: c.env, db: c.var.db, organizer: c.var.organizer, now: Date.now(), baseUrl: publicBase(c) };
}

/** The service context of an event-level route. */
export function eventContext(c: AppContext): EventContext {
  return { ...organizerContext(c), event: c.var.event };
}

/** Base of customer-facing URLs (rules/urls.ts): PUBLIC_BASE_URL, or the origin the request came to. */
export function publicBase(c: AppContext): string {
  return readConfig(c.env).publicBaseUrl ?? new URL(c.req.url).origin;
}

/** Who asks for a sale (services/waiting-room/gate.ts): the credential, and the queue admission it sent. */
export function saleCaller(c: AppContext): SaleCaller {
  const p = c.var.principal;
  return { kind: p.kind, teamId: p.teamId, admission: c.req.header(ADMISSION_HEADER)?.trim() || null };
}
