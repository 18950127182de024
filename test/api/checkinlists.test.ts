/**
 * Check-in lists (spec "Check-in lists"; pretix docs checkinlists.rst): CRUD with pretix's
 * defaults and validation, every list filter, ordering, expand and exclude, Last-Modified,
 * DELETE deleting the list's check-ins (also on the singular path), `status`, the list's
 * tickets with pretix's filters and orderings, and failed scans.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins } from "../../src/db/schema";
import { db } from "../harness";
import { venue } from "../helpers/checkin";

describe("check-in list CRUD", () => {
  it("creates a list with pretix's defaults and answers it as pretix does", async () => {
    const v = await venue();
    const r = await v.client.post(`${v.path}/checkinlists/`, { name: "Main entrance" });
    expect(r.status).toBe(201);
    expect(r.body).toEqual({
      id: expect.any(Number),
      name: "Main entrance",
      all_products: false,
      limit_products: [],
      subevent: null,
      position_count: 0,
      checkin_count: 0,
      include_pending: false,
      auto_checkin_sales_channels: [],
      allow_multiple_entries: false,
      allow_entry_after_exit: true,
      rules: {},
      exit_all_at: null,
      addon_match: false,
    });
    const got = await v.client.get(`${v.path}/checkinlists/${r.body.id}/`);
    expect(got.body).toEqual(r.body);
  });

  it("stores rules exactly as sent and returns every field", async () => {
    const v = await venue();
    const rules = {
      and: [
        { isAfter: [{ var: "now" }, { buildTime: ["date_admission"] }, 15] },
        { "<": [{ var: "entries_number" }, 2] },
      ],
    };
    const body = {
      name: "VIP",
      all_products: false,
      limit_products: [v.ticket.id],
      include_pending: true,
      allow_multiple_entries: true,
      allow_entry_after_exit: false,
      addon_match: true,
      rules,
      exit_all_at: "2030-06-02T03:00:00+02:00",
      auto_checkin_sales_channels: ["pretixpos"],
    };
    const r = await v.client.post(`${v.path}/checkinlists/`, body);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ ...body, exit_all_at: "2030-06-02T01:00:00Z" });
    expect(r.body.rules).toEqual(rules);
  });

  it("validates: name required, products and dates of this event, known sales channels, rules an object", async () => {
    const v = await venue();
    const other = await venue();
    const post = (b: unknown) => v.client.post(`${v.path}/checkinlists/`, b);
    expect((await post({})).body).toEqual({ name: ["This field is required."] });
    expect((await post({ name: "x", limit_products: [other.ticket.id] })).body).toEqual({
      limit_products: [`Invalid pk "${other.ticket.id}" - object does not exist.`],
    });
    expect((await post({ name: "x", subevent: 999999 })).body).toEqual({
      subevent: ['Invalid pk "999999" - object does not exist.'],
    });
    expect((await post({ name: "x", auto_checkin_sales_channels: ["nowhere"] })).body).toEqual({
      auto_checkin_sales_channels: ['"nowhere" is not a valid choice.'],
    });
    expect((await post({ name: "x", rules: [1, 2] })).status).toBe(400);
    expect((await post({ name: "x", exit_all_at: "tomorrow" })).status).toBe(400);
    expect((await v.client.get(`${v.path}/checkinlists/`)).body.count).toBe(0);
  });

  it("products and dates of another event of the organizer: non_field_errors, as pretix says it (test_list_create, test_list_create_with_subevent)", async () => {
    const v = await venue();
    const foreign = await venue({ series: true });
    const foreignDate = await foreign.subevent();
    // two series of the same organizer, each with a product and a date
    const series = async (slug: string) => {
      const made = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/`, {
        name: { en: slug },
        slug,
        currency: "EUR",
        date_from: "2030-06-01T19:00:00Z",
        has_subevents: true,
      });
      expect(made.status, JSON.stringify(made.body)).toBe(201);
      const path = `/api/v1/organizers/${v.orgSlug}/events/${slug}`;
      const item = (await v.client.post(`${path}/items/`, { name: { en: "Pass" }, default_price: "1.00" })).body;
      const date = (
        await v.client.post(`${path}/subevents/`, { name: { en: "Day" }, date_from: "2030-07-01T19:00:00Z" })
      ).body;
      return { path, item, date };
    };
    const a = await series("festival-a");
    const b = await series("festival-b");
    const post = (path: string, body: unknown) => v.client.post(`${path}/checkinlists/`, body);
    const items = await post(v.path, { name: "x", all_products: false, limit_products: [v.ticket.id, a.item.id] });
    expect(items.status).toBe(400);
    expect(items.body).toEqual({ non_field_errors: ["One or more items do not belong to this event."] });
    // a date of another event: in an event without dates and in a series
    for (const path of [v.path, b.path]) {
      const r = await post(path, { name: "x", subevent: a.date.id });
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ non_field_errors: ["The subevent does not belong to this event."] });
    }
    // another organizer's date and product are no objects at all
    expect((await post(a.path, { name: "x", subevent: foreignDate.id })).body).toEqual({
      subevent: [`Invalid pk "${foreignDate.id}" - object does not exist.`],
    });
    expect((await post(a.path, { name: "x", limit_products: [foreign.ticket.id] })).body).toEqual({
      limit_products: [`Invalid pk "${foreign.ticket.id}" - object does not exist.`],
    });
    for (const path of [v.path, a.path, b.path])
      expect((await v.client.get(`${path}/checkinlists/`)).body.count).toBe(0);
    // lists with and without a date of the series
    expect((await post(a.path, { name: "Day", subevent: a.date.id, limit_products: [a.item.id] })).status).toBe(201);
    expect((await post(a.path, { name: "Every day" })).status).toBe(201);
  });

  it("PATCH changes only sent fields; PUT resets the others to defaults; id and counts are read-only", async () => {
    const v = await venue();
    const l = await v.list({ allow_multiple_entries: true, limit_products: [v.ticket.id], all_products: false });
    const patched = await v.client.patch(`${v.path}/checkinlists/${l.id}/`, {
      name: "Backstage",
      id: 77,
      checkin_count: 9,
    });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: l.id,
      name: "Backstage",
      allow_multiple_entries: true,
      limit_products: [v.ticket.id],
      checkin_count: 0,
    });
    const put = await v.client.put(`${v.path}/checkinlists/${l.id}/`, { name: "Reset" });
    expect(put.body).toMatchObject({
      name: "Reset",
      allow_multiple_entries: false,
      limit_products: [],
      all_products: false,
    });
    expect((await v.client.put(`${v.path}/checkinlists/${l.id}/`, {})).status).toBe(400);
    expect((await v.client.patch(`${v.path}/checkinlists/999999/`, { name: "x" })).status).toBe(404);
  });

  it("DELETE deletes the list and every check-in made on it, on the plural and the singular path", async () => {
    const v = await venue();
    const a = await v.list({ name: "A" });
    const b = await v.list({ name: "B" });
    const keep = await v.list({ name: "Keep" });
    const pos = await v.sell();
    for (const l of [a, b, keep]) expect((await v.redeem({ secret: pos.secret, lists: [l.id] })).status).toBe(201);
    await v.client.post(`${v.path}/checkinlists/${a.id}/failed_checkins/`, {
      error_reason: "invalid",
      raw_barcode: "zzz",
    });
    expect((await v.client.delete(`${v.path}/checkinlists/${a.id}/`)).status).toBe(204);
    expect((await v.client.delete(`${v.path}/checkinlist/${b.id}/`)).status).toBe(204);
    expect((await v.client.get(`${v.path}/checkinlists/${a.id}/`)).status).toBe(404);
    expect((await v.client.delete(`${v.path}/checkinlist/${b.id}/`)).status).toBe(404);
    const left = await db().select().from(checkins).where(eq(checkins.eventId, v.eventId));
    expect(left.map((c) => c.listId)).toEqual([keep.id]);
    expect(
      (await v.client.get(`${v.path}/orders/${pos.order}/`)).body.positions[0].checkins.map(
        (c: { list: number }) => c.list,
      ),
    ).toEqual([keep.id]);
    // a scan on the deleted list: the list is no more
    expect((await v.redeem({ secret: pos.secret, lists: [a.id] })).body).toEqual({
      lists: [`Invalid pk "${a.id}" - object does not exist.`],
    });
  });

  it("a list edit reaches the event object at once (one door)", async () => {
    const v = await venue();
    const l = await v.list();
    const pos = await v.sell();
    await v.redeem({ secret: pos.secret, lists: [l.id] });
    expect((await v.redeem({ secret: pos.secret, lists: [l.id] })).body.reason).toBe("already_redeemed");
    await v.client.patch(`${v.path}/checkinlists/${l.id}/`, { allow_multiple_entries: true });
    expect((await v.redeem({ secret: pos.secret, lists: [l.id] })).status).toBe(201);
    await v.client.patch(`${v.path}/checkinlists/${l.id}/`, { all_products: false, limit_products: [] });
    expect((await v.redeem({ secret: pos.secret, lists: [l.id] })).body.reason).toBe("product");
  });
});

describe("listing check-in lists", () => {
  it("filters by subevent, subevent_match and ends_after; orders by subevent__date_from,name by default", async () => {
    const v = await venue({ series: true });
    const early = await v.subevent({
      name: { en: "Early" },
      date_from: "2030-07-01T19:00:00Z",
      date_to: "2030-07-01T23:00:00Z",
    });
    const late = await v.subevent({ name: { en: "Late" }, date_from: "2030-08-01T19:00:00Z" });
    const all = await v.list({ name: "Zeta all dates" });
    const e1 = await v.list({ name: "Early B", subevent: early.id });
    const e2 = await v.list({ name: "Early A", subevent: early.id });
    const l1 = await v.list({ name: "Late", subevent: late.id });
    const names = async (q: string) =>
      (await v.client.get(`${v.path}/checkinlists/${q}`)).body.results.map((l: { name: string }) => l.name);
    expect(await names("")).toEqual(["Zeta all dates", "Early A", "Early B", "Late"]);
    expect(await names("?ordering=-name")).toEqual(["Zeta all dates", "Late", "Early B", "Early A"]);
    expect(await names("?ordering=id")).toEqual([all, e1, e2, l1].map((l) => l.name));
    expect(await names(`?subevent=${early.id}`)).toEqual(["Early A", "Early B"]);
    expect(await names(`?subevent_match=${late.id}`)).toEqual(["Zeta all dates", "Late"]);
    expect(await names(`?ends_after=2030-07-15T00:00:00Z`)).toEqual(["Zeta all dates", "Late"]);
    expect((await v.client.get(`${v.path}/checkinlists/?subevent=x`)).status).toBe(400);
  });

  it("expand=subevent gives the date's full object; exclude drops fields", async () => {
    const v = await venue({ series: true });
    const d = await v.subevent({ name: { en: "Day one" } });
    const l = await v.list({ subevent: d.id });
    const expanded = await v.client.get(
      `${v.path}/checkinlists/?expand=subevent&exclude=checkin_count&exclude=position_count`,
    );
    expect(expanded.status, JSON.stringify(expanded.body)).toBe(200);
    expect(expanded.body.results[0].subevent).toMatchObject({ id: d.id, name: { en: "Day one" }, event: v.eventSlug });
    expect(expanded.body.results[0]).not.toHaveProperty("checkin_count");
    expect(expanded.body.results[0]).not.toHaveProperty("position_count");
    expect((await v.client.get(`${v.path}/checkinlists/${l.id}/?expand=subevent`)).body.subevent.id).toBe(d.id);
  });

  it("Last-Modified / If-Modified-Since: 304 until a list changes", async () => {
    const v = await venue();
    await v.list();
    const first = await v.client.get(`${v.path}/checkinlists/`);
    const lm = first.headers.get("last-modified")!;
    expect(lm).toBeTruthy();
    expect((await v.client.get(`${v.path}/checkinlists/`, { headers: { "If-Modified-Since": lm } })).status).toBe(304);
    await new Promise((r) => setTimeout(r, 1100));
    await v.list({ name: "Another" });
    const after = await v.client.get(`${v.path}/checkinlists/`, { headers: { "If-Modified-Since": lm } });
    expect(after.status).toBe(200);
    expect(after.body.count).toBe(2);
  });
});

describe("status", () => {
  it("counts tickets, checked-in tickets and who is inside, per item and variation", async () => {
    const v = await venue();
    const shirt = await v.post("/items/", {
      name: { en: "Shirt" },
      default_price: "10.00",
      admission: false,
      has_variations: true,
      variations: [
        { value: { en: "Red" }, default_price: "10.00" },
        { value: { en: "Blue" }, default_price: "10.00" },
      ],
    });
    await v.quota({ size: 100, items: [shirt.id], variations: shirt.variations.map((x: { id: number }) => x.id) });
    const list = await v.list();
    const [red, blue] = shirt.variations;
    const t1 = await v.sell();
    const t2 = await v.sell();
    await v.sell({ status: "n" }); // pending: not on the list
    const s1 = await v.sell({ positions: [{ item: shirt.id, variation: red.id }] });
    await v.sell({ positions: [{ item: shirt.id, variation: blue.id }] });
    await v.redeem({ secret: t1.secret, lists: [list.id] });
    await v.redeem({ secret: t2.secret, lists: [list.id] });
    await v.redeem({ secret: t2.secret, lists: [list.id], type: "exit" });
    await v.redeem({ secret: s1.secret, lists: [list.id] });
    const r = await v.client.get(`${v.path}/checkinlists/${list.id}/status/`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      checkin_count: 3,
      position_count: 4,
      inside_count: 2,
      scans: { online: 4, uploaded: 0, automatic: 0, failed_online: 0, failed_uploaded: 0 },
      event: { name: "Concert" },
      items: [
        { name: "Ticket", id: v.ticket.id, checkin_count: 2, admission: true, position_count: 2, variations: [] },
        {
          name: "Shirt",
          id: shirt.id,
          checkin_count: 1,
          admission: false,
          position_count: 2,
          variations: [
            { value: "Red", id: red.id, checkin_count: 1, position_count: 1 },
            { value: "Blue", id: blue.id, checkin_count: 0, position_count: 1 },
          ],
        },
      ],
    });
    const listed = await v.client.get(`${v.path}/checkinlists/${list.id}/`);
    expect(listed.body).toMatchObject({ checkin_count: 3, position_count: 4 });
    // a ticket that comes back in is still one ticket checked in
    expect((await v.redeem({ secret: t2.secret, lists: [list.id] })).status).toBe(201);
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/`)).body).toMatchObject({
      checkin_count: 3,
      position_count: 4,
    });
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/status/`)).body).toMatchObject({
      checkin_count: 3,
      position_count: 4,
      inside_count: 3,
    });
    expect((await v.client.get(`${v.path}/checkinlists/999999/status/`)).status).toBe(404);
  });
});

describe("a list's tickets", () => {
  async function crowd() {
    const v = await venue();
    const list = await v.list();
    const other = await v.list({ name: "Other" });
    const anna = await v.sell({
      email: "anna@example.org",
      positions: [{ item: v.ticket.id, attendee_name: "Anna Apple" }],
    });
    const bob = await v.sell({
      email: "bob@example.org",
      positions: [{ item: v.ticket.id, attendee_name: "Bob Banana" }],
    });
    const noname = await v.order({
      email: "carl@example.org",
      invoice_address: { name_parts: { full_name: "Carl Invoice" } },
      positions: [{ item: v.ticket.id }],
    });
    const pending = await v.order({ status: "n", positions: [{ item: v.ticket.id, attendee_name: "Dora Pending" }] });
    return { v, list, other, anna, bob, carl: noname.positions[0], dora: pending.positions[0] };
  }

  it("lists paid tickets (pending with ignore_status), ordered by attendee_name,positionid, with the invoice name as fallback", async () => {
    const { v, list, anna, bob, carl, dora } = await crowd();
    const r = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/`);
    expect(r.status).toBe(200);
    expect(r.body.count).toBe(3);
    expect(r.body.results.map((p: { id: number }) => p.id)).toEqual([anna.id, bob.id, carl.id]);
    expect(r.body.results[2]).toMatchObject({
      attendee_name: "Carl Invoice",
      require_attention: false,
      order__status: "p",
      checkins: [],
    });
    const all = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?ignore_status=true`);
    expect(all.body.results.map((p: { id: number }) => p.id)).toContain(dora.id);
    expect(
      (await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?ordering=-attendee_name`)).body.results.map(
        (p: { id: number }) => p.id,
      ),
    ).toEqual([bob.id, anna.id, carl.id]);
  });

  it("filters: search, order, secret, item, has_checkin, order__status; checkins only of this list; ordering last_checked_in", async () => {
    const { v, list, other, anna, bob } = await crowd();
    await v.redeem({ secret: bob.secret, lists: [other.id] });
    await v.redeem({ secret: anna.secret, lists: [list.id] });
    const ids = async (q: string) =>
      (await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?${q}`)).body.results.map(
        (p: { id: number }) => p.id,
      );
    expect(await ids("search=banana")).toEqual([bob.id]);
    expect(await ids(`search=${anna.secret.slice(0, 6)}`)).toEqual([anna.id]);
    expect(await ids(`order=${bob.order}`)).toEqual([bob.id]);
    const bySecret = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?secret=${anna.secret}`);
    expect(bySecret.status, JSON.stringify(bySecret.body)).toBe(200);
    expect(bySecret.body.results.map((p: { id: number }) => p.id)).toEqual([anna.id]);
    expect(await ids(`has_checkin=true`)).toEqual([anna.id]);
    expect((await ids(`has_checkin=false`)).includes(anna.id)).toBe(false);
    expect((await ids(`item=${v.ticket.id}`)).length).toBe(3);
    expect(await ids(`item__in=999`)).toEqual([]);
    expect(await ids(`ignore_status=true&order__status=n`)).toHaveLength(1);
    expect(await ids(`ordering=-last_checked_in`)).toEqual([anna.id, expect.any(Number), expect.any(Number)]);
    expect(await ids(`attendee_name=bob banana`)).toEqual([bob.id]);
    const bobs = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${bob.id}/`);
    expect(bobs.body.checkins).toEqual([]);
    const bobsOther = await v.client.get(`${v.path}/checkinlists/${other.id}/positions/${bob.id}/`);
    expect(bobsOther.body.checkins).toHaveLength(1);
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?order__status=x`)).status).toBe(400);
    expect((await v.client.get(`${v.path}/checkinlists/999999/positions/`)).status).toBe(404);
    expect((await v.client.get(`${v.path}/checkinlists/${list.id}/positions/999999/`)).status).toBe(404);
  });

  it("expand=item,variation,subevent gives full objects", async () => {
    const { v, list } = await crowd();
    const r = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?expand=item&expand=subevent`);
    expect(r.body.results[0].item).toMatchObject({ id: v.ticket.id, name: { en: "Ticket" } });
    expect(r.body.results[0].subevent).toBeNull();
  });
});

describe("failed scans", () => {
  it("validates and stores failed scans; they show in the check-in history", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const url = `${v.path}/checkinlists/${list.id}/failed_checkins/`;
    const ok = await v.scanner.post(url, {
      error_reason: "canceled",
      raw_barcode: pos.secret,
      datetime: "2030-06-01T20:00:00Z",
      nonce: "n-1",
    });
    expect(ok.status).toBe(201);
    expect(ok.body).toEqual({
      error_reason: "canceled",
      error_explanation: null,
      raw_barcode: pos.secret,
      raw_item: null,
      raw_variation: null,
      raw_subevent: null,
      nonce: "n-1",
      datetime: "2030-06-01T20:00:00Z",
      type: "entry",
      position: pos.id,
    });
    expect(
      (await v.scanner.post(url, { error_reason: "canceled", raw_barcode: pos.secret, nonce: "n-1" })).status,
    ).toBe(201);
    expect((await v.scanner.post(url, { raw_barcode: "x" })).body).toEqual({
      error_reason: ["This field is required."],
    });
    expect((await v.scanner.post(url, { error_reason: "bored", raw_barcode: "x" })).status).toBe(400);
    // a choice sent as a list nested 10,000 deep (found by the fuzz test: its message overflowed the stack, 500)
    const deep = await v.scanner.post(url, {
      error_reason: JSON.parse(`${"[".repeat(10_000)}1${"]".repeat(10_000)}`),
      raw_barcode: "x",
    });
    expect(deep.status).toBe(400);
    expect(deep.body).toEqual({ error_reason: ['Expected a valid choice but got type "list".'] });
    // a long choice is shown cut at 100 characters
    expect((await v.scanner.post(url, { error_reason: "b".repeat(5000), raw_barcode: "x" })).body).toEqual({
      error_reason: [`"${"b".repeat(100)}…" is not a valid choice.`],
    });
    expect((await v.scanner.post(url, { error_reason: "invalid" })).body).toEqual({
      raw_barcode: ["This field is required."],
    });
    expect((await v.scanner.post(url, { error_reason: "invalid", raw_barcode: "x", raw_item: 999999 })).body).toEqual({
      raw_item: ['Invalid pk "999999" - object does not exist.'],
    });
    expect(
      (await v.scanner.post(url, { error_reason: "invalid", raw_barcode: "x", type: "exit", raw_item: v.ticket.id }))
        .status,
    ).toBe(201);
    expect(
      (
        await v.scanner.post(`${v.path}/checkinlists/999999/failed_checkins/`, {
          error_reason: "invalid",
          raw_barcode: "x",
        })
      ).status,
    ).toBe(404);
    expect((await v.scanner.post(url, { error_reason: "invalid", raw_barcode: "x", position: 999999 })).status).toBe(
      404,
    );
    const history = await v.client.get(`${v.path}/checkins/?successful=false&ordering=id`);
    expect(history.body.count).toBe(2);
    expect(history.body.results[0]).toMatchObject({
      successful: false,
      error_reason: "canceled",
      position: pos.id,
      list: list.id,
      device: v.device.id,
      device_id: expect.any(Number),
      datetime: "2030-06-01T20:00:00Z",
      type: "entry",
    });
    expect((await v.client.get(`${v.path}/checkins/?error_reason=canceled`)).body.count).toBe(1);
    expect((await v.client.get(`${v.path}/checkins/?type=exit`)).body.count).toBe(1);
    expect((await v.client.get(`${v.path}/checkins/?successful=true`)).body.count).toBe(0);
  });
});
