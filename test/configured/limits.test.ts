/**
 * The worker with deployment configuration set (test/vitest.config.ts, project
 * "workers-configured"): rate limit 100 per hour, MAX_BODY_BYTES 2048, UPLOAD_MAX_BYTES 1024,
 * UPLOAD_ALLOWED_TYPES png and pdf, PUBLIC_BASE_URL https://tickets.example.org/.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { idempotencyKeys } from "../../src/db/schema";
import { db, seedOrganizer, groupTestEnv } from "../harness";

const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13]);

describe("rate limiting", () => {
  it("answers 429 with Retry-After past the threshold, per credential", async () => {
    const a = await seedOrganizer();
    const b = await seedOrganizer();
    for (let i = 0; i < 100; i++) expect((await a.client.get("/api/v1/organizers/")).status).toBe(200);
    const limited = await a.client.get("/api/v1/organizers/");
    expect(limited.status).toBe(429);
    expect(limited.body.detail).toMatch(/^Request was throttled\. Expected available in \d+ seconds\.$/);
    const retry = Number(limited.headers.get("retry-after"));
    expect(retry).toBeGreaterThan(0);
    expect(retry).toBeLessThanOrEqual(3600);
    expect((await b.client.get("/api/v1/organizers/")).status).toBe(200);
  });

  it("opens a window with the first request, so a burst across the top of the hour is limited", async () => {
    const { env } = await import("cloudflare:workers");
    const limiter = env.RATE_LIMITER.getByName(`boundary-${crypto.randomUUID()}`);
    const hour = 3_600_000;
    const start = 10 * hour - 1_000; // one second before a clock hour
    for (let i = 0; i < 100; i++) expect(await limiter.hit(100, 3600, start + i)).toBe(0);
    expect(await limiter.hit(100, 3600, 10 * hour + 1_000)).toBe(3598);
    expect(await limiter.hit(100, 3600, start + hour - 1)).toBe(1);
    expect(await limiter.hit(100, 3600, start + hour)).toBe(0);
  });

  it("does not store a 429 under an idempotency key", async () => {
    const org = await seedOrganizer();
    // the project's files share the database: the keys the others stored stay as they are
    const stored = async () => (await db().select().from(idempotencyKeys)).length;
    const before = await stored();
    for (let i = 0; i < 100; i++) await org.client.get("/api/v1/organizers/");
    const res = await org.client.post(
      `/api/v1/organizers/${org.slug}/teams/`,
      { name: "x" },
      { headers: { "X-Idempotency-Key": "k-429" } },
    );
    expect(res.status).toBe(429);
    expect(await stored()).toBe(before);
  });
});

describe("body size limit", () => {
  it("refuses JSON bodies above MAX_BODY_BYTES with 400", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: "x".repeat(3000) });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: "Request body too large (at most 2048 bytes)." });
  });
});

describe("upload limits", () => {
  it("takes configured types up to the configured size", async () => {
    const org = await seedOrganizer();
    const upload = (body: Uint8Array, type: string) =>
      org.client.post("/api/v1/upload", undefined, {
        raw: body,
        headers: { "Content-Type": type, "Content-Disposition": 'attachment; filename="f.bin"' },
      });
    expect((await upload(PNG, "image/png")).status).toBe(201);
    const big = await upload(new Uint8Array(2000), "image/png");
    expect(big.status).toBe(400);
    expect(big.body).toEqual({ detail: "The file is too large (at most 1024 bytes)." });
    const gif = await upload(PNG, "image/gif");
    expect(gif.status).toBe(400);
    expect(gif.body).toEqual({
      detail: 'Files of type "image/gif" are not accepted. Accepted types: image/png, application/pdf.',
    });
  });
});

describe("public base URL", () => {
  it("builds customer-facing URLs from PUBLIC_BASE_URL", async () => {
    const org = await seedOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.body.public_url).toBe(`https://tickets.example.org/${org.slug}/`);
  });
});

describe("mail through the configured transport", () => {
  it("sends through Cloudflare's email binding (MAIL_TRANSPORT=cloudflare) and records the message id", async () => {
    const org = await seedOrganizer();
    await org.client.post(`/api/v1/organizers/${org.slug}/teams/${org.teamId}/invites/`, {
      email: "someone@example.org",
    });
    const { mailOutbox } = await import("../../src/db/schema");
    const [mail] = await db().select().from(mailOutbox).where(eq(mailOutbox.organizerId, org.id));
    expect(mail!.state).toBe("queued");
    const { deliverMail } = await import("../../src/jobs/mail");
    await deliverMail(groupTestEnv(), db(), mail!.id);
    const [after] = await db().select().from(mailOutbox).where(eq(mailOutbox.id, mail!.id));
    expect(after!.state).toBe("sent");
    expect(after!.sentAt).not.toBeNull();
    expect(after!.messageId).toBeTruthy();
  });
});
