/**
 * Ticket secrets as pretix keeps them (pretix orders.rst; tests test_order_create_position_secret_optional,
 * test_checkin.py test_by_secret_special_chars(_space_fallback), test_checkinrpc.py
 * test_by_secret_special_chars): order creation takes any text an organizer's tickets printed
 * elsewhere carry, unique within the event; such secrets are found by both redeem endpoints
 * (URL-quoted in the per-list path, `+` read as a space when nothing else matches), by searches,
 * and as revoked secrets once re-issued.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { orderPositions, orders } from "../../src/db/schema";
import { db } from "../harness";
import { venue } from "../helpers/checkin";

const TAKEN = "You cannot assign a position secret that already exists.";

type Venue = Awaited<ReturnType<typeof venue>>;

const ordersOf = async (v: Venue) => db().select().from(orders).where(eq(orders.eventId, v.eventId));

const place = (v: Venue, secrets: (string | undefined)[]) =>
  v.client.post(`${v.path}/orders/`, {
    email: "a@example.org",
    status: "p",
    payment_provider: "manual",
    positions: secrets.map((secret) => ({ item: v.ticket.id, ...(secret === undefined ? {} : { secret }) })),
  });

describe("order creation with given secrets", () => {
  it("keeps any text up to 255 characters, as sent (trimmed), and refuses blank, null and longer ones", async () => {
    const v = await venue();
    const kept = ["aaa", "foo bar", "abc+-/==", "Ticket Nº 7 – Ränge/ß", "x".repeat(255)];
    const res = await place(v, [...kept, "  padded  "]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.positions.map((p: { secret: string }) => p.secret)).toEqual([...kept, "padded"]);
    const rows = await db().select().from(orderPositions).where(eq(orderPositions.eventId, v.eventId));
    expect(rows.map((r) => r.secret).sort()).toEqual([...kept, "padded"].sort());

    const bad = await v.client.post(`${v.path}/orders/`, {
      positions: [
        { item: v.ticket.id, secret: "fine" },
        { item: v.ticket.id, secret: "   " },
        { item: v.ticket.id, secret: "y".repeat(256) },
        { item: v.ticket.id, secret: null },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({
      positions: [
        {},
        { secret: ["This field may not be blank."] },
        { secret: ["Ensure this field has no more than 255 characters."] },
        { secret: ["This field may not be null."] },
      ],
    });
    expect(await ordersOf(v)).toHaveLength(1);
  });

  it("a secret another ticket of the event has: 400 with pretix's text on that position, nothing created", async () => {
    const v = await venue();
    expect((await place(v, ["aaa"])).status).toBe(201);
    const before = (await v.client.get(`${v.path}/quotas/`)).body.results[0];
    const again = await place(v, [undefined, "aaa"]);
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ positions: [{}, { secret: [TAKEN] }] });
    expect(await ordersOf(v)).toHaveLength(1);
    const quotaId = before.id;
    const availability = await v.client.get(`${v.path}/quotas/${quotaId}/availability/`);
    expect(availability.body.paid_orders).toBe(1);
    // another event's tickets do not count: the secret is unique within its event
    const other = await venue();
    expect((await place(other, ["aaa"])).status).toBe(201);
  });

  it("20 orders given the same secret at once: one is created, the others answer pretix's 400, never a 503", async () => {
    const v = await venue();
    const results = await Promise.all(Array.from({ length: 20 }, () => place(v, ["PRINTED-0001"])));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status, JSON.stringify(r.body)).toBe(400);
      expect(r.body).toEqual({ positions: [{ secret: [TAKEN] }] });
    }
    expect(await ordersOf(v)).toHaveLength(1);
    const availability = await v.client.get(
      `${v.path}/quotas/${(await v.client.get(`${v.path}/quotas/`)).body.results[0].id}/availability/`,
    );
    expect(availability.body.paid_orders).toBe(1);
  });
});

describe("finding such secrets at the door", () => {
  it("the per-list redeem finds them URL-quoted; a + stands for a space only when no ticket has the +", async () => {
    const v = await venue();
    const list = await v.list({ allow_multiple_entries: true });
    const res = await place(v, ["abc+-/==", "foo bar", "a+b", "a b"]);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const [slashes, spaced, plus, plusAsSpace] = res.body.positions as { id: number; secret: string }[];
    const redeem = (path: string) =>
      v.scanner.post(`${v.path}/checkinlists/${list.id}/positions/${path}/redeem/?untrusted_input=true`, {});
    const admitted = async (path: string, id: number) => {
      const r = await redeem(path);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(201);
      expect(r.body.position.id).toBe(id);
    };
    await admitted(encodeURIComponent("abc+-/=="), slashes!.id);
    await admitted("foo+bar", spaced!.id);
    await admitted("foo%20bar", spaced!.id);
    await admitted("a%2Bb", plus!.id);
    await admitted("a+b", plus!.id);
    await admitted("a%20b", plusAsSpace!.id);
    const unknown = await redeem("nothing+here");
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ status: "error", reason: "invalid" });
  });

  it("checkinrpc/redeem, the search and the list's tickets find them as they are", async () => {
    const v = await venue();
    const list = await v.list();
    const res = await place(v, ["Row 4 / Seat 12 +VIP="]);
    const pos = res.body.positions[0];
    const scan = await v.redeem({ secret: "Row 4 / Seat 12 +VIP=", lists: [list.id] });
    expect(scan.status, JSON.stringify(scan.body)).toBe(201);
    expect(scan.body.position).toMatchObject({ id: pos.id, secret: "Row 4 / Seat 12 +VIP=" });
    const search = await v.client.get(
      `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${list.id}&search=${encodeURIComponent("Row 4 / S")}`,
    );
    expect(search.body.results.map((p: { id: number }) => p.id)).toEqual([pos.id]);
    const filtered = await v.client.get(
      `${v.path}/checkinlists/${list.id}/positions/?secret=${encodeURIComponent("Row 4 / Seat 12 +VIP=")}`,
    );
    expect(filtered.body.results.map((p: { id: number }) => p.id)).toEqual([pos.id]);
  });

  it("with signed secrets: a given secret is kept and admits; re-issued, it is revoked and answers revoked", async () => {
    const v = await venue();
    const set = await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const list = await v.list({ allow_multiple_entries: true });
    const res = await place(v, ["PRINTED 0001/A+B="]);
    const pos = res.body.positions[0];
    expect(pos.secret).toBe("PRINTED 0001/A+B=");
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
    const reissued = await v.client.post(`${v.path}/orderpositions/${pos.id}/regenerate_secrets/`);
    expect(reissued.status).toBe(200);
    expect(reissued.body.secret).not.toBe(pos.secret);
    const revoked = await v.client.get(`${v.path}/revokedsecrets/`);
    expect(revoked.body.results.map((r: { secret: string }) => r.secret)).toEqual(["PRINTED 0001/A+B="]);
    const old = await v.redeem({ secret: "PRINTED 0001/A+B=", lists: [list.id] });
    expect(old.status).toBe(400);
    expect(old.body).toMatchObject({ reason: "revoked", position: { id: pos.id } });
    // the old secret is no ticket's any more: pretix checks given secrets against tickets only, so a
    // new ticket may take it, and a scan of it then means that ticket
    const taken = await place(v, [pos.secret]);
    expect(taken.status, JSON.stringify(taken.body)).toBe(201);
    const scan = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(scan.status).toBe(201);
    expect(scan.body.position.id).toBe(taken.body.positions[0].id);
  });
});
