import { describe, expect, it } from "vitest";
import { seedDevice, seedOrganizer, seedTeam } from "../harness";
import { seedMembershipType } from "../helpers/customers";

type Org = Awaited<ReturnType<typeof seedOrganizer>>;

const membershipsOf = (org: Org) => `/api/v1/organizers/${org.slug}/memberships`;

async function customer(org: Org, email?: string): Promise<string> {
  const res = await org.client.post(`/api/v1/organizers/${org.slug}/customers/`, email ? { email } : {});
  expect(res.status).toBe(201);
  return res.body.identifier;
}

const period = { date_start: "2021-04-19T00:00:00+02:00", date_end: "2021-04-20T00:00:00+02:00" };

async function setup() {
  const org = await seedOrganizer();
  const type = await seedMembershipType(org.id, "Week pass");
  const other = await seedMembershipType(org.id, "Year pass");
  const ident = await customer(org);
  return { org, type, other, ident };
}

async function createMembership(org: Org, body: Record<string, unknown>) {
  const res = await org.client.post(`${membershipsOf(org)}/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: number; [k: string]: unknown };
}

describe("memberships: create", () => {
  it("creates a membership (201) with the spec's fields", async () => {
    const { org, type, ident } = await setup();
    const res = await org.client.post(`${membershipsOf(org)}/`, {
      membership_type: type.id,
      customer: ident,
      testmode: true,
      ...period,
      attendee_name_parts: { _scheme: "title_given_family", family_name: "Doe", given_name: "John", title: "" },
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      customer: ident,
      membership_type: type.id,
      testmode: true,
      date_start: "2021-04-18T22:00:00Z",
      date_end: "2021-04-19T22:00:00Z",
      attendee_name_parts: { _scheme: "title_given_family", family_name: "Doe", given_name: "John", title: "" },
    });
    const minimal = await createMembership(org, { membership_type: type.id, customer: ident, ...period });
    expect(minimal).toMatchObject({ testmode: false, attendee_name_parts: null });
    // a validity of zero length is allowed (start ≤ end)
    await createMembership(org, {
      membership_type: type.id,
      customer: ident,
      date_start: period.date_start,
      date_end: period.date_start,
    });
  });

  it("answers 400 with field errors and creates nothing", async () => {
    const { org, type, ident } = await setup();
    const foreign = await seedOrganizer();
    const foreignType = await seedMembershipType(foreign.id);
    const foreignCustomer = await customer(foreign);
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [
        {},
        {
          membership_type: ["This field is required."],
          customer: ["This field is required."],
          date_start: ["This field is required."],
          date_end: ["This field is required."],
        },
      ],
      [
        { membership_type: type.id, customer: "NOSUCH1", ...period },
        { customer: ["Object with identifier=NOSUCH1 does not exist."] },
      ],
      [
        { membership_type: type.id, customer: foreignCustomer, ...period },
        { customer: [`Object with identifier=${foreignCustomer} does not exist.`] },
      ],
      [
        { membership_type: foreignType.id, customer: ident, ...period },
        { membership_type: [`Invalid pk "${foreignType.id}" - object does not exist.`] },
      ],
      [
        { membership_type: 99999999, customer: ident, ...period },
        { membership_type: ['Invalid pk "99999999" - object does not exist.'] },
      ],
      [{ membership_type: "one", customer: ident, ...period }, { membership_type: ["A valid integer is required."] }],
      [
        { membership_type: type.id, customer: ident, date_start: period.date_end, date_end: period.date_start },
        { date_end: ["The end of validity must not be before its start."] },
      ],
      [
        { membership_type: type.id, customer: ident, date_start: "yesterday", date_end: period.date_end },
        { date_start: [expect.stringContaining("Datetime has wrong format")] },
      ],
      [
        { membership_type: type.id, customer: ident, ...period, testmode: "no" },
        { testmode: ["Must be a valid boolean."] },
      ],
      [
        { membership_type: type.id, customer: ident, ...period, attendee_name_parts: ["x"] },
        { attendee_name_parts: ['Expected a dictionary of items but got type "list".'] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await org.client.post(`${membershipsOf(org)}/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toEqual(errors);
    }
    expect((await org.client.get(`${membershipsOf(org)}/`)).body.count).toBe(0);
  });
});

describe("memberships: list and detail", () => {
  it("filters by customer, membership_type and testmode", async () => {
    const { org, type, other, ident } = await setup();
    const second = await customer(org, "second@example.org");
    const a = await createMembership(org, { membership_type: type.id, customer: ident, ...period });
    const b = await createMembership(org, { membership_type: other.id, customer: ident, testmode: true, ...period });
    const c = await createMembership(org, { membership_type: type.id, customer: second, ...period });
    const list = (q: string) => org.client.get(`${membershipsOf(org)}/${q}`).then((r) => r.body);
    expect(await list("")).toEqual({ count: 3, next: null, previous: null, results: [a, b, c] });
    expect((await list(`?customer=${ident}`)).results).toEqual([a, b]);
    expect((await list(`?customer=${second.toLowerCase()}`)).results).toEqual([c]);
    expect((await list(`?membership_type=${type.id}`)).results).toEqual([a, c]);
    expect((await list(`?membership_type=${other.id}&customer=${ident}`)).results).toEqual([b]);
    expect((await list("?testmode=true")).results).toEqual([b]);
    expect((await list("?testmode=false")).results).toEqual([a, c]);
    expect((await list("?customer=NOBODY")).count).toBe(0);
    const bad = await org.client.get(`${membershipsOf(org)}/?membership_type=abc`);
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ membership_type: ["Enter a whole number."] });
  });

  it("shows one membership; unknown and other organizers' ids are 404", async () => {
    const { org, type, ident } = await setup();
    const m = await createMembership(org, { membership_type: type.id, customer: ident, ...period });
    expect((await org.client.get(`${membershipsOf(org)}/${m.id}/`)).body).toEqual(m);
    expect((await org.client.get(`${membershipsOf(org)}/98765/`)).status).toBe(404);
    expect((await org.client.get(`${membershipsOf(org)}/x/`)).status).toBe(404);
    const foreign = await setup();
    const fm = await createMembership(foreign.org, {
      membership_type: foreign.type.id,
      customer: foreign.ident,
      ...period,
    });
    for (const r of [
      await org.client.get(`${membershipsOf(org)}/${fm.id}/`),
      await org.client.patch(`${membershipsOf(org)}/${fm.id}/`, { date_end: "2040-01-01T00:00:00Z" }),
      await org.client.put(`${membershipsOf(org)}/${fm.id}/`, { membership_type: type.id, ...period }),
    ]) {
      expect(r.status).toBe(404);
    }
    expect((await org.client.get(`${membershipsOf(org)}/?customer=${foreign.ident}`)).body.count).toBe(0);
    expect((await foreign.org.client.get(`${membershipsOf(foreign.org)}/${fm.id}/`)).body).toEqual(fm);
  });

  it("cannot be deleted (405); devices and teams without can_manage_customers get 403", async () => {
    const { org, type, ident } = await setup();
    const m = await createMembership(org, { membership_type: type.id, customer: ident, ...period });
    expect((await org.client.delete(`${membershipsOf(org)}/${m.id}/`)).status).toBe(405);
    expect((await (await seedDevice(org.id)).client.get(`${membershipsOf(org)}/`)).status).toBe(403);
    expect(
      (
        await (
          await seedTeam(org.id, { permissions: ["can_change_organizer_settings"] })
        ).client.get(`${membershipsOf(org)}/`)
      ).status,
    ).toBe(403);
  });
});

describe("memberships: update", () => {
  it("PATCH changes type, dates and names; customer and testmode stay", async () => {
    const { org, type, other, ident } = await setup();
    const second = await customer(org, "p2@example.org");
    const m = await createMembership(org, { membership_type: type.id, customer: ident, ...period });
    const res = await org.client.patch(`${membershipsOf(org)}/${m.id}/`, {
      id: 1,
      customer: second,
      testmode: true,
      membership_type: other.id,
      date_end: "2021-05-01T00:00:00Z",
      attendee_name_parts: { _scheme: "full", full_name: "A B" },
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...m,
      membership_type: other.id,
      date_end: "2021-05-01T00:00:00Z",
      attendee_name_parts: { _scheme: "full", full_name: "A B" },
    });
  });

  it("PATCH checks the period against the stored dates and the type against the organizer", async () => {
    const { org, type, ident } = await setup();
    const m = await createMembership(org, { membership_type: type.id, customer: ident, ...period });
    const early = await org.client.patch(`${membershipsOf(org)}/${m.id}/`, { date_end: "2020-01-01T00:00:00Z" });
    expect(early.status).toBe(400);
    expect(early.body).toEqual({ date_end: ["The end of validity must not be before its start."] });
    const foreignType = await seedMembershipType((await seedOrganizer()).id);
    const wrongType = await org.client.patch(`${membershipsOf(org)}/${m.id}/`, { membership_type: foreignType.id });
    expect(wrongType.status).toBe(400);
    expect((await org.client.get(`${membershipsOf(org)}/${m.id}/`)).body).toEqual(m);
  });

  it("PUT requires the type and the period and resets attendee_name_parts", async () => {
    const { org, type, other, ident } = await setup();
    const m = await createMembership(org, {
      membership_type: type.id,
      customer: ident,
      ...period,
      attendee_name_parts: { full_name: "X" },
    });
    const missing = await org.client.put(`${membershipsOf(org)}/${m.id}/`, { membership_type: other.id });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ date_start: ["This field is required."], date_end: ["This field is required."] });
    const res = await org.client.put(`${membershipsOf(org)}/${m.id}/`, {
      membership_type: other.id,
      ...period,
      customer: "IGNORED",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...m, membership_type: other.id, attendee_name_parts: null });
  });
});
