/**
 * A list's page read in the credential's round trip (docs/routes.md "A page in the credential's round
 * trip"): when this isolate admitted the same credential to the same event path before, authentication
 * leaves a `CredentialAhead` and the page runs behind the credential's lookup in one batch, checked
 * before the handler sees a row and again after it. Only credentials this isolate admitted are
 * remembered: an unknown key never gets a page read.
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
