/**
 * Ticket secrets in D1: the event's signing keys, revoked and blocked secrets (pretix docs
 * orders.rst "Revoked ticket secrets", "Blocked ticket secrets"), and the statements that change
 * a ticket's secret or blocks (written by the event object, which decides scans on them).
 */
import { and, desc, eq, gte, max, type SQL, sql } from "drizzle-orm";
import type { Statement } from "./batch";
import { statement } from "./raw";
import type { DB } from "./client";
import { fixed, p } from "./fixed";
import { fetchPage, type ListRequest, type OrderingTable } from "./paging";
import { blockedSecrets, eventSettings, orderPositions, orders, revokedSecrets, ticketSigningKeys } from "./schema";
import { organizerSettingsQuery, settingsOf } from "./settings";

export type SigningKeyRow = { publicKey: string; privateKeySealed: string };

/** The event's key of a scheme (for a batch). */
const SIGNING_KEY = fixed((db) =>
  db
    .select({ publicKey: ticketSigningKeys.publicKey, privateKeySealed: ticketSigningKeys.privateKeySealed })
    .from(ticketSigningKeys)
    .where(and(eq(ticketSigningKeys.eventId, p("eventId")), eq(ticketSigningKeys.scheme, p("scheme")))),
);

export function signingKeyQuery(db: DB, eventId: number, scheme: string) {
  return SIGNING_KEY.bind(db, { eventId, scheme });
}

/** The settings stored on the event and its organizer, and the event's key of a scheme, in one round trip. */
export async function secretGeneratorRows(db: DB, organizerId: number, eventId: number, scheme: string) {
  const [eventRows, organizerRows, keys] = await db.batch([
    db.select().from(eventSettings).where(eq(eventSettings.eventId, eventId)),
    organizerSettingsQuery(db, organizerId),
    signingKeyQuery(db, eventId, scheme),
  ]);
  return {
    event: settingsOf(eventRows),
    organizer: settingsOf(organizerRows),
    key: (keys[0] as SigningKeyRow | undefined) ?? null,
  };
}

export async function findSigningKey(db: DB, eventId: number, scheme: string): Promise<SigningKeyRow | undefined> {
  const [key] = await signingKeyQuery(db, eventId, scheme);
  return key;
}

/**
 * Stores a new key unless the event has one of the scheme already, and returns the one stored
 * (of simultaneous first uses, one key wins and all use it), in one round trip.
 */
export async function storeSigningKey(
  db: DB,
  eventId: number,
  scheme: string,
  key: SigningKeyRow,
  now: number,
): Promise<SigningKeyRow> {
  const [, rows] = await db.batch([
    db
      .insert(ticketSigningKeys)
      .values({ eventId, scheme, publicKey: key.publicKey, privateKeySealed: key.privateKeySealed, createdAt: now })
      .onConflictDoNothing({ target: [ticketSigningKeys.eventId, ticketSigningKeys.scheme] }),
    signingKeyQuery(db, eventId, scheme),
  ]);
  return rows[0]!;
}

// ---- the lists scanners download ----

export type RevokedSecretRow = { id: number; secret: string; created: number };
export type BlockedSecretRow = { id: number; secret: string; blocked: boolean; updated: number };

/** pretix: `secret`, `created`; default `-created`. */
export const REVOKED_ORDERING: OrderingTable = {
  fields: { secret: revokedSecrets.secret, created: revokedSecrets.created },
  default: "-created",
  tiebreaker: revokedSecrets.id,
};

/** pretix orders its blocked secrets by the latest change first, always. */
export const BLOCKED_ORDERING: OrderingTable = {
  fields: { updated: blockedSecrets.updated },
  default: "-updated",
  tiebreaker: blockedSecrets.id,
};

/** A page of the event's revoked secrets (`createdSince`: at or after), with the list's last change. */
export async function listRevokedSecrets(db: DB, eventId: number, f: { createdSince?: number }, req: ListRequest) {
  const conds: SQL[] = [eq(revokedSecrets.eventId, eventId)];
  if (f.createdSince !== undefined) conds.push(gte(revokedSecrets.created, f.createdSince));
  const where = and(...conds);
  const rows = db
    .select({ id: revokedSecrets.id, secret: revokedSecrets.secret, created: revokedSecrets.created })
    .from(revokedSecrets)
    .where(where)
    .$dynamic();
  const page = await fetchPage(
    db,
    { rows, count: { from: revokedSecrets, where }, ordering: REVOKED_ORDERING },
    req,
    db
      .select({ last: max(revokedSecrets.created) })
      .from(revokedSecrets)
      .where(eq(revokedSecrets.eventId, eventId)),
  );
  return { count: page.count, rows: page.rows as RevokedSecretRow[], lastModified: page.extra[0][0]?.last ?? null };
}

/** A page of the event's blocked (and once blocked) secrets (`updatedSince`: at or after), with the list's last change. */
export async function listBlockedSecrets(
  db: DB,
  eventId: number,
  f: { updatedSince?: number; blocked?: boolean },
  req: ListRequest,
) {
  const conds: SQL[] = [eq(blockedSecrets.eventId, eventId)];
  if (f.updatedSince !== undefined) conds.push(gte(blockedSecrets.updated, f.updatedSince));
  if (f.blocked !== undefined) conds.push(eq(blockedSecrets.blocked, f.blocked));
  const where = and(...conds);
  const rows = db
    .select({
      id: blockedSecrets.id,
      secret: blockedSecrets.secret,
      blocked: blockedSecrets.blocked,
      updated: blockedSecrets.updated,
    })
    .from(blockedSecrets)
    .where(where)
    .$dynamic();
  const page = await fetchPage(
    db,
    { rows, count: { from: blockedSecrets, where }, ordering: BLOCKED_ORDERING },
    req,
    db
      .select({ last: max(blockedSecrets.updated) })
      .from(blockedSecrets)
      .where(eq(blockedSecrets.eventId, eventId)),
  );
  return { count: page.count, rows: page.rows as BlockedSecretRow[], lastModified: page.extra[0][0]?.last ?? null };
}

/** The event's revoked secrets, newest first (tests and diagnostics). */
export function revokedSecretsOf(db: DB, eventId: number) {
  return db
    .select()
    .from(revokedSecrets)
    .where(eq(revokedSecrets.eventId, eventId))
    .orderBy(desc(revokedSecrets.created), desc(revokedSecrets.id));
}

// ---- changing a ticket's secret or blocks ----

/**
 * A change of one ticket: its secret (`secret` → `newSecret`; equal: unchanged), whether the
 * old secret is revoked, and its blocks (`blocked`: undefined leaves them). `blockedAfter`:
 * whether the ticket is blocked after the change (a new secret of a blocked ticket is blocked).
 */
export type TicketChange = {
  positionId: number;
  secret: string;
  newSecret: string;
  revoke: boolean;
  blocked?: string[] | null;
  blockedAfter: boolean;
};

/** The position holds `secret` now. */
const holds = (positionId: number, secret: string) =>
  sql`EXISTS (SELECT 1 FROM order_positions WHERE id = ${positionId} AND secret = ${secret})`;

/**
 * The statements of ticket changes of one order, idempotent (a replay after a lost answer writes
 * nothing twice): a secret changes only from the old one, a revocation and a block entry are
 * written only once the position holds the new secret. `condition` guards the position writes
 * (e.g. "the order is canceled now", in the batch that cancels it). The order's `last_modified`
 * moves, so scanners that sync orders learn the new secret; `orderSecret` also replaces the
 * order's own secret (the link secret; pretix `regenerate_secrets`).
 */
export function ticketChangeStatements(
  db: DB,
  eventId: number,
  orderId: number,
  changes: readonly TicketChange[],
  now: number,
  opts: { condition?: SQL; orderSecret?: string | null } = {},
): Statement[] {
  const condition = opts.condition ?? sql`1`;
  const stmts: Statement[] = [];
  for (const c of changes) {
    if (c.newSecret !== c.secret) {
      stmts.push(
        db
          .update(orderPositions)
          .set({ secret: c.newSecret })
          .where(
            and(
              eq(orderPositions.id, c.positionId),
              eq(orderPositions.eventId, eventId),
              eq(orderPositions.secret, c.secret),
              condition,
            ),
          ),
      );
      if (c.revoke) {
        stmts.push(
          statement(
            db,
            sql`INSERT INTO revoked_secrets (event_id, position_id, secret, created) SELECT ${eventId}, ${c.positionId}, ${c.secret}, ${now}
              WHERE ${holds(c.positionId, c.newSecret)} ON CONFLICT (event_id, secret) DO NOTHING`,
          ),
        );
      }
    }
    if (c.blocked !== undefined) {
      stmts.push(
        db
          .update(orderPositions)
          .set({ blocked: c.blocked })
          .where(
            and(
              eq(orderPositions.id, c.positionId),
              eq(orderPositions.eventId, eventId),
              eq(orderPositions.secret, c.newSecret),
              condition,
            ),
          ),
      );
    }
    if (c.blocked !== undefined || (c.blockedAfter && c.newSecret !== c.secret)) {
      stmts.push(
        statement(
          db,
          sql`INSERT INTO blocked_secrets (event_id, position_id, secret, blocked, updated) SELECT ${eventId}, ${c.positionId}, ${c.newSecret}, ${c.blockedAfter ? 1 : 0}, ${now}
            WHERE ${holds(c.positionId, c.newSecret)}
            ON CONFLICT (event_id, secret) DO UPDATE SET blocked = excluded.blocked, updated = excluded.updated WHERE blocked_secrets.blocked <> excluded.blocked`,
        ),
      );
    }
  }
  stmts.push(
    db
      .update(orders)
      .set({
        lastModified: sql`max(${orders.lastModified}, ${now})`,
        ...(opts.orderSecret ? { secret: opts.orderSecret } : {}),
      })
      .where(and(eq(orders.id, orderId), eq(orders.eventId, eventId), condition)),
  );
  return stmts;
}

/** The secrets and blocks the positions hold now (read back after a write). */
export function positionSecretsQuery(db: DB, eventId: number, positionIds: readonly number[]) {
  return db
    .select({ id: orderPositions.id, secret: orderPositions.secret, blocked: orderPositions.blocked })
    .from(orderPositions)
    .where(
      and(
        eq(orderPositions.eventId, eventId),
        sql`${orderPositions.id} IN (${sql.join(
          positionIds.map((id) => sql`${id}`),
          sql`, `,
        )})`,
      ),
    );
}

/** The ticket a revoked secret belonged to (the object's D1 fallback), as the check-in index reads it. */
export function revokedSecretQuery(db: DB, eventId: number, secret: string) {
  return db
    .select({ positionId: revokedSecrets.positionId })
    .from(revokedSecrets)
    .where(and(eq(revokedSecrets.eventId, eventId), eq(revokedSecrets.secret, secret)));
}
