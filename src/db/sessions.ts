/**
 * One D1 session per request (D1's Sessions API): writes and synced lists start at the primary, reads
 * at the client's `x-d1-bookmark` (the header name of Cloudflare's own example) or at the nearest copy,
 * and the response hands back the newest bookmark, the event object's included. Who starts where and
 * why: docs/api.md "Global read latency", docs/background-work.md. Sessions are local objects: no round trip.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** The header a client receives its bookmark in and sends it back with. */
export const BOOKMARK_HEADER = "x-d1-bookmark";

/** A D1 bookmark (Cloudflare's documented form: `00000001-00000002-00004e2f-0a83ea2fceebc654de0640c422be4653`). */
const BOOKMARK = /^[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{32}$/;

const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Where a request's session starts, and why (the access log says which). */
export type SessionStart =
  | { kind: "primary"; constraint: "first-primary" }
  | { kind: "unconstrained"; constraint: "first-unconstrained" }
  | { kind: "bookmark"; constraint: string };

const PRIMARY: SessionStart = { kind: "primary", constraint: "first-primary" };
const ANYWHERE: SessionStart = { kind: "unconstrained", constraint: "first-unconstrained" };

export function isBookmark(value: string): boolean {
  return BOOKMARK.test(value);
}

/**
 * The session start for a request with this method and `x-d1-bookmark` header. `objectDecides`:
 * a write whose Worker only reads (the credential, the catalog) and whose event object decides
 * and writes (a scan, an order): it starts at the client's bookmark or the nearest copy like a
 * read, so that it waits for no round trip to the primary (docs/scaling.md "Scans answered at the
 * event's object", "Orders answered at the event's object").
 */
export function sessionStart(method: string, header: string | null | undefined, objectDecides = false): SessionStart {
  if (!READS.has(method.toUpperCase()) && !objectDecides) return PRIMARY;
  const value = (header ?? "").trim();
  if (value === "" || value === "first-unconstrained") return ANYWHERE;
  if (isBookmark(value)) return { kind: "bookmark", constraint: value };
  return PRIMARY;
}

/** The newer of two bookmarks (bookmarks sort oldest first). */
export function newerBookmark(a: string | null, b: string | null): string | null {
  if (a === null || !isBookmark(a)) return b !== null && isBookmark(b) ? b : null;
  if (b === null || !isBookmark(b)) return a;
  return b > a ? b : a;
}

/** One request's D1 session, and the bookmarks of the event-object calls made for it. */
export class RequestSession {
  readonly session: D1DatabaseSession;
  private atPrimary: D1DatabaseSession | null = null;
  private objectBookmark: string | null = null;

  constructor(
    private readonly d1: D1Database,
    readonly start: SessionStart,
  ) {
    this.session = d1.withSession(start.constraint);
  }

  /**
   * A session whose reads see every write committed before them: the request's own when it
   * started at the primary, else a second one started there (a local object: no round trip).
   */
  primary(): D1DatabaseSession {
    if (this.start.kind === "primary") return this.session;
    this.atPrimary ??= this.d1.withSession("first-primary");
    return this.atPrimary;
  }

  /** The event object wrote to D1 for this request, up to `bookmark`. */
  observe(bookmark: string | null): void {
    this.objectBookmark = newerBookmark(this.objectBookmark, bookmark);
  }

  /** The bookmark the client gets: the newest of the request's own work and the object's. */
  bookmark(): string | null {
    return newerBookmark(
      newerBookmark(this.session.getBookmark(), this.atPrimary?.getBookmark() ?? null),
      this.objectBookmark,
    );
  }
}

const requests = new AsyncLocalStorage<RequestSession>();

/**
 * The running request's session at the primary, when the request started elsewhere (the nearest
 * copy, a bookmark): what is not found there may only not have reached that copy yet. null when
 * the request reads at the primary already, or outside a request.
 */
export function primaryIfElsewhere(): D1DatabaseSession | null {
  return startedElsewhere() ? requests.getStore()!.primary() : null;
}

/** Whether the running request's reads started away from the primary (the nearest copy, a bookmark). */
export function startedElsewhere(): boolean {
  const session = requests.getStore();
  return session !== undefined && session.start.kind !== "primary";
}

/** Runs `fn` (the rest of the request) with `session` as its request's session. */
export function withRequestSession<T>(session: RequestSession, fn: () => T): T {
  return requests.run(session, fn);
}

/** The running request's session (undefined outside a request: jobs, cron, alarms). */
export function currentRequestSession(): RequestSession | undefined {
  return requests.getStore();
}

// ---- the event object's side

const calls = new AsyncLocalStorage<D1DatabaseSession[]>();

/**
 * `d1` in a session that starts at the primary: reads see every committed write, as on the
 * plain binding. The event-object call running (`withBookmarks`) learns its bookmark.
 */
export function primarySession(d1: D1Database): D1DatabaseSession {
  const session = d1.withSession("first-primary");
  calls.getStore()?.push(session);
  return session;
}

/** Runs `fn` and answers its result with the newest bookmark of the primary sessions it opened. */
export async function withBookmarks<T>(fn: () => Promise<T>): Promise<{ value: T; bookmark: string | null }> {
  const sessions: D1DatabaseSession[] = [];
  const value = await calls.run(sessions, fn);
  return { value, bookmark: sessions.reduce<string | null>((b, s) => newerBookmark(b, s.getBookmark()), null) };
}
