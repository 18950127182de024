/**
 * What a service takes besides its own input: the bindings (for the event's object, queues and
 * files), the database, the organizer and event it acts in (the domain types of the tenancy
 * tree), the time, and the base of customer-facing URLs. Routes, pages, jobs and queue
 * consumers build one and call the same services.
 */
import type { DB } from "../db/client";
import type { EventRow, OrganizerRow } from "../db/tenancy";
import type { Env } from "../lib/env";

export type { EventRow, OrganizerRow };

export type OrganizerContext = { env: Env; db: DB; organizer: OrganizerRow; now: number; baseUrl: string };

export type EventContext = OrganizerContext & { event: EventRow };

/**
 * How a change treats the fields a request leaves out: `put` (PUT) gives them their defaults,
 * `patch` (PATCH) keeps what is stored. Routes pass it to the family's change service.
 */
export type ChangeMode = "put" | "patch";

/** A write: a creation (omitted fields take their defaults, as for `put`) or a change. */
export type WriteMode = "create" | ChangeMode;
