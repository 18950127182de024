import type { Context } from "hono";
import type { DB } from "../db/client";
import type { PrefetchedTenancy } from "../db/principals";
import type { events, organizers } from "../db/schema";
import type { Principal } from "../domain/permissions";
import type { Env } from "../env";

export type OrganizerRow = typeof organizers.$inferSelect;
export type EventRow = typeof events.$inferSelect;

export type AppEnv = {
  Bindings: Env;
  Variables: {
    requestId: string;
    db: DB;
    principal: Principal;
    /** The path's organizer and event, looked up with the credential (http/auth.ts). */
    tenancy: PrefetchedTenancy | null;
    organizer: OrganizerRow;
    event: EventRow;
  };
};

export type AppContext = Context<AppEnv>;
