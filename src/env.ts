import type { EventObject } from "./objects/event-object";
import type { MailMessage } from "./domain/mail";
import type { RateLimiter } from "./objects/rate-limiter";
import type { WebhookMessage } from "./domain/webhooks";

/** Bindings and variables declared in wrangler.toml. */
export interface Env {
  DB: D1Database;
  EVENT_OBJECT: DurableObjectNamespace<EventObject>;
  RATE_LIMITER: DurableObjectNamespace<RateLimiter>;
  FILES: R2Bucket;
  EXPORTS_QUEUE: Queue<ExportMessage>;
  MAIL_QUEUE: Queue<MailMessage>;
  WEBHOOK_QUEUE: Queue<WebhookMessage>;
  /** Cloudflare's email sending binding (used when MAIL_TRANSPORT is "cloudflare"). */
  EMAIL?: SendEmail;
  MAIL_TRANSPORT?: string;
  EVENT_OBJECT_TIMEOUT_MS?: string;
  MAIL_FROM?: string;
  PUBLIC_BASE_URL?: string;
  RATE_LIMIT_REQUESTS?: string;
  RATE_LIMIT_WINDOW_SECONDS?: string;
  MAX_BODY_BYTES?: string;
  UPLOAD_MAX_BYTES?: string;
  UPLOAD_ALLOWED_TYPES?: string;
  /** "1": webhooks may target the loopback interface (http or https), for local development. */
  WEBHOOK_ALLOW_LOOPBACK?: string;
  /** "1": count D1 round trips per request into response headers (a debugging aid; src/db/round-trips.ts). */
  DEBUG_D1_ROUND_TRIPS?: string;
  EXPORT_RETENTION_HOURS?: string;
  EXPORT_STEP_ROWS?: string;
  EXPORT_PART_BYTES?: string;
}

/** A message on the exports queue: do step `step` of the export (each step one message). */
export type ExportMessage = { kind: "export"; exportId: string; step: number };

export type Config = {
  publicBaseUrl: string | null;
  rateLimit: { requests: number; windowSeconds: number } | null;
  maxBodyBytes: number | null;
  upload: { maxBytes: number | null; allowedTypes: string[] | null };
  mail: { transport: "local" | "cloudflare"; from: string };
  /** How long a request waits for the event object before answering 409 / 503. */
  eventObjectTimeoutMs: number;
  exports: {
    /** How long a finished (or failed) export can be downloaded; afterwards 404. */
    retentionMs: number;
    /** Rows one job step (one queue message) writes. */
    stepRows: number;
    /** Size of the parts of the file's multipart upload to R2 (at least 5 MiB, R2's minimum). */
    partBytes: number;
  };
  /** `allowLoopback`: webhook targets on localhost, 127.0.0.0/8 and ::1 are allowed (also over http). */
  webhooks: { allowLoopback: boolean };
};

function positiveInt(name: string, raw: string | undefined): number | null {
  if (raw === undefined || raw.trim() === "") return null;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`configuration: ${name}=${JSON.stringify(raw)} is not a positive integer; ignored`);
    return null;
  }
  return n;
}

const configCache = new WeakMap<object, Config>();

/** Reads the deployment configuration from the environment (documented in the README). */
export function readConfig(env: Env): Config {
  const cached = configCache.get(env);
  if (cached) return cached;
  const requests = positiveInt("RATE_LIMIT_REQUESTS", env.RATE_LIMIT_REQUESTS);
  const windowSeconds = positiveInt("RATE_LIMIT_WINDOW_SECONDS", env.RATE_LIMIT_WINDOW_SECONDS);
  const types = (env.UPLOAD_ALLOWED_TYPES ?? "")
    .split(",")
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  const base = (env.PUBLIC_BASE_URL ?? "").trim().replace(/\/+$/, "");
  const config: Config = {
    publicBaseUrl: base === "" ? null : base,
    rateLimit: requests && windowSeconds ? { requests, windowSeconds } : null,
    maxBodyBytes: positiveInt("MAX_BODY_BYTES", env.MAX_BODY_BYTES),
    upload: {
      maxBytes: positiveInt("UPLOAD_MAX_BYTES", env.UPLOAD_MAX_BYTES),
      allowedTypes: types.length ? types : null,
    },
    eventObjectTimeoutMs: positiveInt("EVENT_OBJECT_TIMEOUT_MS", env.EVENT_OBJECT_TIMEOUT_MS) ?? 20_000,
    exports: {
      retentionMs: (positiveInt("EXPORT_RETENTION_HOURS", env.EXPORT_RETENTION_HOURS) ?? 24) * 3_600_000,
      stepRows: positiveInt("EXPORT_STEP_ROWS", env.EXPORT_STEP_ROWS) ?? 5000,
      // R2 takes parts of at least 5 MiB
      partBytes: Math.max(5 * 1024 * 1024, positiveInt("EXPORT_PART_BYTES", env.EXPORT_PART_BYTES) ?? 8 * 1024 * 1024),
    },
    webhooks: { allowLoopback: env.WEBHOOK_ALLOW_LOOPBACK === "1" },
    mail: {
      transport: env.MAIL_TRANSPORT === "cloudflare" ? "cloudflare" : "local",
      from: (env.MAIL_FROM ?? "").trim() || "tickets@localhost",
    },
  };
  configCache.set(env, config);
  if (env.WEBHOOK_ALLOW_LOOPBACK && env.WEBHOOK_ALLOW_LOOPBACK !== "1" && env.WEBHOOK_ALLOW_LOOPBACK !== "0") {
    console.error(`configuration: WEBHOOK_ALLOW_LOOPBACK=${JSON.stringify(env.WEBHOOK_ALLOW_LOOPBACK)} is not "1", "0" or empty; loopback targets stay refused`);
  }
  if (env.MAIL_TRANSPORT && !["local", "cloudflare"].includes(env.MAIL_TRANSPORT)) {
    console.error(`configuration: MAIL_TRANSPORT=${JSON.stringify(env.MAIL_TRANSPORT)} is not "local" or "cloudflare"; using "local"`);
  }
  return config;
}

type ProjectEnv = Env;
declare global {
  namespace Cloudflare {
    interface Env extends ProjectEnv {}
    interface GlobalProps {
      mainModule: typeof import("./index");
      durableNamespaces: "EventObject" | "RateLimiter";
    }
  }
}
