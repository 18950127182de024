/**
 * A read of db/ as a service: the query scoped by the context's organizer or event, so a route
 * passes its context and never the database or an id of the tenancy tree. The family's
 * `<family>-reads.ts` files build their lists and lookups with these (docs/architecture.md
 * "Layers": routes only through services).
 */
import type { DB } from "../db/client";
import type { EventContext, OrganizerContext } from "./context";

/** `query(db, eventId, ...args)` as `(ctx, ...args)`, scoped by the context's event. */
export function inEvent<A extends unknown[], R>(query: (db: DB, eventId: number, ...args: A) => R) {
  return (ctx: EventContext, ...args: A): R => query(ctx.db, ctx.event.id, ...args);
}

/** `query(db, organizerId, ...args)` as `(ctx, ...args)`, scoped by the context's organizer. */
export function inOrganizer<A extends unknown[], R>(query: (db: DB, organizerId: number, ...args: A) => R) {
  return (ctx: OrganizerContext, ...args: A): R => query(ctx.db, ctx.organizer.id, ...args);
}

/** `query(db, ...args)` as `(ctx, ...args)`: a read scoped by its own arguments (a token, an item's id). */
export function withDb<A extends unknown[], R>(query: (db: DB, ...args: A) => R) {
  return (ctx: { db: DB }, ...args: A): R => query(ctx.db, ...args);
}
