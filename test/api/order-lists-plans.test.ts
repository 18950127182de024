/**
 * The order positions list and the organizer's orders and order positions stay fast on a large
 * event: every statement of each request — first page, a deep page, every documented ordering,
 * pretix's filters — is planned without a full scan and without sorting every row (the rules of
 * test/helpers/query-plans.ts, as test/api/large-event-plans.test.ts holds the event's lists to).
 * Known exceptions are named where they are allowed (docs/open-points.md).
 */
import { describe, expect, it } from "vitest";
import { type Json, seedTeam } from "../harness";
import { venue } from "../helpers/checkin";
import { planOf, planProblems, recorded, searchProblems } from "../helpers/query-plans";

describe("the query plans of the order positions and the organizer's lists", { timeout: 120_000 }, () => {
  it("every request plans with indexes only", async () => {
    const v = await venue();
    const vip = await v.item({ name: { en: "VIP" }, admission: true });
    await v.quota({ size: 100, items: [vip.id] });
    const made: Json[] = [];
    for (let i = 0; i < 4; i++) {
      made.push(
        await v.order({
          email: `guest${i}@example.org`,
          positions: [{ item: v.ticket.id, attendee_name_parts: { full_name: `Guest${i}` } }, { item: vip.id }],
        }),
      );
    }
    const first = made[0]!.positions[0] as Json;
    const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
    const positions = `${v.path}/orderpositions/`;
    const orgOrders = `/api/v1/organizers/${v.orgSlug}/orders/`;
    const orgPositions = `/api/v1/organizers/${v.orgSlug}/orderpositions/`;
    const orderings = ["order__datetime", "order__code", "positionid", "attendee_name", "order__status"];
    const paths = [
      positions,
      `${positions}?page=2&page_size=2`,
      `${positions}?page=3&page_size=2&ordering=-attendee_name`,
      ...orderings.flatMap((f) => [`${positions}?ordering=${f}`, `${positions}?ordering=-${f}`]),
      `${positions}?search=guest1`,
      `${positions}?search=Guest1&ordering=-order__datetime`,
      `${positions}?order=${made[1]!.code.toLowerCase()}`,
      `${positions}?item=${vip.id}&order__status=p`,
      `${positions}?item__in=${vip.id},${v.ticket.id}&ordering=positionid`,
      `${positions}?attendee_name=guest2`,
      `${positions}?secret=${first.secret}`,
      `${positions}?pseudonymization_id=${first.pseudonymization_id}`,
      `${positions}?has_checkin=false&ordering=attendee_name`,
      `${positions}?include_canceled_positions=true`,
      orgOrders,
      `${orgOrders}?page=2&page_size=1`,
      ...["datetime", "code", "status", "last_modified", "cancellation_date"].flatMap((f) => [
        `${orgOrders}?ordering=${f}`,
        `${orgOrders}?ordering=-${f}`,
      ]),
      `${orgOrders}?search=guest1`,
      `${orgOrders}?modified_since=${since}`,
      `${orgOrders}?status=p&item=${vip.id}`,
      orgPositions,
      `${orgPositions}?page=3&page_size=2`,
      ...["order__datetime", "order__code", "order__status"].flatMap((f) => [
        `${orgPositions}?ordering=${f}`,
        `${orgPositions}?ordering=-${f}`,
      ]),
      `${orgPositions}?search=guest1`,
      `${orgPositions}?order=${made[2]!.code}`,
    ];
    // a team of one event: its events tested on the organizer's index
    const limited = await seedTeam(
      v.org.id,
      { permissions: "all", allEvents: false, events: [v.eventId] },
      v.org.group,
    );
    const found: string[] = [];
    for (const [client, path] of [...paths.map((p) => [v.client, p] as const), [limited.client, orgOrders] as const]) {
      const r = await recorded(client, path);
      expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
      expect(r.body.results!.length, path).toBeGreaterThan(0);
      for (const s of r.statements) {
        const plan = await planOf(s);
        for (const p of planProblems(plan)) found.push(`${path}\n  ${p}\n  in: ${s.sql.slice(0, 400)}`);
        if (s.sql.includes("_search MATCH"))
          for (const p of searchProblems(plan)) found.push(`${path}\n  ${p}\n  in: ${s.sql.slice(0, 400)}`);
      }
    }
    expect(found).toEqual([]);
    // the organizer's lists walk the organizer's index across its events, not each event's
    for (const path of [orgOrders, orgPositions, `${orgPositions}?ordering=-order__code`]) {
      const details = (await Promise.all((await recorded(v.client, path)).statements.map(planOf))).flat();
      expect(
        details.some((d) =>
          /^SEARCH o(rders)? USING (COVERING )?INDEX orders_organizer_\w+_idx \(organizer_id=\?\)$/.test(d.detail),
        ),
        `${path}: ${details.map((d) => d.detail).join(" | ")}`,
      ).toBe(true);
    }
  });

  // docs/open-points.md: an organizer's positions by their number or name (no index across its
  // events) and an event's canceled positions among the others by number or name (the indexes
  // hold the positions not canceled first) sort the matching positions; when an index serves
  // them, this fails and the open point goes
  it("names what still sorts the matching positions", async () => {
    const v = await venue();
    await v.order({ positions: [{ item: v.ticket.id }, { item: v.ticket.id }] });
    for (const path of [
      `/api/v1/organizers/${v.orgSlug}/orderpositions/?ordering=positionid`,
      `${v.path}/orderpositions/?include_canceled_positions=true&ordering=attendee_name`,
    ]) {
      const r = await recorded(v.client, path);
      expect(r.status).toBe(200);
      const problems = (await Promise.all(r.statements.map(planOf))).flatMap(planProblems);
      expect(problems, path).toEqual([
        expect.stringMatching(/^sorts every matching row: SEARCH p USING COVERING INDEX/),
      ]);
    }
  });
});
