import { describe, expect, it } from "vitest";
import { layoutItemResponse, ticketLayoutResponse } from "../../src/api/ticketlayouts";
import { seedEventRow, seedOrganizer, seedTeam } from "../harness";
import { seedCatalogEvent, seedItem, upload } from "../helpers/catalog";

/** A layout with content the service knows nothing about: it must come back exactly. */
const ELEMENTS = [
  {
    type: "textarea",
    left: "17.50",
    bottom: "274.60",
    fontsize: "16.0",
    color: [0, 0, 0, 1],
    content: "event_name",
    bold: false,
    text: "Sample",
  },
  { type: "barcodearea", left: "130.40", bottom: "204.50", size: "64.00", nested: { deep: [1, { x: null }] } },
  { type: "poweredby", left: "88.72", bottom: "10.00", size: "20.00", content: "dark", future_field: 1.5 },
];

const PDF = "%PDF-1.4\n% test background\n";

describe("ticket layouts", () => {
  it("creates a layout and returns its elements exactly as sent", async () => {
    const { client, path } = await seedCatalogEvent();
    const res = await client.post(`${path}/ticketlayouts/`, {
      name: "Default layout",
      default: true,
      layout: ELEMENTS,
      item_assignments: [{ item: 1 }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: "Default layout",
      default: true,
      layout: ELEMENTS,
      background: null,
      item_assignments: [],
    });
    expect((await client.get(`${path}/ticketlayouts/${res.body.id}/`)).body).toEqual(res.body);
    const minimal = await client.post(`${path}/ticketlayouts/`, { name: "Empty" });
    expect(minimal.body).toMatchObject({ default: false, layout: [], background: null });
    const list = await client.get(`${path}/ticketlayouts/`);
    expect(list.body.results.map((l: { name: string }) => l.name)).toEqual(["Default layout", "Empty"]);
    // the response schema describes the wire exactly (no field more, none less)
    expect(ticketLayoutResponse.strict().parse(res.body)).toEqual(res.body);
  });

  it("keeps one default layout when many are made the default at once (400, never 500)", async () => {
    const { client, path } = await seedCatalogEvent();
    const created = await Promise.all(
      Array.from({ length: 8 }, (_, i) => client.post(`${path}/ticketlayouts/`, { name: `L${i}`, default: true })),
    );
    expect(created.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of created.filter((r) => r.status === 400))
      expect(r.body).toEqual({ default: ["You cannot have two layouts with default = True."] });
    const plain = await Promise.all(
      Array.from({ length: 6 }, (_, i) => client.post(`${path}/ticketlayouts/`, { name: `P${i}` })),
    );
    const patched = await Promise.all(
      plain.map((r) => client.patch(`${path}/ticketlayouts/${r.body.id}/`, { default: true })),
    );
    expect(patched.every((r) => r.status === 400)).toBe(true);
    const list = (await client.get(`${path}/ticketlayouts/`)).body;
    expect(list.count).toBe(7);
    expect(list.results.filter((l: { default: boolean }) => l.default)).toHaveLength(1);
  });

  it("checks the layout's shape only: a list of objects", async () => {
    const { client, path } = await seedCatalogEvent();
    const notList = await client.post(`${path}/ticketlayouts/`, { name: "x", layout: { type: "textarea" } });
    expect(notList.status).toBe(400);
    expect(notList.body).toEqual({ layout: ['Expected a list of items but got type "dict".'] });
    const notObjects = await client.post(`${path}/ticketlayouts/`, {
      name: "x",
      layout: [{ type: "textarea" }, "text"],
    });
    expect(notObjects.status).toBe(400);
    expect(Object.keys(notObjects.body)).toEqual(["layout"]);
    const noName = await client.post(`${path}/ticketlayouts/`, { layout: [] });
    expect(noName.body).toEqual({ name: ["This field is required."] });
    expect((await client.get(`${path}/ticketlayouts/`)).body.count).toBe(0);
  });

  it("keeps one default layout per event; deleting it makes the first remaining layout the default", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: a } = await client.post(`${path}/ticketlayouts/`, { name: "B layout", default: true });
    const { body: b } = await client.post(`${path}/ticketlayouts/`, { name: "A layout" });
    const { body: c } = await client.post(`${path}/ticketlayouts/`, { name: "C layout" });
    const second = await client.post(`${path}/ticketlayouts/`, { name: "D", default: true });
    expect(second.status).toBe(400);
    expect(second.body).toEqual({ default: ["You cannot have two layouts with default = True."] });
    expect((await client.patch(`${path}/ticketlayouts/${b.id}/`, { default: true })).status).toBe(400);
    expect((await client.patch(`${path}/ticketlayouts/${a.id}/`, { default: true, name: "B layout!" })).status).toBe(
      200,
    );
    expect((await client.delete(`${path}/ticketlayouts/${a.id}/`)).status).toBe(204);
    expect((await client.get(`${path}/ticketlayouts/${b.id}/`)).body.default).toBe(true);
    expect((await client.get(`${path}/ticketlayouts/${c.id}/`)).body.default).toBe(false);
    // deleting a layout that is not the default changes no default
    expect((await client.delete(`${path}/ticketlayouts/${c.id}/`)).status).toBe(204);
    expect((await client.get(`${path}/ticketlayouts/${b.id}/`)).body.default).toBe(true);
  });

  it("takes a PDF background through file:<id> and returns its URL", async () => {
    const { client, path } = await seedCatalogEvent();
    const fileId = await upload(client, "application/pdf", PDF, "bg.pdf");
    const res = await client.post(`${path}/ticketlayouts/`, { name: "With background", background: fileId });
    expect(res.status).toBe(201);
    expect(res.body.background).toMatch(/^http:\/\/ticketing\.test\/media\/.+\/bg\.pdf$/);
    const file = await client.get(res.body.background);
    expect(file.status).toBe(200);
    expect(file.text).toBe(PDF);
    // sending the current URL back keeps the file
    const put = await client.put(`${path}/ticketlayouts/${res.body.id}/`, {
      name: "Renamed",
      background: res.body.background,
    });
    expect(put.status).toBe(200);
    expect(put.body.background).toBe(res.body.background);
    const cleared = await client.patch(`${path}/ticketlayouts/${res.body.id}/`, { background: null });
    expect(cleared.body.background).toBe(null);

    const png = await upload(client, "image/png", "not really a png", "bg.png");
    const wrongType = await client.patch(`${path}/ticketlayouts/${res.body.id}/`, { background: png });
    expect(wrongType.status).toBe(400);
    expect(wrongType.body).toEqual({
      background: ['Files of type "image/png" are not accepted here (application/pdf).'],
    });
    const unknown = await client.patch(`${path}/ticketlayouts/${res.body.id}/`, {
      background: "file:00000000-0000-4000-8000-000000000000",
    });
    expect(unknown.body).toEqual({ background: ["The submitted file ID was not found."] });
    const url = await client.patch(`${path}/ticketlayouts/${res.body.id}/`, {
      background: "https://example.com/bg.pdf",
    });
    expect(url.body).toEqual({ background: ["Expected a file ID from the upload endpoint (file:<id>)."] });
    expect((await client.get(`${path}/ticketlayouts/${res.body.id}/`)).body.background).toBe(null);
  });

  it("PATCH changes only the sent fields; PUT resets the rest", async () => {
    const { client, path } = await seedCatalogEvent();
    const { body: l } = await client.post(`${path}/ticketlayouts/`, { name: "L", default: true, layout: ELEMENTS });
    const patched = await client.patch(`${path}/ticketlayouts/${l.id}/`, { name: "L2" });
    expect(patched.body).toEqual({ ...l, name: "L2" });
    const put = await client.put(`${path}/ticketlayouts/${l.id}/`, { name: "L3" });
    expect(put.body).toEqual({ ...l, name: "L3", default: false, layout: [] });
  });

  it("never reaches a layout of another event or organizer", async () => {
    const { client, path, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const otherPath = `/api/v1/organizers/${org.slug}/events/${other.slug}`;
    const { body: foreign } = await client.post(`${otherPath}/ticketlayouts/`, { name: "Foreign" });
    expect((await client.get(`${path}/ticketlayouts/${foreign.id}/`)).status).toBe(404);
    expect((await client.patch(`${path}/ticketlayouts/${foreign.id}/`, { name: "x" })).status).toBe(404);
    expect((await client.delete(`${path}/ticketlayouts/${foreign.id}/`)).status).toBe(404);
    const stranger = await seedOrganizer();
    expect((await stranger.client.get(`${otherPath}/ticketlayouts/${foreign.id}/`)).status).toBe(403);
    expect((await client.get(`${otherPath}/ticketlayouts/${foreign.id}/`)).body.name).toBe("Foreign");
  });
});

describe("ticket layout item assignments", () => {
  it("assigns layouts to items per sales channel and shows them on the layout", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: layout } = await client.post(`${path}/ticketlayouts/`, { name: "L" });
    const res = await client.post(`${path}/ticketlayoutitems/`, { layout: layout.id, item: item.id });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.any(Number), layout: layout.id, item: item.id, sales_channel: "web" });
    const pos = await client.post(`${path}/ticketlayoutitems/`, {
      layout: layout.id,
      item: item.id,
      sales_channel: "box_office",
    });
    expect(pos.status).toBe(201);
    expect((await client.get(`${path}/ticketlayouts/${layout.id}/`)).body.item_assignments).toEqual([
      { sales_channel: "web", item: item.id },
      { sales_channel: "box_office", item: item.id },
    ]);
    expect((await client.get(`${path}/ticketlayoutitems/`)).body).toEqual({
      count: 2,
      next: null,
      previous: null,
      results: [res.body, pos.body],
    });
    expect((await client.get(`${path}/ticketlayoutitems/${res.body.id}/`)).body).toEqual(res.body);
    expect(layoutItemResponse.strict().parse(res.body)).toEqual(res.body);

    // one layout per item and channel
    const { body: other } = await client.post(`${path}/ticketlayouts/`, { name: "Other" });
    const dup = await client.post(`${path}/ticketlayoutitems/`, {
      layout: other.id,
      item: item.id,
      sales_channel: "web",
    });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({
      non_field_errors: ["This product already has a ticket layout for this sales channel."],
    });

    expect((await client.delete(`${path}/ticketlayoutitems/${res.body.id}/`)).status).toBe(204);
    expect((await client.get(`${path}/ticketlayoutitems/${res.body.id}/`)).status).toBe(404);
    expect((await client.post(`${path}/ticketlayoutitems/`, { layout: other.id, item: item.id })).status).toBe(201);
    // deleting a layout removes its assignments
    expect((await client.delete(`${path}/ticketlayouts/${layout.id}/`)).status).toBe(204);
    expect((await client.get(`${path}/ticketlayoutitems/`)).body.count).toBe(1);
  });

  it("assigns one layout per item and channel when many assignments arrive at once (400, never 500)", async () => {
    const { client, path, event } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const layouts = await Promise.all(
      Array.from({ length: 8 }, (_, i) => client.post(`${path}/ticketlayouts/`, { name: `L${i}` })),
    );
    const res = await Promise.all(
      layouts.map((l) => client.post(`${path}/ticketlayoutitems/`, { layout: l.body.id, item: item.id })),
    );
    expect(res.map((r) => r.status).sort()).toEqual([201, 400, 400, 400, 400, 400, 400, 400]);
    for (const r of res.filter((r) => r.status === 400)) {
      expect(r.body).toEqual({
        non_field_errors: ["This product already has a ticket layout for this sales channel."],
      });
    }
    expect((await client.get(`${path}/ticketlayoutitems/`)).body.count).toBe(1);
  });

  it("takes layouts and items of the event only", async () => {
    const { client, path, event, org } = await seedCatalogEvent();
    const other = await seedEventRow(org.id);
    const otherPath = `/api/v1/organizers/${org.slug}/events/${other.slug}`;
    const item = await seedItem(event.id);
    const foreignItem = await seedItem(other.id);
    const { body: layout } = await client.post(`${path}/ticketlayouts/`, { name: "L" });
    const { body: foreignLayout } = await client.post(`${otherPath}/ticketlayouts/`, { name: "F" });
    const badItem = await client.post(`${path}/ticketlayoutitems/`, { layout: layout.id, item: foreignItem.id });
    expect(badItem.status).toBe(400);
    expect(badItem.body).toEqual({ item: [`Invalid pk "${foreignItem.id}" - object does not exist.`] });
    const badLayout = await client.post(`${path}/ticketlayoutitems/`, { layout: foreignLayout.id, item: item.id });
    expect(badLayout.body).toEqual({ layout: [`Invalid pk "${foreignLayout.id}" - object does not exist.`] });
    const missing = await client.post(`${path}/ticketlayoutitems/`, { item: item.id, sales_channel: "bad channel" });
    expect(missing.body).toEqual({
      layout: ["This field is required."],
      sales_channel: ["Enter a valid sales channel identifier (letters, numbers, dots, dashes, underscores)."],
    });
    expect((await client.get(`${path}/ticketlayoutitems/`)).body.count).toBe(0);
    const { body: foreignAssignment } = await client.post(`${otherPath}/ticketlayoutitems/`, {
      layout: foreignLayout.id,
      item: foreignItem.id,
    });
    expect((await client.get(`${path}/ticketlayoutitems/${foreignAssignment.id}/`)).status).toBe(404);
    expect((await client.delete(`${path}/ticketlayoutitems/${foreignAssignment.id}/`)).status).toBe(404);
    expect((await client.get(`${otherPath}/ticketlayoutitems/`)).body.count).toBe(1);
  });

  it("lets can_change_items assign but not edit layouts; can_change_event_settings the reverse", async () => {
    const { client, path, event, org } = await seedCatalogEvent();
    const item = await seedItem(event.id);
    const { body: layout } = await client.post(`${path}/ticketlayouts/`, { name: "L" });
    const items = (await seedTeam(org.id, { permissions: ["can_change_items"] })).client;
    const settings = (await seedTeam(org.id, { permissions: ["can_change_event_settings"] })).client;
    expect((await items.patch(`${path}/ticketlayouts/${layout.id}/`, { name: "x" })).status).toBe(403);
    expect((await settings.post(`${path}/ticketlayoutitems/`, { layout: layout.id, item: item.id })).status).toBe(403);
    expect((await items.post(`${path}/ticketlayoutitems/`, { layout: layout.id, item: item.id })).status).toBe(201);
    expect((await settings.patch(`${path}/ticketlayouts/${layout.id}/`, { name: "y" })).status).toBe(200);
  });
});
