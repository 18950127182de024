/**
 * Idempotency keys (docs/api.md): a POST, PUT, PATCH or DELETE with `X-Idempotency-Key`
 * acts once; a repeat with the same key and the same Authorization and Cookie headers gets
 * the stored status, headers and body. While the first is still running a repeat gets 409
 * (retry after five seconds). 409, 429, 500 and 503 are not stored. Keys live 24 hours.
 * Two simultaneous requests cannot both act: the key is claimed by one atomic insert.
 */
import type { MiddlewareHandler } from "hono";
import {
  claimIdempotencyKey,
  findIdempotencyRecord,
  IDEMPOTENCY_RETENTION_MS,
  releaseIdempotencyKey,
  storeIdempotentResponse,
} from "../db/idempotency";
import { sha256Hex } from "../lib/crypto";
import type { AppEnv } from "./context";
import { Failure } from "../lib/failure";

const METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);
const NOT_STORED = new Set([409, 429, 500, 503]);
/** Headers that describe the stored body and are replayed with it. */
const REPLAYED_HEADERS = ["content-type", "location", "x-page-generated", "last-modified", "x-ignored-fields"];

export function idempotency(): MiddlewareHandler<AppEnv> {
  return async function idempotency(c, next) {
    const key = c.req.header("X-Idempotency-Key");
    if (!key || !METHODS.has(c.req.method)) return next();
    const db = c.var.db;
    const keyHash = await sha256Hex(
      JSON.stringify([key, c.req.header("Authorization") ?? "", c.req.header("Cookie") ?? ""]),
    );
    const now = Date.now();
    if (!(await claimIdempotencyKey(db, keyHash, now))) {
      const record = await findIdempotencyRecord(db, keyHash);
      if (record && record.state === "done" && record.createdAt >= now - IDEMPOTENCY_RETENTION_MS) {
        return new Response(record.responseStatus === 204 ? null : record.responseBody, {
          status: record.responseStatus ?? 200,
          headers: record.responseHeaders ?? [],
        });
      }
      throw new Failure(
        "in_progress",
        "This request is still being processed with the same idempotency key. Retry after five seconds.",
      );
    }
    try {
      await next();
    } catch (e) {
      await releaseIdempotencyKey(db, keyHash);
      throw e;
    }
    const res = c.res;
    if (NOT_STORED.has(res.status)) {
      await releaseIdempotencyKey(db, keyHash);
      return;
    }
    const body = res.status === 204 || res.status === 304 ? "" : await res.clone().text();
    const headers: [string, string][] = [];
    for (const name of REPLAYED_HEADERS) {
      const v = res.headers.get(name);
      if (v !== null) headers.push([name, v]);
    }
    await storeIdempotentResponse(db, keyHash, { status: res.status, headers, body });
  };
}
