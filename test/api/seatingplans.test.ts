import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { planSeats, planSeatsByGuid } from "../../src/db/seatingplans";
import { events } from "../../src/db/schema";
import { db, seedEventRow, seedOrganizer, seedTeam } from "../harness";
import { seedSubevent } from "../helpers/catalog";

/** A plan in pretix's seating plan format, with parts the service does not read. */
const LAYOUT = {
  name: "Main hall",
  categories: [{ name: "Stalls", color: "#ff0000" }, { name: "Balcony" }],
  size: { width: 600, height: 400 },
  zones: [
    {
      name: "Ground floor",
      zone_id: "zone-1",
      position: { x: 10, y: 20 },
      areas: [
        {
          shape: "rectangle",
          position: { x: 0, y: 0 },
          rectangle: { width: 100, height: 20 },
          text: { text: "Stage", position: { x: 1, y: 1 } },
        },
      ],
      rows: [
        {
          row_number: "1",
          row_label: "Row %s",
          seat_label: "Seat %s",
          position: { x: 5, y: 5 },
          seats: [
            { seat_guid: "g-1-1", seat_number: "1", category: "Stalls", position: { x: 0, y: 0 }, radius: 10 },
            { seat_guid: "g-1-2", seat_number: "2", category: "Stalls", position: { x: 25, y: 0 } },
          ],
        },
        {
          row_number: "A",
          seats: [{ seat_guid: "g-a-x", seat_number: "X", category: "Stalls", position: { x: 0, y: 30 } }],
        },
      ],
    },
    {
      name: "Balcony",
      position: { x: 0, y: 200 },
      rows: [
        {
          row_number: "1",
          seats: [{ seat_guid: "b-1", seat_number: "10", category: "Balcony", position: { x: 3, y: 4 } }],
        },
      ],
    },
  ],
};

async function setup() {
  const org = await seedOrganizer();
  return { org, client: org.client, base: `/api/v1/organizers/${org.slug}/seatingplans` };
}

describe("seating plans", () => {
  it("creates a plan, returns its layout exactly as sent and keeps its seats for selling", async () => {
    const { org, client, base } = await setup();
    const res = await client.post(`${base}/`, { name: "Main plan", layout: LAYOUT });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), name: "Main plan", layout: LAYOUT });
    expect((await client.get(`${base}/${res.body.id}/`)).body).toEqual(res.body);
    expect((await client.get(`${base}/`)).body).toEqual({ count: 1, next: null, previous: null, results: [res.body] });

    const seats = await planSeats(db(), org.id, res.body.id);
    expect(seats.map((s) => ({ ...s, id: undefined, planId: undefined }))).toEqual(
      [
        {
          id: undefined,
          planId: undefined,
          seatGuid: "g-1-1",
          zoneName: "Ground floor",
          rowName: "1",
          rowLabel: "Row 1",
          seatNumber: "1",
          seatLabel: "Seat 1",
          category: "Stalls",
          sortingRank: 10_001,
          x: 15,
          y: 25,
        },
        {
          id: undefined,
          planId: undefined,
          seatGuid: "g-1-2",
          zoneName: "Ground floor",
          rowName: "1",
          rowLabel: "Row 1",
          seatNumber: "2",
          seatLabel: "Seat 2",
          category: "Stalls",
          sortingRank: 10_002,
          x: 40,
          y: 25,
        },
        {
          id: undefined,
          planId: undefined,
          seatGuid: "g-a-x",
          zoneName: "Ground floor",
          rowName: "A",
          rowLabel: null,
          seatNumber: "X",
          seatLabel: null,
          category: "Stalls",
          sortingRank: 10_000,
          x: 10,
          y: 50,
        },
        {
          id: undefined,
          planId: undefined,
          seatGuid: "b-1",
          zoneName: "Balcony",
          rowName: "1",
          rowLabel: null,
          seatNumber: "10",
          seatLabel: null,
          category: "Balcony",
          sortingRank: 100_010_010,
          x: 3,
          y: 204,
        },
      ].sort((a, b) => a.sortingRank - b.sortingRank),
    );

    const byGuid = await planSeatsByGuid(db(), org.id, res.body.id, ["b-1", "g-1-2", "nope"]);
    expect([...byGuid.keys()].sort()).toEqual(["b-1", "g-1-2"]);
    expect(byGuid.get("b-1")!.category).toBe("Balcony");
    // another organizer's id never yields the seats
    const stranger = await seedOrganizer();
    expect(await planSeats(db(), stranger.id, res.body.id)).toEqual([]);
    expect((await planSeatsByGuid(db(), stranger.id, res.body.id, ["b-1"])).size).toBe(0);
  });

  it("rejects layouts whose seats cannot be read, and creates nothing", async () => {
    const { client, base } = await setup();
    const seat = (extra: object) => ({
      ...LAYOUT,
      zones: [{ position: { x: 0, y: 0 }, rows: [{ row_number: "1", seats: [extra] }] }],
    });
    const cases: [unknown, string[]][] = [
      [{ categories: [] }, ["zones: This field is required and must be a list."]],
      [{ zones: [] }, ["categories: This field is required and must be a list."]],
      [{ ...LAYOUT, zones: [{ rows: "many" }] }, ["zones[0].rows: This field is required and must be a list."]],
      [
        { ...LAYOUT, zones: [{ rows: [{ seats: [] }] }] },
        ["zones[0].rows[0].row_number: This field is required and must be a string."],
      ],
      [
        seat({ seat_number: "1", category: "Stalls" }),
        ["zones[0].rows[0].seats[0].seat_guid: This field is required and must be a non-empty string."],
      ],
      [
        seat({ seat_guid: "g", seat_number: 1, category: "Stalls" }),
        ["zones[0].rows[0].seats[0].seat_number: This field is required and must be a string."],
      ],
      [
        seat({ seat_guid: "g", seat_number: "1" }),
        ["zones[0].rows[0].seats[0].category: This field is required and must be a string."],
      ],
      [
        seat({ seat_guid: "g", seat_number: "1", category: "Stalls", position: { x: "0" } }),
        ["zones[0].rows[0].seats[0].position: A position must be an object with numbers x and y."],
      ],
      [
        {
          ...LAYOUT,
          zones: [
            {
              rows: [
                {
                  row_number: "1",
                  seats: [
                    { seat_guid: "d", seat_number: "1", category: "c" },
                    { seat_guid: "d", seat_number: "2", category: "c" },
                  ],
                },
              ],
            },
          ],
        },
        ['zones[0].rows[0].seats[1].seat_guid: The seat_guid "d" is used by more than one seat.'],
      ],
    ];
    for (const [layout, errors] of cases) {
      const res = await client.post(`${base}/`, { name: "x", layout });
      expect(res.status, JSON.stringify(layout)).toBe(400);
      expect(res.body).toEqual({ layout: errors });
    }
    const notObject = await client.post(`${base}/`, { name: "x", layout: [LAYOUT] });
    expect(notObject.body).toEqual({ layout: ['Expected a dictionary of items but got type "list".'] });
    const missing = await client.post(`${base}/`, { layout: LAYOUT });
    expect(missing.body).toEqual({ name: ["This field is required."] });
    expect((await client.get(`${base}/`)).body.count).toBe(0);
  });

  it("PATCH and PUT change a plan not in use; a new layout replaces its seats", async () => {
    const { org, client, base } = await setup();
    const { body: plan } = await client.post(`${base}/`, { name: "Plan", layout: LAYOUT });
    const renamed = await client.patch(`${base}/${plan.id}/`, { name: "Renamed" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ ...plan, name: "Renamed" });
    expect(await planSeats(db(), org.id, plan.id)).toHaveLength(4);
    const small = {
      categories: [{ name: "Free" }],
      zones: [{ rows: [{ row_number: "1", seats: [{ seat_guid: "only", seat_number: "1", category: "Free" }] }] }],
    };
    const put = await client.put(`${base}/${plan.id}/`, { name: "Small", layout: small });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({ id: plan.id, name: "Small", layout: small });
    const seats = await planSeats(db(), org.id, plan.id);
    expect(seats.map((s) => [s.seatGuid, s.x, s.y])).toEqual([["only", null, null]]);
    const partial = await client.put(`${base}/${plan.id}/`, { name: "No layout" });
    expect(partial.status).toBe(400);
    expect(partial.body).toEqual({ layout: ["This field is required."] });
    const bad = await client.patch(`${base}/${plan.id}/`, { layout: { zones: [] } });
    expect(bad.status).toBe(400);
    expect(await planSeats(db(), org.id, plan.id)).toHaveLength(1);
  });

  it("refuses to change or delete a plan an event or sub-event uses (403) and keeps it and its seats", async () => {
    const { org, client, base } = await setup();
    const { body: plan } = await client.post(`${base}/`, { name: "Plan", layout: LAYOUT });
    const { body: plan2 } = await client.post(`${base}/`, { name: "Plan 2", layout: LAYOUT });
    const event = await seedEventRow(org.id);
    await db().update(events).set({ seatingPlanId: plan.id }).where(eq(events.id, event.id));
    const series = await seedEventRow(org.id);
    await seedSubevent(series.id, plan2.id);
    for (const p of [plan, plan2]) {
      const patch = await client.patch(`${base}/${p.id}/`, { name: "Changed" });
      expect(patch.status).toBe(403);
      expect(patch.body).toEqual({ detail: "This plan can not be changed while it is in use for an event." });
      expect(
        (await client.put(`${base}/${p.id}/`, { name: "Changed", layout: { categories: [], zones: [] } })).status,
      ).toBe(403);
      const del = await client.delete(`${base}/${p.id}/`);
      expect(del.status).toBe(403);
      expect(del.body).toEqual({ detail: "This plan can not be deleted while it is in use for an event." });
      expect((await client.get(`${base}/${p.id}/`)).body).toEqual(p);
      expect(await planSeats(db(), org.id, p.id)).toHaveLength(4);
    }
    // once no event uses it, it can be changed and deleted
    await db().update(events).set({ seatingPlanId: null }).where(eq(events.id, event.id));
    expect((await client.patch(`${base}/${plan.id}/`, { name: "Free again" })).status).toBe(200);
    expect((await client.delete(`${base}/${plan.id}/`)).status).toBe(204);
    expect((await client.get(`${base}/${plan.id}/`)).status).toBe(404);
    expect(await planSeats(db(), org.id, plan.id)).toEqual([]);
  });

  it("stores plans larger than one insert statement", async () => {
    const { org, client, base } = await setup();
    const rows = Array.from({ length: 30 }, (_, r) => ({
      row_number: String(r + 1),
      seats: Array.from({ length: 40 }, (_, s) => ({
        seat_guid: `r${r}-s${s}`,
        seat_number: String(s + 1),
        category: "Stalls",
        position: { x: s * 10, y: 0 },
      })),
    }));
    const res = await client.post(`${base}/`, {
      name: "Arena",
      layout: { categories: [{ name: "Stalls" }], zones: [{ position: { x: 0, y: 0 }, rows }] },
    });
    expect(res.status).toBe(201);
    const seats = await planSeats(db(), org.id, res.body.id);
    expect(seats).toHaveLength(1200);
    expect(seats[0]!.seatGuid).toBe("r0-s0");
    expect(seats[1199]!.seatGuid).toBe("r29-s39");
  });

  it("lists by name, and needs can_change_organizer_settings", async () => {
    const { org, client, base } = await setup();
    await client.post(`${base}/`, { name: "Zeta", layout: LAYOUT });
    await client.post(`${base}/`, { name: "Alpha", layout: LAYOUT });
    expect((await client.get(`${base}/`)).body.results.map((p: { name: string }) => p.name)).toEqual(["Alpha", "Zeta"]);
    const events = (await seedTeam(org.id, { permissions: ["can_change_event_settings", "can_change_items"] })).client;
    expect((await events.get(`${base}/`)).status).toBe(403);
    expect((await events.post(`${base}/`, { name: "x", layout: LAYOUT })).status).toBe(403);
    const settings = (await seedTeam(org.id, { permissions: ["can_change_organizer_settings"] })).client;
    expect((await settings.get(`${base}/`)).body.count).toBe(2);
  });

  it("never reaches another organizer's plan", async () => {
    const { client, base } = await setup();
    const other = await seedOrganizer();
    const { body: foreign } = await other.client.post(`/api/v1/organizers/${other.slug}/seatingplans/`, {
      name: "Theirs",
      layout: LAYOUT,
    });
    expect((await client.get(`${base}/${foreign.id}/`)).status).toBe(404);
    expect((await client.patch(`${base}/${foreign.id}/`, { name: "Mine" })).status).toBe(404);
    expect((await client.delete(`${base}/${foreign.id}/`)).status).toBe(404);
    expect((await client.get(`/api/v1/organizers/${other.slug}/seatingplans/${foreign.id}/`)).status).toBe(403);
    expect((await other.client.get(`/api/v1/organizers/${other.slug}/seatingplans/${foreign.id}/`)).body.name).toBe(
      "Theirs",
    );
  });
});
