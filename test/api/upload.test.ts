/** POST /api/v1/upload and the shared resolver of `file:<id>` values. */
import { env, exports } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { Hono } from "hono";
import { describe, expect, it } from "vitest";
import { errorBoundary } from "../../src/app";
import { createDb } from "../../src/db/client";
import { uploadedFiles } from "../../src/db/schema";
import type { AppEnv } from "../../src/http/context";
import { resolveFileField } from "../../src/http/files";
import { mediaUrl } from "../../src/rules/urls";
import { publicBase } from "../../src/http/context";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { anonymous, db, seedDevice, seedOrganizer, type Client } from "../harness";

const PNG = new Uint8Array([137, 80, 78, 71, 13, 10, 26, 10, 0, 0, 0, 13, 73, 72, 68, 82]);

function upload(client: Client, body: BodyInit, headers: Record<string, string>) {
  return client.post("/api/v1/upload", undefined, { raw: body, headers });
}

describe("file upload", () => {
  it("stores the file and answers 201 with a file id", async () => {
    const org = await seedOrganizer();
    const res = await upload(org.client, PNG, {
      "Content-Type": "image/png",
      "Content-Disposition": 'attachment; filename="logo.png"',
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body)).toEqual(["id"]);
    expect(res.body.id).toMatch(/^file:[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const uuid = res.body.id.slice(5);
    const stored = await env.FILES.get(`uploads/${uuid}`);
    expect(new Uint8Array(await stored!.arrayBuffer())).toEqual(PNG);
    const [row] = await db().select().from(uploadedFiles).where(eq(uploadedFiles.id, uuid));
    expect(row).toMatchObject({ filename: "logo.png", contentType: "image/png", size: PNG.length });
  });

  it("needs Content-Type and Content-Disposition: attachment; filename=...", async () => {
    const org = await seedOrganizer();
    const noType = await org.client.post("/api/v1/upload", undefined, {
      raw: PNG,
      headers: { "Content-Disposition": "attachment; filename=a.png" },
    });
    expect(noType.status).toBe(400);
    expect(noType.body).toEqual({ detail: "A Content-Type header with the file's type is required." });
    for (const disposition of [undefined, "inline; filename=a.png", "attachment", 'attachment; filename=""']) {
      const headers: Record<string, string> = { "Content-Type": "image/png" };
      if (disposition) headers["Content-Disposition"] = disposition;
      const res = await upload(org.client, PNG, headers);
      expect(res.status, String(disposition)).toBe(400);
      expect(res.body).toEqual({ detail: 'A header "Content-Disposition: attachment; filename=<name>" is required.' });
    }
    const rfc5987 = await upload(org.client, PNG, {
      "Content-Type": "image/png",
      "Content-Disposition": "attachment; filename*=UTF-8''B%C3%BChne.png",
    });
    expect(rfc5987.status).toBe(201);
  });

  it("refuses types outside the configured list, empty files and anonymous callers", async () => {
    const org = await seedOrganizer();
    const text = await upload(org.client, "hello", {
      "Content-Type": "text/plain",
      "Content-Disposition": "attachment; filename=a.txt",
    });
    expect(text.status).toBe(400);
    expect(text.body.detail).toMatch(/^Files of type "text\/plain" are not accepted/);
    const empty = await upload(org.client, new Uint8Array(0), {
      "Content-Type": "image/png",
      "Content-Disposition": "attachment; filename=a.png",
    });
    expect(empty.status).toBe(400);
    const anon = await upload(anonymous, PNG, {
      "Content-Type": "image/png",
      "Content-Disposition": "attachment; filename=a.png",
    });
    expect(anon.status).toBe(401);
  });

  it("accepts uploads from devices too", async () => {
    const org = await seedOrganizer();
    const device = await seedDevice(org.id);
    const res = await upload(device.client, PNG, {
      "Content-Type": "image/png",
      "Content-Disposition": "attachment; filename=a.png",
    });
    expect(res.status).toBe(201);
  });

  it("forgets uploads after 24 hours (cron)", async () => {
    const org = await seedOrganizer();
    const res = await upload(org.client, PNG, {
      "Content-Type": "image/png",
      "Content-Disposition": "attachment; filename=a.png",
    });
    const uuid = res.body.id.slice(5);
    await db()
      .update(uploadedFiles)
      .set({ createdAt: Date.now() - 25 * 3600 * 1000 })
      .where(eq(uploadedFiles.id, uuid));
    await runHousekeeping(env, Date.now());
    expect(await db().select().from(uploadedFiles).where(eq(uploadedFiles.id, uuid))).toHaveLength(0);
    expect(await env.FILES.get(`uploads/${uuid}`)).toBeNull();
  });
});

/** A file field as later resources use it: resolveFileField + mediaUrl. */
function fileFieldApp(identity: string) {
  const app = new Hono<AppEnv>();
  app.onError(errorBoundary);
  app.use(async (c, next) => {
    c.set("db", createDb(env.DB_2));
    c.set("principal", { identity } as AppEnv["Variables"]["principal"]);
    await next();
  });
  app.post("/picture", async (c) => {
    const body = (await c.req.json()) as { picture: string };
    const key = await resolveFileField(c, "picture", body.picture, { allowedTypes: ["image/png"], scope: "test" });
    return c.json({ picture: mediaUrl(publicBase(c), key) });
  });
  return (picture: string) =>
    app.request(
      "http://ticketing.test/picture",
      { method: "POST", body: JSON.stringify({ picture }), headers: { "Content-Type": "application/json" } },
      env,
    );
}

describe("file fields", () => {
  it("resolve an id of the same credential into a stored file served under /media/", async () => {
    const org = await seedOrganizer();
    const res = await upload(org.client, PNG, {
      "Content-Type": "image/png",
      "Content-Disposition": 'attachment; filename="logo.png"',
    });
    const { teamApiTokens } = await import("../../src/db/schema");
    const [token] = await db().select().from(teamApiTokens).where(eq(teamApiTokens.teamId, org.teamId));
    const field = fileFieldApp(`token:${token!.id}`);

    const ok = await field(res.body.id);
    expect(ok.status).toBe(200);
    const { picture } = (await ok.json()) as { picture: string };
    expect(picture).toMatch(/^http:\/\/ticketing\.test\/media\/test\/[0-9a-f-]{36}\/logo\.png$/);
    const served = await exports.default.fetch(picture);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("image/png");
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(PNG);

    const other = fileFieldApp("token:999999");
    const foreign = await other(res.body.id);
    expect(foreign.status).toBe(400);
    expect(await foreign.json()).toEqual({ picture: ["The submitted file ID was not found."] });

    expect(await (await field("file:00000000-0000-4000-8000-000000000000")).json()).toEqual({
      picture: ["The submitted file ID was not found."],
    });
    expect(await (await field("https://example.org/x.png")).json()).toEqual({
      picture: ["Expected a file ID from the upload endpoint (file:<id>)."],
    });

    await db()
      .update(uploadedFiles)
      .set({ createdAt: Date.now() - 25 * 3600 * 1000 })
      .where(eq(uploadedFiles.id, res.body.id.slice(5)));
    expect(await (await field(res.body.id)).json()).toEqual({ picture: ["The submitted file ID has expired."] });
  });

  it("reject files of a type the field does not take", async () => {
    const org = await seedOrganizer();
    const pdf = await upload(org.client, "%PDF-1.4", {
      "Content-Type": "application/pdf",
      "Content-Disposition": "attachment; filename=a.pdf",
    });
    const { teamApiTokens } = await import("../../src/db/schema");
    const [token] = await db().select().from(teamApiTokens).where(eq(teamApiTokens.teamId, org.teamId));
    const res = await fileFieldApp(`token:${token!.id}`)(pdf.body.id);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      picture: ['Files of type "application/pdf" are not accepted here (image/png).'],
    });
  });

  it("answers 404 for media that does not exist", async () => {
    const res = await exports.default.fetch("http://ticketing.test/media/nothing/here.png");
    expect(res.status).toBe(404);
  });
});
