/**
 * Authentication: `Authorization: Token <key>` (team API tokens) or `Device <token>`
 * (initialized devices). Both are stored as SHA-256 hashes. The result is one Principal.
 */
import type { MiddlewareHandler } from "hono";
import { findDeviceCredential, findTokenCredential } from "../db/principals";
import { teamFlags } from "../db/teams";
import type { TenancySlugs } from "../db/tenancy";
import { DEVICE_GRANT, type Principal, teamPermissionSet } from "../domain/permissions";
import { sha256Hex } from "../lib/crypto";
import type { AppEnv } from "./context";
import { Failure, MESSAGES } from "../domain/failure";

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

/**
 * Authenticates the request; paths in `publicPaths` pass without credentials. Every request
 * reads its credential from D1 (no cache), so a rolled or revoked device key and a deactivated
 * token are refused from the very next request on.
 */
export function authenticate(opts: { publicPaths: RegExp[] }): MiddlewareHandler<AppEnv> {
  return async function authenticate(c, next) {
    if (opts.publicPaths.some((re) => re.test(c.req.path))) return next();
    const { scheme, credential } = parseAuthorization(c.req.header("Authorization"));
    const hash = await sha256Hex(credential);
    const db = c.var.db;
    const slugs = tenancySlugs(c.req.path);
    let principal: Principal;
    switch (scheme.toLowerCase()) {
      case "token": {
        const { credential: row, tenancy } = await findTokenCredential(db, hash, slugs);
        c.set("tenancy", tenancy);
        if (!row || !row.active) throw unauthorized(MESSAGES.invalidToken);
        principal = {
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
        };
        break;
      }
      case "device": {
        const { credential: row, tenancy } = await findDeviceCredential(db, hash, slugs);
        c.set("tenancy", tenancy);
        if (!row) throw unauthorized(MESSAGES.invalidToken);
        if (row.device.revoked) throw unauthorized("Device access has been revoked.");
        principal = {
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
        };
        break;
      }
      default:
        // OAuth 2.0 (Bearer) and browser sessions are not offered (docs/open-points.md).
        throw unauthorized("Unsupported authorization scheme. Use \"Token <key>\" or \"Device <token>\".");
    }
    c.set("principal", principal);
    await next();
  };
}
