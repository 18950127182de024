import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { eventMetaProperties, eventMetaValues } from "../../src/db/schema";
import { db, seedDevice, seedOrganizer, seedTeam } from "../harness";
import { createEvent, createMetaProperty } from "../helpers/events";

const url = (org: string) => `/api/v1/organizers/${org}/event_meta_properties/`;

async function propertyCount(orgId: number) {
  return (await db().select().from(eventMetaProperties).where(eq(eventMetaProperties.organizerId, orgId))).length;
}

describe("event meta properties", () => {
  it("creates a property with defaults and reads it back", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(url(org.slug), { name: "ref_code" });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: "ref_code",
      default: "",
      required: false,
      protected: false,
      filter_public: false,
      public_label: null,
      filter_allowed: true,
      choices: null,
      allowed_values: null,
    });
    expect((await org.client.get(`${url(org.slug)}${res.body.id}/`)).body).toEqual(res.body);
    const list = await org.client.get(url(org.slug));
    expect(list.body).toEqual({ count: 1, next: null, previous: null, results: [res.body] });
  });

  it("stores choices with labels; allowed_values is the older form of choices", async () => {
    const org = await seedOrganizer();
    const color = await createMetaProperty(org.client, org.slug, {
      name: "Color",
      default: "blue",
      required: true,
      protected: true,
      filter_public: true,
      public_label: { en: "Colour" },
      filter_allowed: false,
      choices: [{ key: "blue", label: { en: "Blue" }, ORDER: 1, DELETE: false }, { key: "red" }],
    });
    expect(color).toMatchObject({
      default: "blue",
      required: true,
      protected: true,
      filter_public: true,
      public_label: { en: "Colour" },
      filter_allowed: false,
      choices: [
        { key: "blue", label: { en: "Blue" } },
        { key: "red", label: null },
      ],
      allowed_values: ["blue", "red"],
    });
    const size = await createMetaProperty(org.client, org.slug, { name: "Size", allowed_values: ["S", "M"] });
    expect(size.choices).toEqual([
      { key: "S", label: null },
      { key: "M", label: null },
    ]);
  });

  it("validates name, uniqueness, choices and default", async () => {
    const org = await seedOrganizer();
    await createMetaProperty(org.client, org.slug, { name: "Taken" });
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{}, { name: ["This field is required."] }],
      [{ name: "has space" }, { name: ["The property name may only contain letters, numbers and underscores."] }],
      [{ name: "Taken" }, { name: ["A property with this name already exists."] }],
      [{ name: "x", choices: [{ key: "a" }, { key: "a" }] }, { choices: ["Each choice key may only be used once."] }],
      [
        { name: "x", choices: [{ key: "a" }], default: "b" },
        { default: ["The default value must be one of the choices."] },
      ],
      [{ name: "x", choices: [] }, { choices: ["Send null to allow any value, or at least one choice."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await org.client.post(url(org.slug), body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect(await propertyCount(org.id)).toBe(1);
    // the same name in another organizer is fine
    const other = await seedOrganizer();
    await createMetaProperty(other.client, other.slug, { name: "Taken" });
  });

  it("creates one property when many requests take the same name at once; the others answer 400 on name", async () => {
    const org = await seedOrganizer();
    const results = await Promise.all(
      Array.from({ length: 12 }, () => org.client.post(url(org.slug), { name: "Rush" })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(11).fill(400)]);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body).toEqual({ name: ["A property with this name already exists."] });
    expect(await propertyCount(org.id)).toBe(1);
    // renaming two properties to one name at once: one rename wins
    const a = await createMetaProperty(org.client, org.slug, { name: "A" });
    const b = await createMetaProperty(org.client, org.slug, { name: "B" });
    const renames = await Promise.all(
      [a, b].map((p) => org.client.patch(`${url(org.slug)}${p.id}/`, { name: "Same" })),
    );
    expect(renames.map((r) => r.status).sort()).toEqual([200, 400]);
    expect(renames.find((r) => r.status === 400)!.body).toEqual({
      name: ["A property with this name already exists."],
    });
  });

  it("PATCH changes the fields sent, PUT resets the others", async () => {
    const org = await seedOrganizer();
    const p = await createMetaProperty(org.client, org.slug, {
      name: "Level",
      default: "a",
      required: true,
      choices: [{ key: "a" }, { key: "b" }],
    });
    const patched = await org.client.patch(`${url(org.slug)}${p.id}/`, { required: false, default: "b" });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ name: "Level", default: "b", required: false, allowed_values: ["a", "b"] });
    const bad = await org.client.patch(`${url(org.slug)}${p.id}/`, { default: "c" });
    expect(bad.status).toBe(400);
    const put = await org.client.put(`${url(org.slug)}${p.id}/`, { name: "Stage" });
    expect(put.status).toBe(200);
    expect(put.body).toEqual({
      ...p,
      name: "Stage",
      default: "",
      required: false,
      choices: null,
      allowed_values: null,
    });
    await createMetaProperty(org.client, org.slug, { name: "Other" });
    const clash = await org.client.patch(`${url(org.slug)}${p.id}/`, { name: "Other" });
    expect(clash.status).toBe(400);
    expect(clash.body).toEqual({ name: ["A property with this name already exists."] });
  });

  it("deletes a property with the values events have for it", async () => {
    const org = await seedOrganizer();
    const p = await createMetaProperty(org.client, org.slug, { name: "Format" });
    const ev = await createEvent(org.client, org.slug, { meta_data: { Format: "Talk" } });
    expect((await org.client.delete(`${url(org.slug)}${p.id}/`)).status).toBe(204);
    expect((await org.client.get(`${url(org.slug)}${p.id}/`)).status).toBe(404);
    expect(await db().select().from(eventMetaValues).where(eq(eventMetaValues.propertyId, p.id))).toHaveLength(0);
    expect((await org.client.get(`/api/v1/organizers/${org.slug}/events/${ev.slug}/`)).body.meta_data).toEqual({});
    expect((await org.client.delete(`${url(org.slug)}${p.id}/`)).status).toBe(404);
  });

  it("is readable by any team and devices; changes need can_change_organizer_settings", async () => {
    const org = await seedOrganizer();
    const p = await createMetaProperty(org.client, org.slug, { name: "Format" });
    const none = await seedTeam(org.id, { permissions: [] });
    expect((await none.client.get(url(org.slug))).body.count).toBe(1);
    expect((await (await seedDevice(org.id)).client.get(`${url(org.slug)}${p.id}/`)).status).toBe(200);
    const events = await seedTeam(org.id, { permissions: ["can_change_event_settings", "can_create_events"] });
    expect((await events.client.post(url(org.slug), { name: "New" })).status).toBe(403);
    expect((await events.client.patch(`${url(org.slug)}${p.id}/`, { required: true })).status).toBe(403);
    expect((await events.client.delete(`${url(org.slug)}${p.id}/`)).status).toBe(403);
    expect(await propertyCount(org.id)).toBe(1);
  });

  it("never reaches another organizer's property", async () => {
    const org = await seedOrganizer();
    const foreign = await seedOrganizer();
    const p = await createMetaProperty(org.client, org.slug, { name: "Secret" });
    expect((await foreign.client.get(`${url(foreign.slug)}${p.id}/`)).status).toBe(404);
    expect((await foreign.client.patch(`${url(foreign.slug)}${p.id}/`, { name: "Mine" })).status).toBe(404);
    expect((await foreign.client.delete(`${url(foreign.slug)}${p.id}/`)).status).toBe(404);
    expect((await foreign.client.get(url(org.slug))).status).toBe(403);
    expect((await org.client.get(`${url(org.slug)}${p.id}/`)).body.name).toBe("Secret");
  });
});
