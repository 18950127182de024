/**
 * A list's page read in the credential's round trip. A request reads its credential (and the
 * path's organizer and event) from D1 before anything else (http/auth.ts); a list page then
 * costs a second round trip. The routes that opt in (`eventScope(permission, { pageWithCredential: true })`:
 * the orders list and a check-in list's tickets, which scanners page through) read their page
 * with the credential instead, in one batch, when this isolate has admitted the same
 * credential to the same event path before:
 *
 * - authentication leaves a `CredentialAhead` (the lookup's statements, the event id that
 *   path had) instead of reading the credential;
 * - the handler reads through `readInScope`: the page's statements are built for that event id
 *   and run behind the lookup's statements in one batch; the credential and the route's
 *   permission are checked on the lookup's results before the handler sees a row (a refused
 *   credential fails the batch with its 401 or 403, and the rows are dropped);
 * - the scope middleware checks again after the handler, so that no answer leaves unchecked
 *   whatever the handler did (a query parameter refused, an error before any batch): a check
 *   not yet made is then made alone, and its refusal replaces the answer;
 * - when the path's event is not the remembered one any more (deleted and created again under
 *   its slug), the page is read again for the right event (a second round trip, as without).
 *
 * Only credentials this isolate has admitted are remembered: an unknown key never gets a page
 * read, and a revoked or changed one gets one at most, answered 401 or 403 like any other.
 */
import type { CredentialLookup, FoundCredential } from "../db/principals";
import { type DB, withLeadingStatements } from "../db/client";
import type { TenancySlugs } from "../db/tenancy";

/** How many (credential, event path) pairs an isolate remembers; the oldest is forgotten first. */
const REMEMBERED = 1024;
const admitted = new Map<string, number>();

function key(kind: string, hash: string, slugs: TenancySlugs): string {
  return JSON.stringify([kind, hash, slugs.organizer, slugs.event]);
}

/** The event id this credential was last admitted to under these slugs, if this isolate remembers it. */
export function recallAdmission(kind: string, hash: string, slugs: TenancySlugs): number | undefined {
  return admitted.get(key(kind, hash, slugs));
}

/** Remembers that the credential was admitted to the event of `eventId` under these slugs. */
export function rememberAdmission(kind: string, hash: string, slugs: TenancySlugs, eventId: number): void {
  const k = key(kind, hash, slugs);
  admitted.delete(k);
  admitted.set(k, eventId);
  if (admitted.size > REMEMBERED) admitted.delete(admitted.keys().next().value!);
}

function forgetAdmission(kind: string, hash: string, slugs: TenancySlugs): void {
  admitted.delete(key(kind, hash, slugs));
}

/**
 * The credential check a request has not made yet: the lookup's statements (built for the db
 * that runs them), what admitting the found credential does (sets the principal and the
 * path's tenancy, or throws 401), and the route's own check (set by its scope; throws 403).
 */
export class CredentialAhead {
  private outcome: Promise<void> | null = null;
  /** The route's permission check, run on the admitted credential; set by the route's scope. */
  check: () => void = () => {
    throw new Error("a route read with the credential without a scope check");
  };

  constructor(
    /** The event id the path's slugs had when this credential was last admitted to them. */
    readonly eventId: number,
    private readonly who: { kind: string; hash: string; slugs: TenancySlugs },
    private readonly lookup: (db: DB) => CredentialLookup,
    private readonly admit: (found: FoundCredential) => void,
  ) {}

  private decide(lookup: CredentialLookup, results: Promise<unknown[]>): Promise<void> {
    this.outcome = results.then((rows) => {
      try {
        this.admit(lookup.read(rows));
        this.check();
      } catch (err) {
        forgetAdmission(this.who.kind, this.who.hash, this.who.slugs);
        throw err;
      }
    });
    return this.outcome;
  }

  /** `db` whose first batch carries the lookup; the check runs on its results before the batch's own return. */
  carriedBy(db: DB): DB {
    if (this.outcome) return db;
    const lookup = this.lookup(db);
    return withLeadingStatements(db, {
      statements: lookup.statements,
      settle: (results) => this.outcome ?? this.decide(lookup, results),
    });
  }

  /** The check's outcome: made alone (one round trip) unless a batch already carried it. */
  settle(db: DB): Promise<void> {
    if (this.outcome) return this.outcome;
    const lookup = this.lookup(db);
    return this.decide(lookup, db.batch(lookup.statements) as Promise<unknown[]>);
  }
}
