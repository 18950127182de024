/**
 * Organizer groups: each organizer's data in its group's database (DB, DB_2), found through the
 * directory or the organizer its credential names; ids unique across groups; the event object,
 * queue messages and the cron on the organizer's own group; writes refused while it moves.
 */
import { env } from "cloudflare:workers";
import { drizzle } from "drizzle-orm/d1";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { directoryOrganizers } from "../../src/db/directory/schema";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { groupEnv, ID_RANGE } from "../../src/lib/data-groups";
import type { Env } from "../../src/lib/env";
import { randomString } from "../../src/lib/crypto";
import { organizerSecret, secretOrganizer } from "../../src/lib/organizer-credentials";
import { forgetOrganizerRoute } from "../../src/services/organizers/organizer-groups";
import { anonymous, groupD1, type Json, seedOrganizer } from "../harness";
import { venue } from "../helpers/checkin";

async function count(group: number, sql: string, ...params: unknown[]): Promise<number> {
  const row = await groupD1(group)
    .prepare(sql)
    .bind(...params)
    .first<{ n: number }>();
  return row!.n;
}

async function setMoving(organizerId: number, to: number | null) {
  await drizzle(env.DIRECTORY)
    .update(directoryOrganizers)
    .set({ movingTo: to })
    .where(eq(directoryOrganizers.id, organizerId));
  forgetOrganizerRoute(organizerId);
}

describe("organizer groups", () => {
  it("each organizer's sales and scans land in its own group's database, with ids of the group's range", async () => {
    const one = await venue({ group: 1 });
    const two = await venue({ group: 2 });
    await one.list();
    await two.list();
    const sold = [await one.sell(), await two.sell()];
    expect(one.eventId).toBeLessThanOrEqual(ID_RANGE);
    expect(two.eventId).toBeGreaterThan(ID_RANGE);
    expect(sold[1].id).toBeGreaterThan(ID_RANGE);
    for (const [v, pos] of [
      [one, sold[0]],
      [two, sold[1]],
    ] as const) {
      const scan = await v.redeem({
        secret: pos.secret,
        lists: [(await v.client.get(`${v.path}/checkinlists/`)).body.results[0].id],
      });
      expect(scan.status, JSON.stringify(scan.body)).toBe(201);
      expect(scan.body.status).toBe("ok");
    }
    // every row where it belongs, none in the other group
    for (const [v, mine, other] of [
      [one, 1, 2],
      [two, 2, 1],
    ] as const) {
      expect(await count(mine, "SELECT count(*) AS n FROM orders WHERE event_id = ?", v.eventId)).toBe(1);
      expect(await count(other, "SELECT count(*) AS n FROM orders WHERE event_id = ?", v.eventId)).toBe(0);
      expect(
        await count(
          mine,
          "SELECT count(*) AS n FROM checkins WHERE list_id IN (SELECT id FROM checkin_lists WHERE event_id = ?)",
          v.eventId,
        ),
      ).toBe(1);
      expect(await count(other, "SELECT count(*) AS n FROM organizers WHERE slug = ?", v.orgSlug)).toBe(0);
    }
  });

  it("a secret names its organizer; a random one almost never reads as naming one", () => {
    for (const id of [1, 35, 36, 1295, 46_656, 2 ** 40]) {
      for (const length of [16, 32, 64]) {
        const secret = organizerSecret(length, id);
        expect(secret).toMatch(new RegExp(`^[a-z0-9]{${length}}$`));
        expect(secretOrganizer(secret)).toBe(id);
      }
    }
    // 64 random hex characters, as keys made before organizer groups: the check characters refuse them
    const named = Array.from({ length: 5000 }, () => randomString(64, "0123456789abcdef")).filter(
      (s) => secretOrganizer(s) !== null,
    );
    expect(named.length).toBeLessThan(25);
  });

  it("credentials name their organizer; another group's organizer is refused like any other one", async () => {
    const a = await seedOrganizer({ group: 1 });
    const b = await seedOrganizer({ group: 2 });
    expect(secretOrganizer(a.token)).toBe(a.id);
    expect(a.token).toMatch(/^[a-z0-9]{64}$/);
    expect((await a.client.get(`/api/v1/organizers/${a.slug}/`)).status).toBe(200);
    expect((await b.client.get(`/api/v1/organizers/${b.slug}/`)).status).toBe(200);
    expect((await a.client.get(`/api/v1/organizers/${b.slug}/`)).status).toBe(403);
    expect((await b.client.get(`/api/v1/organizers/${a.slug}/events/`)).status).toBe(403);
    const listed = (await a.client.get("/api/v1/organizers/")).body.results.map((o: Json) => o.slug);
    expect(listed).toEqual([a.slug]);
  });

  it("gift card acceptance joins organizers of one group: another group's organizer is as one that does not exist", async () => {
    const issuer = await seedOrganizer({ group: 2 });
    const sameGroup = await seedOrganizer({ group: 2 });
    const otherGroup = await seedOrganizer({ group: 1 });
    const invite = (acceptor: string) =>
      issuer.client.post(`/api/v1/organizers/${issuer.slug}/giftcard_acceptors/`, { acceptor });
    expect((await invite(sameGroup.slug)).status).toBe(201);
    const missing = await invite("no-such-organizer");
    const elsewhere = await invite(otherGroup.slug);
    expect(missing.status).toBe(400);
    expect({ status: elsewhere.status, body: elsewhere.body }).toEqual({ status: missing.status, body: missing.body });
  });

  it("a device of a group 1 organizer is set up with its initialization token and scans there", async () => {
    const a = await seedOrganizer({ group: 1 });
    const created = await a.client.post(`/api/v1/organizers/${a.slug}/devices/`, { name: "Gate", all_events: true });
    expect(created.status).toBe(201);
    expect(secretOrganizer(created.body.initialization_token)).toBe(a.id);
    const init = await anonymous.post("/api/v1/device/initialize", {
      token: created.body.initialization_token,
      hardware_brand: "Zebra",
      hardware_model: "TC25",
      os_name: "Android",
      os_version: "8.1.0",
      software_brand: "pretixSCAN",
      software_version: "1.11.1",
    });
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    expect(init.body.organizer).toBe(a.slug);
    expect(secretOrganizer(init.body.api_token)).toBe(a.id);
    const info = await anonymous.get("/api/v1/device/info", {
      headers: { Authorization: `Device ${init.body.api_token}` },
    });
    expect(info.status).toBe(200);
    expect(
      await count(1, "SELECT count(*) AS n FROM devices WHERE organizer_id = ? AND initialized IS NOT NULL", a.id),
    ).toBe(1);
  });

  it("a customer page finds its organizer through the directory", async () => {
    const v = await venue({ group: 1 });
    const live = await v.client.patch(`${v.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
    expect(live.status).toBe(200);
    const page = await anonymous.get(`/${v.orgSlug}/${v.eventSlug}/`, { contract: false });
    expect(page.status).toBe(200);
    expect(page.text).toContain("Concert");
  });

  it("while an organizer moves, its writes answer 503 with Retry-After and change nothing; reads go on", async () => {
    const v = await venue({ group: 2 });
    await setMoving(v.org.id, 1);
    try {
      const before = await count(2, "SELECT count(*) AS n FROM orders WHERE event_id = ?", v.eventId);
      const refused = await v.client.post(`${v.path}/orders/`, { positions: [{ item: v.ticket.id }] });
      expect(refused.status).toBe(503);
      expect(refused.headers.get("Retry-After")).toBe("1");
      expect(refused.body).toEqual({ detail: "This organizer is being moved to another database. Retry in a moment." });
      expect(await count(2, "SELECT count(*) AS n FROM orders WHERE event_id = ?", v.eventId)).toBe(before);
      expect((await v.client.get(`${v.path}/orders/`)).status).toBe(200);
    } finally {
      await setMoving(v.org.id, null);
    }
    expect((await v.client.post(`${v.path}/orders/`, { positions: [{ item: v.ticket.id }] })).status).toBe(201);
  });

  it("a group's queues add the group to every message, so its consumer comes back to it", async () => {
    const sent: unknown[] = [];
    const fake = {
      send: async (body: unknown) => void sent.push(body),
      sendBatch: async (messages: { body: unknown }[]) => void sent.push(...messages.map((m) => m.body)),
    };
    const base = { ...(env as unknown as Env), MAIL_QUEUE: fake as never, WEBHOOK_QUEUE: fake as never };
    const two = groupEnv(base, 2);
    expect(two.DB).toBe(env.DB_2);
    await two.MAIL_QUEUE.send({ kind: "mail", mailId: 7 });
    await two.WEBHOOK_QUEUE.sendBatch([{ body: { kind: "webhook", eventId: 1, code: "ABC" } }]);
    expect(sent).toEqual([
      { kind: "mail", mailId: 7, group: 2 },
      { kind: "webhook", eventId: 1, code: "ABC", group: 2 },
    ]);
  });

  it("the cron works on every group", async () => {
    const one = await venue({ group: 1 });
    const two = await venue({ group: 2 });
    // orders of both groups that are overdue: one cron run expires both, each in its group
    const pending = [
      await one.order({ status: "n", email: "x@example.org" }),
      await two.order({ status: "n", email: "y@example.org" }),
    ];
    const later = Date.parse(pending[0].expires) + 3_600_000;
    // a run expires at most a page of overdue orders per group (the other test files' too): until ours are
    const at = Math.max(later, Date.parse(pending[1].expires) + 3_600_000);
    for (let run = 0; run < 10; run++) {
      await runHousekeeping(env as never, at);
      const statuses = await Promise.all([
        one.client.get(`${one.path}/orders/${pending[0].code}/`),
        two.client.get(`${two.path}/orders/${pending[1].code}/`),
      ]);
      if (statuses.every((r) => r.body.status === "e")) break;
    }
    expect((await one.client.get(`${one.path}/orders/${pending[0].code}/`)).body.status).toBe("e");
    expect((await two.client.get(`${two.path}/orders/${pending[1].code}/`)).body.status).toBe("e");
  });
});
