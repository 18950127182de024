/**
 * The check-in RPC (pretix docs checkin.rst, checkinlists.rst; api/checkin.ts): the answers and
 * reasons of `checkinrpc/redeem` and of the per-list redeem that shares them, what the event
 * object admits and refuses, the check-ins that land in D1, in the order's positions and in the
 * check-in history, and `checkinrpc/search`.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins, orders } from "../../src/db/schema";
import { anonymous, db, deviceClient, seedOrderPosition, seedOrderRow, seedOrganizer, tokenClient } from "../harness";
import { venue } from "../helpers/checkin";

const positionOf = async (v: Awaited<ReturnType<typeof venue>>, code: string) =>
  (await v.client.get(`${v.path}/orders/${code}/`)).body.positions[0];

describe("checkinrpc/redeem: admitted", () => {
  it("admits a paid ticket once; the check-in shows in D1, in the order and in other scanners' incremental sync", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const generated = (await v.client.get(`${v.path}/orders/`)).headers.get("x-page-generated")!;
    await new Promise((r) => setTimeout(r, 5));
    const first = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body).toMatchObject({
      status: "ok",
      require_attention: false,
      checkin_texts: [],
      list: { id: list.id, name: "Entrance", event: v.eventSlug, subevent: null, include_pending: false },
    });
    expect(first.body.reason).toBeUndefined();
    expect(first.body.position).toMatchObject({
      id: pos.id,
      order: pos.order,
      secret: pos.secret,
      order__status: "p",
      require_attention: false,
    });
    expect(first.body.position.checkins).toEqual([
      {
        id: expect.any(Number),
        list: list.id,
        type: "entry",
        gate: null,
        device: v.device.id,
        datetime: expect.any(String),
        auto_checked_in: false,
      },
    ]);
    const [row] = await db().select().from(checkins).where(eq(checkins.positionId, pos.id));
    expect(row).toMatchObject({
      listId: list.id,
      type: "entry",
      successful: true,
      deviceId: v.device.id,
      rawBarcode: pos.secret,
      rawSourceType: "barcode",
    });
    expect((await positionOf(v, pos.order)).checkins).toHaveLength(1);
    const changed = await v.client.get(`${v.path}/orders/?modified_since=${encodeURIComponent(generated)}`);
    expect(changed.body.results.map((o: { code: string }) => o.code)).toEqual([pos.order]);

    const second = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(second.status).toBe(400);
    expect(second.body).toMatchObject({
      status: "error",
      reason: "already_redeemed",
      reason_explanation: null,
      position: { id: pos.id },
    });
    const history = await v.client.get(`${v.path}/checkins/?successful=false`);
    expect(history.body.results).toEqual([
      expect.objectContaining({
        successful: false,
        error_reason: "already_redeemed",
        position: pos.id,
        list: list.id,
        device: v.device.id,
        type: "entry",
      }),
    ]);
  });

  it("an event with venue coordinates: its object, created with a location hint, serves sales and scans", async () => {
    const v = await venue({ event: { geo_lat: 52.52, geo_lon: 13.4 } });
    const list = await v.list();
    const pos = await v.sell();
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body.reason).toBe("already_redeemed");
  });

  it("exit then entry: allowed with allow_entry_after_exit, refused without", async () => {
    const v = await venue();
    const open = await v.list({ name: "Open" });
    const strict = await v.list({ name: "Strict", allow_entry_after_exit: false });
    const pos = await v.sell();
    for (const list of [open, strict]) {
      expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).status).toBe(201);
      const exit = await v.redeem({ secret: pos.secret, lists: [list.id], type: "exit" });
      expect(exit.status).toBe(201);
      expect(exit.body.position.checkins.map((c: { type: string }) => c.type)).toEqual(["entry", "exit"]);
    }
    expect((await v.redeem({ secret: pos.secret, lists: [open.id] })).status).toBe(201);
    const refused = await v.redeem({ secret: pos.secret, lists: [strict.id] });
    expect(refused.status).toBe(400);
    expect(refused.body.reason).toBe("already_redeemed");
    const status = await v.client.get(`${v.path}/checkinlists/${open.id}/status/`);
    expect(status.body).toMatchObject({ checkin_count: 1, position_count: 1, inside_count: 1 });
    const strictStatus = await v.client.get(`${v.path}/checkinlists/${strict.id}/status/`);
    expect(strictStatus.body).toMatchObject({ checkin_count: 1, inside_count: 0 });
  });

  it("allow_multiple_entries admits again; force admits an already redeemed ticket and marks it forced", async () => {
    const v = await venue();
    const multi = await v.list({ allow_multiple_entries: true });
    const once = await v.list({ name: "Once" });
    const pos = await v.sell();
    for (let i = 0; i < 3; i++) expect((await v.redeem({ secret: pos.secret, lists: [multi.id] })).status).toBe(201);
    expect((await v.redeem({ secret: pos.secret, lists: [once.id] })).status).toBe(201);
    const forced = await v.redeem({
      secret: pos.secret,
      lists: [once.id],
      force: true,
      datetime: "2030-06-01T18:00:00+02:00",
    });
    expect(forced.status).toBe(201);
    const rows = await db().select().from(checkins).where(eq(checkins.listId, once.id));
    expect(rows.map((r) => [r.successful, r.forced])).toEqual([
      [true, false],
      [true, true],
    ]);
    expect(rows[1]!.datetime).toBe(Date.parse("2030-06-01T16:00:00Z"));
  });

  it("a list of several events: the scan is decided by the event that has the ticket", async () => {
    const v = await venue();
    const w = await venue();
    const mine = await v.list();
    // a second event of the same organizer
    const other = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/`, {
      name: { en: "Other" },
      slug: "other-ev",
      currency: "EUR",
      date_from: "2030-06-02T19:00:00Z",
    });
    expect(other.status).toBe(201);
    const otherList = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/other-ev/checkinlists/`, {
      name: "Other door",
      all_products: true,
    });
    const pos = await v.sell();
    const r = await v.redeem({ secret: pos.secret, lists: [otherList.body.id, mine.id] });
    expect(r.status).toBe(201);
    expect(r.body.list).toMatchObject({ id: mine.id, event: v.eventSlug });
    // two lists of one event: refused with pretix's bare list of messages
    const two = await v.list({ name: "Second" });
    const same = await v.redeem({ secret: pos.secret, lists: [mine.id, two.id] });
    expect(same.status).toBe(400);
    expect(same.body).toEqual(["Selecting two check-in lists from the same event is unsupported."]);
    // another organizer's list is no list of this organizer
    const wList = await w.list();
    const foreign = await v.redeem({ secret: pos.secret, lists: [wList.id] });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toEqual({ lists: [`Invalid pk "${wList.id}" - object does not exist.`] });
    expect(await db().select().from(checkins).where(eq(checkins.listId, wList.id))).toHaveLength(0);
  });

  it("expand=item and expand=subevent without an event in the path: the objects as their own resources show them", async () => {
    const v = await venue({ event: { item_meta_properties: { color: "blue" } } });
    const list = await v.list();
    const pos = await v.sell();
    const ok = await v.redeem(
      { secret: pos.secret, lists: [list.id] },
      undefined,
      "?expand=item&expand=variation&expand=subevent",
    );
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    const item = (await v.client.get(`${v.path}/items/${v.ticket.id}/`)).body;
    expect(item.meta_data).toEqual({ color: "blue" });
    expect(ok.body.position.item).toEqual(item);
    expect(ok.body.position).toMatchObject({ variation: null, subevent: null });
  });

  it("rejects invalid requests with field errors and records nothing", async () => {
    const v = await venue();
    const list = await v.list();
    expect((await v.redeem({ lists: [list.id] })).body).toEqual({ secret: ["This field is required."] });
    expect((await v.redeem({ secret: "x", lists: [] })).body).toEqual(["No check-in list passed."]);
    expect((await v.redeem({ secret: "x", lists: [list.id], type: "sideways" })).status).toBe(400);
    expect((await v.redeem({ secret: "x", lists: [list.id], datetime: "yesterday" })).status).toBe(400);
    expect((await v.redeem({ secret: "x", lists: [999999] })).body).toEqual({
      lists: ['Invalid pk "999999" - object does not exist.'],
    });
    expect(await db().select().from(checkins).where(eq(checkins.eventId, v.eventId))).toHaveLength(0);
  });
});

describe("checkinrpc/redeem: refused", () => {
  it("an unknown code: 404 invalid, stored as a failed scan", async () => {
    const v = await venue();
    const list = await v.list();
    const r = await v.redeem({ secret: "nosuchsecret", lists: [list.id] });
    expect(r.status).toBe(404);
    expect(r.body).toEqual({
      detail: "Not found.",
      status: "error",
      reason: "invalid",
      reason_explanation: null,
      require_attention: false,
      checkin_texts: [],
      list: { id: list.id, name: "Entrance", event: v.eventSlug, subevent: null, include_pending: false },
    });
    const history = await v.client.get(`${v.path}/checkins/`);
    expect(history.body.results).toEqual([
      expect.objectContaining({ successful: false, error_reason: "invalid", position: null, list: list.id }),
    ]);
  });

  it("pending orders: unpaid, unless the list includes pending orders and the scan ignores unpaid", async () => {
    const v = await venue();
    const plain = await v.list();
    const pending = await v.list({ name: "Pending too", include_pending: true });
    const order = await v.order({ status: "n" });
    const secret = order.positions[0].secret;
    const r = await v.redeem({ secret, lists: [plain.id] });
    expect(r.body).toMatchObject({
      status: "error",
      reason: "unpaid",
      list: { include_pending: false },
      position: { order__status: "n" },
    });
    expect((await v.redeem({ secret, lists: [plain.id], ignore_unpaid: true })).body.reason).toBe("unpaid");
    expect((await v.redeem({ secret, lists: [pending.id] })).body).toMatchObject({
      reason: "unpaid",
      list: { include_pending: true },
    });
    expect((await v.redeem({ secret, lists: [pending.id], ignore_unpaid: true })).status).toBe(201);
  });

  it("canceled orders: canceled (checkinrpc), unpaid on the per-list redeem without canceled_supported", async () => {
    const v = await venue();
    const list = await v.list();
    const order = await v.order();
    expect((await v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false })).status).toBe(
      200,
    );
    const secret = order.positions[0].secret;
    expect((await v.redeem({ secret, lists: [list.id] })).body).toMatchObject({ status: "error", reason: "canceled" });
    const legacy = `${v.path}/checkinlists/${list.id}/positions/${secret}/redeem/`;
    expect((await v.scanner.post(legacy, {})).body.reason).toBe("unpaid");
    expect((await v.scanner.post(legacy, { canceled_supported: true })).body.reason).toBe("canceled");
  });

  it("product and date: a ticket of another product or date is refused with product", async () => {
    const v = await venue();
    const merch = await v.item({ name: { en: "Shirt" }, admission: false });
    await v.quota({ size: 10, items: [merch.id] });
    const vip = await v.list({ name: "VIP", all_products: false, limit_products: [merch.id] });
    const pos = await v.sell();
    const r = await v.redeem({ secret: pos.secret, lists: [vip.id] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: "error", reason: "product", position: { id: pos.id } });
    // forced, it passes (an offline scan that already happened)
    expect((await v.redeem({ secret: pos.secret, lists: [vip.id], force: true })).status).toBe(201);
  });

  it("a ticket outside its validity window: invalid_time with an explanation; exits are not refused", async () => {
    const v = await venue();
    const later = await v.item({
      name: { en: "Tomorrow" },
      validity_mode: "fixed",
      validity_fixed_from: "2040-01-01T10:00:00Z",
      validity_fixed_until: "2040-01-01T20:00:00Z",
    });
    await v.quota({ size: 10, items: [later.id] });
    const list = await v.list();
    const pos = await v.sell({ positions: [{ item: later.id }] });
    // the product's window, on the ticket as pretix's position resource shows it
    expect([pos.valid_from, pos.valid_until]).toEqual(["2040-01-01T10:00:00Z", "2040-01-01T20:00:00Z"]);
    const r = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(r.body).toMatchObject({
      status: "error",
      reason: "invalid_time",
      reason_explanation: "This ticket is only valid after 2040-01-01 10:00.",
    });
    const inside = await v.redeem({ secret: pos.secret, lists: [list.id], datetime: "2040-01-01T12:00:00Z" });
    expect(inside.status).toBe(201);
    expect(
      (await v.redeem({ secret: pos.secret, lists: [list.id], type: "exit", datetime: "2040-01-02T12:00:00Z" })).status,
    ).toBe(201);
    const late = await v.redeem({ secret: pos.secret, lists: [list.id], datetime: "2040-01-02T12:00:00Z" });
    expect(late.body).toMatchObject({
      reason: "invalid_time",
      reason_explanation: "This ticket was only valid before 2040-01-01 20:00.",
    });
  });

  it("an order awaiting approval: unapproved (a ticket the object reads from D1 on its first scan)", async () => {
    const v = await venue();
    const list = await v.list();
    const o = await seedOrderRow(v.eventId, { status: "n" });
    await db().update(orders).set({ requireApproval: true }).where(eq(orders.id, o.id));
    const p = await seedOrderPosition(o, { itemId: v.ticket.id });
    const r = await v.redeem({ secret: p.secret, lists: [list.id] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      status: "error",
      reason: "unapproved",
      position: { id: p.id, order__require_approval: true },
    });
  });

  it("check-in rules admit and refuse as pretix's server does, with its explanation; exits are not judged", async () => {
    const v = await venue();
    const once = await v.list({
      name: "Once by rule",
      allow_multiple_entries: true,
      rules: { "<": [{ var: "entries_number" }, 1] },
    });
    const pos = await v.sell();
    expect((await v.redeem({ secret: pos.secret, lists: [once.id] })).status).toBe(201);
    const again = await v.redeem({ secret: pos.secret, lists: [once.id] });
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({
      status: "error",
      reason: "rules",
      reason_explanation: "Maximum number of entries exceeded",
    });
    expect((await v.redeem({ secret: pos.secret, lists: [once.id], type: "exit" })).status).toBe(201);
    // forced (an offline scan that happened): it passes
    expect((await v.redeem({ secret: pos.secret, lists: [once.id], force: true })).status).toBe(201);

    const merch = await v.item({ name: { en: "Shirt" }, admission: false });
    const product = {
      inList: [{ var: "product" }, { objectList: [{ lookup: ["product", String(merch.id), "Shirt"] }] }],
    };
    const shirtsOnly = await v.list({ name: "Shirts", rules: product });
    const refused = await v.redeem({ secret: pos.secret, lists: [shirtsOnly.id] });
    expect(refused.body).toMatchObject({ reason: "rules", reason_explanation: "Ticket type not allowed" });
    const ticketsOnly = await v.list({
      name: "Tickets",
      rules: { inList: [{ var: "product" }, { objectList: [{ lookup: ["product", String(v.ticket.id), "Ticket"] }] }] },
    });
    expect((await v.redeem({ secret: pos.secret, lists: [ticketsOnly.id] })).status).toBe(201);
  });

  it("a rule the service cannot evaluate refuses the scan rather than admitting it", async () => {
    const v = await venue();
    const list = await v.list({ rules: { frobnicate: [{ var: "entries_number" }, 1] } });
    const pos = await v.sell();
    const r = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: "error", reason: "rules", reason_explanation: null });
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/`)).body.rules).toEqual({
      frobnicate: [{ var: "entries_number" }, 1],
    });
  });
});

describe("attention, questions and add-ons", () => {
  it("require_attention from the order's or the product's flag", async () => {
    const v = await venue();
    const list = await v.list();
    const flagged = await v.item({ name: { en: "Backstage" }, checkin_attention: true });
    await v.quota({ size: 10, items: [flagged.id] });
    const a = await v.sell({ positions: [{ item: flagged.id }] });
    const b = await v.sell({ checkin_attention: true });
    const c = await v.sell();
    expect((await v.redeem({ secret: a.secret, lists: [list.id] })).body.require_attention).toBe(true);
    expect((await v.redeem({ secret: b.secret, lists: [list.id] })).body.require_attention).toBe(true);
    expect((await v.redeem({ secret: c.secret, lists: [list.id] })).body.require_attention).toBe(false);
  });

  it("questions asked during check-in: incomplete with the questions, then ok with the answers, which are kept", async () => {
    const v = await venue();
    const list = await v.list();
    const q = await v.post("/questions/", {
      question: { en: "T-Shirt size" },
      type: "C",
      required: false,
      items: [v.ticket.id],
      ask_during_checkin: true,
      options: [{ answer: { en: "S" } }, { answer: { en: "M" } }],
    });
    const pos = await v.sell();
    const r = await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: "incomplete", position: { id: pos.id }, list: { id: list.id } });
    expect(r.body.questions).toEqual([
      expect.objectContaining({ id: q.id, type: "C", ask_during_checkin: true, options: q.options }),
    ]);
    expect(await db().select().from(checkins).where(eq(checkins.positionId, pos.id))).toHaveLength(0);
    // a scanner without question support gets in
    const other = await v.sell();
    expect((await v.redeem({ secret: other.secret, lists: [list.id], questions_supported: false })).status).toBe(201);
    // an answer that is no option is ignored: still incomplete
    expect((await v.redeem({ secret: pos.secret, lists: [list.id], answers: { [q.id]: "999" } })).body.status).toBe(
      "incomplete",
    );
    const ok = await v.redeem(
      { secret: pos.secret, lists: [list.id], answers: { [q.id]: String(q.options[1].id) } },
      undefined,
      "?expand=answers.question",
    );
    expect(ok.status).toBe(201);
    expect(ok.body.position.answers).toEqual([
      expect.objectContaining({
        question: expect.objectContaining({ id: q.id, type: "C" }),
        answer: "M",
        options: [q.options[1].id],
      }),
    ]);
    expect((await positionOf(v, pos.order)).answers).toEqual([
      expect.objectContaining({ question: q.id, answer: "M", options: [q.options[1].id] }),
    ]);
  });

  it("addon_match: scanning the base ticket redeems its add-on on a list of the add-on's product; two matching add-ons are ambiguous", async () => {
    const v = await venue();
    const workshop = await v.item({ name: { en: "Workshop" } });
    await v.quota({ size: 10, items: [workshop.id] });
    const room = await v.list({
      name: "Workshop room",
      all_products: false,
      limit_products: [workshop.id],
      addon_match: true,
    });
    const plain = await v.list({ name: "No match", all_products: false, limit_products: [workshop.id] });
    const order = await v.order({
      positions: [
        { item: v.ticket.id, positionid: 1 },
        { item: workshop.id, positionid: 2, addon_to: 1 },
      ],
    });
    const [base, addon] = order.positions;
    const r = await v.redeem({ secret: base.secret, lists: [room.id] });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.position).toMatchObject({ id: addon.id, addon_to: base.id });
    expect((await v.redeem({ secret: base.secret, lists: [plain.id] })).body.reason).toBe("product");
    const two = await v.order({
      positions: [
        { item: v.ticket.id, positionid: 1 },
        { item: workshop.id, positionid: 2, addon_to: 1 },
        { item: workshop.id, positionid: 3, addon_to: 1 },
      ],
    });
    const amb = await v.redeem({ secret: two.positions[0].secret, lists: [room.id] });
    expect(amb.status).toBe(400);
    expect(amb.body).toMatchObject({ status: "error", reason: "ambiguous", position: { id: two.positions[0].id } });
  });
});

describe("automatic check-in and quota release", () => {
  it("auto_checkin_sales_channels: a ticket bought on the channel is checked in at purchase", async () => {
    const v = await venue();
    const list = await v.list({ auto_checkin_sales_channels: ["web"] });
    const pos = await v.sell();
    expect(pos.checkins).toEqual([
      expect.objectContaining({ list: list.id, type: "entry", auto_checked_in: true, device: null }),
    ]);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body.reason).toBe("already_redeemed");
    const other = await v.sell({ sales_channel: "resellers" });
    expect(other.checkins).toEqual([]);
  });

  it("release_after_exit: an exit frees the quota's unit until the ticket enters again", async () => {
    const v = await venue({ quota: { size: 1, release_after_exit: true } });
    const list = await v.list();
    const quotaId = (await v.client.get(`${v.path}/quotas/`)).body.results[0].id;
    const availability = async () => (await v.client.get(`${v.path}/quotas/${quotaId}/availability/`)).body;
    const pos = await v.sell();
    expect(await availability()).toMatchObject({ available_number: 0, paid_orders: 1, exited_orders: 0 });
    await v.redeem({ secret: pos.secret, lists: [list.id] });
    await v.redeem({ secret: pos.secret, lists: [list.id], type: "exit" });
    expect(await availability()).toMatchObject({
      available: true,
      available_number: 1,
      paid_orders: 1,
      exited_orders: 1,
    });
    await v.redeem({ secret: pos.secret, lists: [list.id] });
    expect(await availability()).toMatchObject({ available_number: 0, exited_orders: 0 });
    await v.redeem({ secret: pos.secret, lists: [list.id], type: "exit" });
    const next = await v.client.post(`${v.path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      positions: [{ item: v.ticket.id }],
    });
    expect(next.status).toBe(201);
    expect(await availability()).toMatchObject({ available_number: 0, paid_orders: 2, exited_orders: 1 });
  });
});

describe("the per-list redeem", () => {
  it("names the ticket by secret, or by id unless untrusted_input", async () => {
    const v = await venue();
    const list = await v.list();
    const a = await v.sell();
    const b = await v.sell();
    const url = (id: string | number, q = "") => `${v.path}/checkinlists/${list.id}/positions/${id}/redeem/${q}`;
    const bySecret = await v.scanner.post(url(a.secret), { nonce: "n1" });
    expect(bySecret.status).toBe(201);
    expect(bySecret.body).toMatchObject({
      status: "ok",
      position: { id: a.id },
      list: { id: list.id, event: v.eventSlug },
    });
    expect((await v.scanner.post(url(b.id, "?untrusted_input=true"), {})).status).toBe(404);
    expect((await v.scanner.post(url(b.id), {})).status).toBe(201);
    expect((await v.scanner.post(url(b.id), {})).body.reason).toBe("already_redeemed");
    // a list of another event is not found
    const w = await venue();
    const wList = await w.list();
    expect((await v.scanner.post(`${v.path}/checkinlists/${wList.id}/positions/${a.secret}/redeem/`, {})).status).toBe(
      404,
    );
  });
});

describe("checkinrpc/search", () => {
  it("finds tickets by attendee name, order code and start of the secret on the given lists", async () => {
    const v = await venue();
    const list = await v.list();
    const peter = await v.sell({ positions: [{ item: v.ticket.id, attendee_name: "Peter Parker" }] });
    await v.sell({ positions: [{ item: v.ticket.id, attendee_name: "Mary Jane" }] });
    const search = (q: string) =>
      v.scanner.get(
        `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${list.id}&ignore_status=true&page=1&search=${encodeURIComponent(q)}`,
      );
    const byName = await search("parker");
    expect(byName.status).toBe(200);
    expect(byName.body.results.map((p: { id: number }) => p.id)).toEqual([peter.id]);
    expect(byName.body.results[0]).toMatchObject({ attendee_name: "Peter Parker", order__status: "p", checkins: [] });
    expect((await search(peter.order)).body.count).toBe(1);
    expect((await search(peter.secret.slice(0, 8))).body.count).toBe(1);
    expect((await search("nobody")).body.count).toBe(0);
    const unknown = await v.scanner.get(`/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=999999&search=x`);
    expect(unknown.status).toBe(403);
  });

  it("another organizer's device finds nothing of this organizer", async () => {
    const v = await venue();
    const list = await v.list();
    const other = await seedOrganizer();
    const w = await venue();
    void other;
    const r = await w.scanner.get(`/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${list.id}&search=abc`);
    expect(r.status).toBe(403);
    const redeem = await w.scanner.post(`/api/v1/organizers/${v.orgSlug}/checkinrpc/redeem/`, {
      secret: "abc",
      lists: [list.id],
    });
    expect(redeem.status).toBe(403);
  });
});

describe("credentials limited to some events", () => {
  /**
   * Two events of one organizer: `v` (the venue, outside the limit) and `inside`, each with a
   * list of all products and a paid ticket; a team token and a device, both made through the
   * API with `all_events: false` and `limit_events: [inside]`, that may scan and read orders.
   */
  async function limitedWorld() {
    const v = await venue();
    const org = `/api/v1/organizers/${v.orgSlug}`;
    const outsideList = await v.list();
    const outside = await v.sell();
    const made = await v.client.post(`${org}/events/`, {
      name: { en: "Inside" },
      slug: "inside",
      currency: "EUR",
      date_from: "2030-06-02T19:00:00Z",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const insidePath = `${org}/events/inside`;
    const item = await v.client.post(`${insidePath}/items/`, {
      name: { en: "Ticket" },
      default_price: "10.00",
      admission: true,
    });
    expect((await v.client.post(`${insidePath}/quotas/`, { name: "Q", size: 10, items: [item.body.id] })).status).toBe(
      201,
    );
    const insideList = (await v.client.post(`${insidePath}/checkinlists/`, { name: "Inside door", all_products: true }))
      .body;
    const insideOrder = await v.client.post(`${insidePath}/orders/`, {
      email: "in@example.org",
      status: "p",
      payment_provider: "manual",
      positions: [{ item: item.body.id }],
    });
    expect(insideOrder.status, JSON.stringify(insideOrder.body)).toBe(201);

    const team = await v.client.post(`${org}/teams/`, {
      name: "Door staff",
      all_events: false,
      limit_events: ["inside"],
      can_view_orders: true,
      can_change_orders: true,
    });
    expect(team.status, JSON.stringify(team.body)).toBe(201);
    expect(team.body).toMatchObject({ all_events: false, limit_events: ["inside"] });
    const token = await v.client.post(`${org}/teams/${team.body.id}/tokens/`, { name: "door" });
    expect(token.status, JSON.stringify(token.body)).toBe(201);
    const device = await v.client.post(`${org}/devices/`, {
      name: "Door scanner",
      all_events: false,
      limit_events: ["inside"],
    });
    expect(device.status, JSON.stringify(device.body)).toBe(201);
    const init = await anonymous.post("/api/v1/device/initialize", {
      token: device.body.initialization_token,
      hardware_brand: "Zebra",
      hardware_model: "TC25",
      software_brand: "pretixSCAN",
      software_version: "1.21.0",
    });
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    return {
      v,
      org,
      insidePath,
      outsideList,
      outside,
      insideList,
      inside: insideOrder.body.positions[0],
      limited: [
        ["team token", tokenClient(token.body.token)],
        ["device", deviceClient(init.body.api_token)],
      ] as const,
    };
  }

  const FORBIDDEN = { detail: "You do not have permission to perform this action." };
  const checkinsOn = (listId: number) => db().select().from(checkins).where(eq(checkins.listId, listId));

  it("cannot redeem, search or read the status of a list of an event outside the limit; inside it can", async () => {
    const w = await limitedWorld();
    const { v } = w;
    for (const [who, client] of w.limited) {
      const redeem = await client.post(`${w.org}/checkinrpc/redeem/`, {
        secret: w.outside.secret,
        lists: [w.outsideList.id],
      });
      expect([who, redeem.status]).toEqual([who, 400]);
      expect(redeem.body).toEqual({ lists: [`Invalid pk "${w.outsideList.id}" - object does not exist.`] });
      // beside a list it may use: the outside list is still refused, nothing is decided
      const mixed = await client.post(`${w.org}/checkinrpc/redeem/`, {
        secret: w.outside.secret,
        lists: [w.insideList.id, w.outsideList.id],
      });
      expect([who, mixed.status]).toEqual([who, 400]);
      expect(mixed.body).toEqual({ lists: [`Invalid pk "${w.outsideList.id}" - object does not exist.`] });
      // forced, and as an exit: the same
      const forced = await client.post(`${w.org}/checkinrpc/redeem/`, {
        secret: w.outside.secret,
        lists: [w.outsideList.id],
        force: true,
        type: "exit",
      });
      expect([who, forced.status]).toEqual([who, 400]);
      expect(forced.body).toEqual({ lists: [`Invalid pk "${w.outsideList.id}" - object does not exist.`] });

      const search = await client.get(
        `${w.org}/checkinrpc/search/?list=${w.outsideList.id}&search=${w.outside.order}&ignore_status=true`,
      );
      expect([who, search.status]).toEqual([who, 403]);
      expect(search.body).toEqual({
        detail: `You requested lists that do not exist or that you do not have access to: ${w.outsideList.id}`,
      });
      const searchBoth = await client.get(
        `${w.org}/checkinrpc/search/?list=${w.insideList.id}&list=${w.outsideList.id}&search=${w.outside.order}`,
      );
      // pretix names only the lists refused
      expect([who, searchBoth.status]).toEqual([who, 403]);
      expect(searchBoth.body).toEqual({
        detail: `You requested lists that do not exist or that you do not have access to: ${w.outsideList.id}`,
      });

      const status = await client.get(`${v.path}/checkinlists/${w.outsideList.id}/status/`);
      expect([who, status.status]).toEqual([who, 403]);
      expect(status.body).toEqual(FORBIDDEN);
      const perList = await client.post(
        `${v.path}/checkinlists/${w.outsideList.id}/positions/${w.outside.id}/redeem/`,
        {},
      );
      expect([who, perList.status]).toEqual([who, 403]);
      expect(perList.body).toEqual(FORBIDDEN);
    }
    // no check-in, successful or failed, on the outside list; the ticket is still not checked in
    expect(await checkinsOn(w.outsideList.id)).toEqual([]);
    expect(await db().select().from(checkins).where(eq(checkins.eventId, v.eventId))).toEqual([]);
    const adminStatus = await v.client.get(`${v.path}/checkinlists/${w.outsideList.id}/status/`);
    expect(adminStatus.body).toMatchObject({ checkin_count: 0, position_count: 1 });

    // inside the limit the same credentials work: search, status, scan (the team token enters, the device lets it out)
    const [[, team], [, device]] = w.limited;
    const found = await team.get(`${w.org}/checkinrpc/search/?list=${w.insideList.id}&search=${w.inside.order}`);
    expect(found.status).toBe(200);
    expect(found.body.results.map((p: { id: number }) => p.id)).toEqual([w.inside.id]);
    expect((await device.get(`${w.insidePath}/checkinlists/${w.insideList.id}/status/`)).status).toBe(200);
    const entered = await team.post(`${w.org}/checkinrpc/redeem/`, {
      secret: w.inside.secret,
      lists: [w.insideList.id],
    });
    expect(entered.status, JSON.stringify(entered.body)).toBe(201);
    const left = await device.post(`${w.org}/checkinrpc/redeem/`, {
      secret: w.inside.secret,
      lists: [w.insideList.id],
      type: "exit",
    });
    expect(left.status, JSON.stringify(left.body)).toBe(201);
    expect((await checkinsOn(w.insideList.id)).map((c) => c.type)).toEqual(["entry", "exit"]);
  });
});
