/**
 * Authentication: `Authorization: Token <key>` (team API tokens) or `Device <token>`
 * (initialized devices). Both are stored as SHA-256 hashes. The result is one Principal.
 */
import type { MiddlewareHandler } from "hono";
import { createDb, type DB } from "../db/client";
import { primaryIfElsewhere } from "../db/sessions";
import { type CredentialKind, credentialLookup, findCredential, type FoundCredential } from "../db/principals";
import { teamFlags } from "../db/teams";
import type { TenancySlugs } from "../db/tenancy";
import { DEVICE_GRANT, type Principal, teamPermissionSet } from "../rules/permissions";
import { sha256Hex } from "../lib/crypto";
import type { AppContext, AppEnv } from "./context";
import { CredentialAhead, recallAdmission } from "./credential-batch";
import { routeReadsWithCredential } from "./tenancy";
import { Failure, MESSAGES } from "../lib/failure";

function unauthorized(detail: string): Failure {
  return new Failure("unauthenticated", detail);
}

/** The organizer and event slugs of a path in the URL tree, as the router will read them. */
const TENANCY_PATH = /^\/api\/v1\/organizers\/([^/]+)(?:\/events\/([^/]+))?/;

/** A path segment decoded as the router decodes its parameters (left as is when malformed). */
function decodeSegment(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** The organizer and event slugs of a path, exactly as the router's `:organizer` and `:event` read them. */
export function tenancySlugs(path: string): TenancySlugs | null {
  const m = TENANCY_PATH.exec(path);
  return m ? { organizer: decodeSegment(m[1]!), event: m[2] === undefined ? null : decodeSegment(m[2]) } : null;
}

function idSet(json: string | null): Set<number> {
  return new Set(json ? (JSON.parse(json) as number[]) : []);
}

/** The scheme and key of an `Authorization` header (`Token <key>`, `Device <key>`). */
export function parseAuthorization(header: string | undefined): { scheme: string; credential: string } {
  if (!header) throw unauthorized(MESSAGES.noCredentials);
  const [scheme, credential, ...rest] = header.trim().split(/\s+/);
  if (!scheme || !credential || rest.length) throw unauthorized("Invalid token header.");
  return { scheme, credential };
}

/** The credential kind of an `Authorization` scheme (401 for any other scheme). */
function credentialKind(scheme: string): CredentialKind {
  switch (scheme.toLowerCase()) {
    case "token":
      return "token";
    case "device":
      return "device";
    default:
      // OAuth 2.0 (Bearer) and browser sessions are not offered (docs/open-points.md).
      throw unauthorized('Unsupported authorization scheme. Use "Token <key>" or "Device <token>".');
  }
}

/** The principal of a found credential (401 when there is none, or it is inactive or revoked). */
function principalOf(found: FoundCredential, hash: string): Principal {
  if (found.kind === "token") {
    const row = found.row;
    if (!row?.active) throw unauthorized(MESSAGES.invalidToken);
    return {
      kind: "token",
      organizerId: row.team.organizerId,
      teamId: row.team.id,
      deviceId: null,
      tokenId: row.tokenId,
      allEvents: row.team.allEvents,
      eventIds: idSet(row.eventIds),
      permissions: teamPermissionSet(teamFlags(row.team)),
      identity: `token:${row.tokenId}`,
      credentialHash: hash,
      securityProfile: null,
      softwareBrand: null,
    };
  }
  const row = found.row;
  if (!row) throw unauthorized(MESSAGES.invalidToken);
  if (row.device.revoked) throw unauthorized("Device access has been revoked.");
  return {
    kind: "device",
    organizerId: row.device.organizerId,
    teamId: null,
    deviceId: row.device.id,
    tokenId: null,
    allEvents: row.device.allEvents,
    eventIds: idSet(row.eventIds),
    permissions: DEVICE_GRANT,
    identity: `device:${row.device.id}`,
    credentialHash: hash,
    securityProfile: row.device.securityProfile,
    softwareBrand: row.device.softwareBrand,
  };
}

/** Sets the request's tenancy and principal from a found credential (401 when it is not admitted). */
function admit(c: AppContext, found: FoundCredential, hash: string): void {
  c.set("tenancy", found.tenancy);
  c.set("principal", principalOf(found, hash));
}

/** Methods that only read: they may trail the primary anyway (docs/api.md "Global read latency"). */
const READS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Authenticates the request; paths in `publicPaths` pass without credentials. Every request
 * reads its credential from D1 (no cache), so a rolled or revoked device key and a deactivated
 * token are refused from the very next request on (a scan or an order reads it at the nearest
 * copy: once that copy has the change; docs/scaling.md). A route that reads its page with the
 * credential gets the check ahead instead, when this isolate admitted the credential to the
 * path's event before (http/credential-batch.ts): the lookup then rides in the page's batch.
 */
export function authenticate(opts: { publicPaths: RegExp[] }): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    if (opts.publicPaths.some((re) => re.test(c.req.path))) return next();
    const { scheme, credential } = parseAuthorization(c.req.header("Authorization"));
    const kind = credentialKind(scheme);
    const hash = await sha256Hex(credential);
    const slugs = tenancySlugs(c.req.path);
    const eventId =
      slugs?.event != null && routeReadsWithCredential(c) ? recallAdmission(kind, hash, slugs) : undefined;
    if (slugs && eventId !== undefined) {
      const lookup = (db: DB) => credentialLookup(db, kind, hash, slugs);
      c.set(
        "credentialAhead",
        new CredentialAhead(eventId, { kind, hash, slugs }, lookup, (found) => admit(c, found, hash)),
      );
      return next();
    }
    let found = await findCredential(c.var.db, kind, hash, slugs);
    // a write read at the nearest copy (a scan, an order): a credential or event made a moment
    // ago may not be there yet; the primary decides before a refusal (a read may trail anyway)
    const missing = !found.row || (slugs?.event != null && !found.tenancy?.row?.event);
    const primary = missing && !READS.has(c.req.method) ? primaryIfElsewhere() : null;
    if (primary) found = await findCredential(createDb(primary), kind, hash, slugs);
    admit(c, found, hash);
    await next();
  };
}
