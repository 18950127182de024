/**
 * pretix's own check-in tests against the service (docs/pretix-tests.md, "Check-in and redeem"):
 * the answers of the check-in RPC for requests about its lists (bare lists of messages, 403 and
 * 400 by permission), which scanners may name a ticket by id, nonces, forced scans, add-on
 * matching, searches across events, the orderings and filters of a list's tickets and its
 * history, and the decisions of base/test_checkin.py that no other test shows.
 */
import { env } from "cloudflare:workers";
import { runDurableObjectAlarm } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { checkins, revokedSecrets } from "../../src/db/schema";
import { eventObject } from "../../src/objects/client";
import { db, type Json, seedTeam } from "../harness";
import { venue } from "../helpers/checkin";

type Venue = Awaited<ReturnType<typeof venue>>;

const checkinsOf = (positionId: number) =>
  db().select().from(checkins).where(eq(checkins.positionId, positionId)).orderBy(checkins.id);

/** A second event of the venue's organizer, with a ticket, a quota and a list of all products. */
async function secondEvent(v: Venue, slug = "second-ev") {
  const ev = `/api/v1/organizers/${v.orgSlug}/events/${slug}`;
  const made = await v.client.post(`/api/v1/organizers/${v.orgSlug}/events/`, {
    name: { en: "Second" },
    slug,
    currency: "EUR",
    date_from: "2030-06-02T19:00:00Z",
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const item = (
    await v.client.post(`${ev}/items/`, { name: { en: "Ticket" }, default_price: "10.00", admission: true })
  ).body;
  await v.client.post(`${ev}/quotas/`, { name: "All", size: 100, items: [item.id] });
  const list = (await v.client.post(`${ev}/checkinlists/`, { name: "Event 2", all_products: true })).body;
  const sell = async (body: Record<string, unknown>) => {
    const order = { status: "p", payment_provider: "manual", positions: [{ item: item.id }], ...body };
    const r = await v.client.post(`${ev}/orders/`, order);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body;
  };
  return { path: ev, item, list, sell };
}

describe("the check-in RPC's answers about its lists", () => {
  it("no list, or two lists of one event: pretix's bare list of messages (test_redeem_no_list, test_redeem_conflicting_lists, test_search_no_list, test_search_conflicting_lists)", async () => {
    const v = await venue();
    const a = await v.list({ name: "A" });
    const b = await v.list({ name: "B" });
    const pos = await v.sell();
    const org = `/api/v1/organizers/${v.orgSlug}`;
    const none = await v.redeem({ secret: pos.secret, lists: [] });
    expect(none.status).toBe(400);
    expect(none.body).toEqual(["No check-in list passed."]);
    const two = await v.redeem({ secret: pos.secret, lists: [b.id, a.id] });
    expect(two.status).toBe(400);
    expect(two.body).toEqual(["Selecting two check-in lists from the same event is unsupported."]);
    const noSearch = await v.client.get(`${org}/checkinrpc/search/?search=${pos.secret.slice(0, 8)}`);
    expect(noSearch.status).toBe(400);
    expect(noSearch.body).toEqual(["No check-in list passed."]);
    const twoSearch = await v.client.get(`${org}/checkinrpc/search/?search=x&list=${a.id}&list=${b.id}`);
    expect(twoSearch.status).toBe(400);
    expect(twoSearch.body).toEqual(["Selecting two check-in lists from the same event is unsupported."]);
    expect(await checkinsOf(pos.id)).toHaveLength(0);
  });

  it("lists the caller may not use: the search names them (403), the redeem calls them invalid (400) (test_without_permission, test_without_permission_for_one_list)", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell({ email: "dummy@dummy.test" });
    const second = await secondEvent(v);
    const org = `/api/v1/organizers/${v.orgSlug}`;
    // a team of the organizer without any permission
    const nothing = (await seedTeam(v.org.id, { permissions: [] })).client;
    const search = await nothing.get(
      `${org}/checkinrpc/search/?list=${list.id}&search=dummy.test&ordering=attendee_name`,
    );
    expect(search.status).toBe(403);
    expect(search.body).toEqual({
      detail: `You requested lists that do not exist or that you do not have access to: ${list.id}`,
    });
    const redeem = await v.redeem({ secret: "foobar", lists: [list.id] }, nothing);
    expect(redeem.status).toBe(400);
    expect(redeem.body).toEqual({ lists: [`Invalid pk "${list.id}" - object does not exist.`] });
    // a team limited to the first event: only the second event's list is refused
    const limited = (await seedTeam(v.org.id, { permissions: "all", allEvents: false, events: [v.eventId] })).client;
    const both = await limited.get(
      `${org}/checkinrpc/search/?list=${list.id}&list=${second.list.id}&search=dummy.test&ordering=attendee_name`,
    );
    expect(both.status).toBe(403);
    expect(both.body).toEqual({
      detail: `You requested lists that do not exist or that you do not have access to: ${second.list.id}`,
    });
    const scan = await v.redeem({ secret: "foobar", lists: [list.id, second.list.id] }, limited);
    expect(scan.status).toBe(400);
    expect(scan.body).toEqual({ lists: [`Invalid pk "${second.list.id}" - object does not exist.`] });
    // with a permission, the same team scans and searches its event
    expect((await limited.get(`${org}/checkinrpc/search/?list=${list.id}&search=dummy.test`)).body.count).toBe(1);
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] }, limited)).status).toBe(201);
    expect(await db().select().from(checkins).where(eq(checkins.listId, second.list.id))).toHaveLength(0);
  });

  it("a ticket of another event on this event's list only: 404 (test_redeem_multi_list); a position id as the secret: 404 (test_by_pk_not_allowed)", async () => {
    const v = await venue();
    const list = await v.list();
    const second = await secondEvent(v);
    const theirs = (await second.sell({})).positions[0];
    const r = await v.redeem({ secret: theirs.secret, lists: [list.id] });
    expect(r.status).toBe(404);
    expect(r.body).toMatchObject({ status: "error", reason: "invalid" });
    expect((await v.redeem({ secret: theirs.secret, lists: [list.id, second.list.id] })).status).toBe(201);
    const mine = await v.sell();
    const byId = await v.redeem({ secret: String(mine.id), lists: [list.id] });
    expect(byId.status).toBe(404);
    expect(await checkinsOf(mine.id)).toHaveLength(0);
  });
});

describe("who may name a ticket by id", () => {
  it("a pretixSCAN device names tickets by secret only on the per-list redeem (test_redeem_by_id_not_allowed_if_pretixscan)", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const updated = await v.scanner.post("/api/v1/device/update", {
      hardware_brand: "Zebra",
      hardware_model: "TC25",
      software_brand: "pretixSCAN",
      software_version: "1.14.2",
    });
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    const url = (id: string | number) => `${v.path}/checkinlists/${list.id}/positions/${id}/redeem/`;
    expect((await v.scanner.post(url(pos.id), { force: true })).status).toBe(404);
    expect(await checkinsOf(pos.id)).toHaveLength(0);
    expect((await v.scanner.post(url(pos.secret), { force: true })).status).toBe(201);
    // a team token (or another app) still may
    const other = await v.sell();
    expect((await v.client.post(url(other.id), {})).status).toBe(201);
  });
});

describe("nonces and forced scans", () => {
  it("a nonce of a failed scan does not hold a scan; a repeated nonce with multiple entries counts once; a failed scan after a success with its nonce is stored (test_reupload_same_nonce_not_ignored_after_failed, test_allow_multiple_reupload_same_nonce, test_store_failed_after_success)", async () => {
    const v = await venue();
    const list = await v.list();
    const pos = await v.sell();
    const failed = await v.scanner.post(`${v.path}/checkinlists/${list.id}/failed_checkins/`, {
      raw_barcode: pos.secret,
      position: pos.id,
      error_reason: "unpaid",
      nonce: "foobar",
    });
    expect(failed.status).toBe(201);
    const ok = await v.redeem({ secret: pos.secret, lists: [list.id], nonce: "foobar" });
    expect(ok.status).toBe(201);
    expect((await checkinsOf(pos.id)).map((c) => [c.successful, c.nonce])).toEqual([
      [false, "foobar"],
      [true, "foobar"],
    ]);
    // after a success, a failed scan with its nonce is stored too
    const other = await v.sell();
    expect((await v.redeem({ secret: other.secret, lists: [list.id], nonce: "barbaz" })).status).toBe(201);
    const after = await v.scanner.post(`${v.path}/checkinlists/${list.id}/failed_checkins/`, {
      raw_barcode: other.secret,
      error_reason: "already_redeemed",
      nonce: "barbaz",
    });
    expect(after.status).toBe(201);
    expect((await checkinsOf(other.id)).map((c) => [c.successful, c.nonce])).toEqual([
      [true, "barbaz"],
      [false, "barbaz"],
    ]);

    const multi = await v.list({ name: "Lounge", allow_multiple_entries: true });
    const guest = await v.sell();
    for (let i = 0; i < 2; i++)
      expect((await v.redeem({ secret: guest.secret, lists: [multi.id], nonce: "same" })).status).toBe(201);
    expect(await checkinsOf(guest.id)).toHaveLength(1);
    expect((await v.redeem({ secret: guest.secret, lists: [multi.id], nonce: "other" })).status).toBe(201);
    expect(await checkinsOf(guest.id)).toHaveLength(2);
  });

  it("forced: a canceled order's ticket and a pending order's ticket are admitted and marked forced (test_forced_canceled, test_unpaid_force)", async () => {
    const v = await venue();
    const list = await v.list();
    const order = await v.order();
    const pos = order.positions[0];
    expect((await v.client.post(`${v.path}/orders/${order.code}/mark_canceled/`, { send_email: false })).status).toBe(
      200,
    );
    expect((await v.redeem({ secret: pos.secret, lists: [list.id] })).body).toMatchObject({ reason: "canceled" });
    const forced = await v.redeem({ secret: pos.secret, lists: [list.id], force: true });
    expect(forced.status).toBe(201);
    expect((await checkinsOf(pos.id)).filter((c) => c.successful)).toEqual([
      expect.objectContaining({ forced: true, forceSent: true }),
    ]);
    const pending = (await v.order({ status: "n" })).positions[0];
    expect((await v.redeem({ secret: pending.secret, lists: [list.id] })).body.reason).toBe("unpaid");
    expect((await v.redeem({ secret: pending.secret, lists: [list.id], force: true })).status).toBe(201);
    expect((await checkinsOf(pending.id)).filter((c) => c.successful)).toEqual([
      expect.objectContaining({ forced: true, forceSent: true }),
    ]);
  });

  it("an expired order's ticket is refused as canceled (test_checkin_canceled_order)", async () => {
    const v = await venue();
    const list = await v.list();
    const order = await v.order({ status: "n" });
    expect((await v.client.post(`${v.path}/orders/${order.code}/mark_expired/`)).status).toBe(200);
    const r = await v.redeem({ secret: order.positions[0].secret, lists: [list.id] });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ status: "error", reason: "canceled" });
  });
});

describe("add-on matching", () => {
  async function withAddon() {
    const v = await venue();
    const workshop = await v.item({ name: { en: "Workshop" } });
    await v.quota({ size: 10, items: [workshop.id] });
    const order = await v.order({
      positions: [
        { item: v.ticket.id, positionid: 1, attendee_name: "Peter" },
        { item: workshop.id, positionid: 2, addon_to: 1 },
      ],
    });
    return { v, workshop, base: order.positions[0], addon: order.positions[1] };
  }

  it("the add-on is shown with its parent's name; base and add-on both on the list are ambiguous (test_redeem_addon_if_match_enabled, test_redeem_addon_if_match_ambiguous)", async () => {
    const { v, workshop, base, addon } = await withAddon();
    const room = await v.list({ all_products: false, limit_products: [workshop.id], addon_match: true });
    const ok = await v.redeem({ secret: base.secret, lists: [room.id] });
    expect(ok.status).toBe(201);
    expect(ok.body.position).toMatchObject({ id: addon.id, item: workshop.id, attendee_name: "Peter" });
    const both = await v.list({
      name: "Both",
      all_products: false,
      limit_products: [v.ticket.id, workshop.id],
      addon_match: true,
    });
    const amb = await v.redeem({ secret: base.secret, lists: [both.id] });
    expect(amb.status).toBe(400);
    expect(amb.body).toMatchObject({ status: "error", reason: "ambiguous", position: { id: base.id } });
    expect((await checkinsOf(base.id)).filter((c) => c.successful)).toHaveLength(0);
  });

  it("a revoked secret of the base ticket, forced: the add-on is checked in, forced (test_redeem_addon_if_match_and_revoked_force)", async () => {
    const { v, workshop, base, addon } = await withAddon();
    const room = await v.list({ all_products: false, limit_products: [workshop.id], addon_match: true });
    await db()
      .insert(revokedSecrets)
      .values({ eventId: v.eventId, positionId: base.id, secret: "revoked_secret", created: Date.now() });
    expect((await v.redeem({ secret: "revoked_secret", lists: [room.id] })).body.reason).toBe("revoked");
    const forced = await v.redeem({ secret: "revoked_secret", lists: [room.id], force: true });
    expect(forced.status, JSON.stringify(forced.body)).toBe(201);
    expect((await checkinsOf(addon.id)).filter((c) => c.successful)).toEqual([
      expect.objectContaining({ forced: true, forceSent: true, listId: room.id }),
    ]);
  });
});

describe("searching and listing tickets", () => {
  it("search across two events, ordered by name; expand=item on the search (test_search, test_search_multiple_lists)", async () => {
    const v = await venue();
    const list = await v.list();
    const second = await secondEvent(v);
    const peter = await v.sell({ email: "a@dummy.test", positions: [{ item: v.ticket.id, attendee_name: "Peter" }] });
    const john = (
      await second.sell({ email: "b@dummy.test", positions: [{ item: second.item.id, attendee_name: "John" }] })
    ).positions[0];
    await v.sell({ email: "c@elsewhere.test", positions: [{ item: v.ticket.id, attendee_name: "Aaron" }] });
    const org = `/api/v1/organizers/${v.orgSlug}`;
    const found = await v.client.get(
      `${org}/checkinrpc/search/?list=${list.id}&list=${second.list.id}&search=dummy.test&ordering=attendee_name`,
    );
    expect(found.status).toBe(200);
    expect(found.body.results.map((p: Json) => p.id)).toEqual([john.id, peter.id]);
    const expanded = await v.client.get(
      `${org}/checkinrpc/search/?list=${list.id}&search=${peter.secret.slice(0, 9)}&expand=item`,
    );
    expect(expanded.body.results).toHaveLength(1);
    expect(expanded.body.results[0].item).toEqual((await v.client.get(`${v.path}/items/${v.ticket.id}/`)).body);
  });

  it("a list's tickets ordered by last check-in and by name (an add-on under its parent's name) (test_list_all_items_positions)", async () => {
    const v = await venue();
    const list = await v.list();
    const workshop = await v.item({ name: { en: "Workshop" } });
    await v.quota({ size: 10, items: [workshop.id] });
    const order = await v.order({
      positions: [
        { item: v.ticket.id, positionid: 1, attendee_name: "Peter" },
        { item: workshop.id, positionid: 2, addon_to: 1 },
        { item: workshop.id, positionid: 3, attendee_name: "Michael" },
      ],
    });
    const [peter, addon, michael] = order.positions;
    const ids = async (q: string) =>
      (await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?${q}`)).body.results.map((p: Json) => p.id);
    expect(await ids("ordering=attendee_name,positionid")).toEqual([michael.id, peter.id, addon.id]);
    expect(await ids("ordering=-attendee_name,positionid")).toEqual([peter.id, addon.id, michael.id]);
    await v.redeem({ secret: michael.secret, lists: [list.id], datetime: "2030-06-01T18:00:00Z" });
    await v.redeem({ secret: peter.secret, lists: [list.id], datetime: "2030-06-01T19:00:00Z" });
    expect(await ids("ordering=last_checked_in")).toEqual([addon.id, michael.id, peter.id]);
    expect(await ids("ordering=-last_checked_in,positionid")).toEqual([peter.id, michael.id, addon.id]);
  });

  it("a dated list lists its date's tickets, a limited list its products' (test_list_all_items_positions_by_subevent, test_list_limited_items_positions)", async () => {
    const v = await venue({ series: true });
    const one = await v.subevent({ name: { en: "One" } });
    const two = await v.subevent({ name: { en: "Two" }, date_from: "2030-08-01T19:00:00Z" });
    const extra = await v.item({ name: { en: "Parking" }, admission: false });
    for (const d of [one, two]) await v.quota({ subevent: d.id, size: 10, items: [v.ticket.id, extra.id] });
    const order = await v.order({
      positions: [
        { item: v.ticket.id, subevent: one.id, positionid: 1 },
        { item: extra.id, subevent: one.id, positionid: 2, addon_to: 1 },
        { item: v.ticket.id, subevent: two.id, positionid: 3 },
      ],
    });
    const [first, parking, second] = order.positions;
    const ids = async (listId: number) =>
      (await v.client.get(`${v.path}/checkinlists/${listId}/positions/?ordering=positionid`)).body.results.map(
        (p: Json) => p.id,
      );
    expect(await ids((await v.list({ name: "One", subevent: one.id })).id)).toEqual([first.id, parking.id]);
    expect(await ids((await v.list({ name: "All" })).id)).toEqual([first.id, parking.id, second.id]);
    expect(
      await ids((await v.list({ name: "Tickets", all_products: false, limit_products: [v.ticket.id] })).id),
    ).toEqual([first.id, second.id]);
  });

  it("expand=variation on a list's tickets (test_expand)", async () => {
    const v = await venue();
    const list = await v.list();
    const item = await v.item({ name: { en: "Shirt" }, has_variations: true, variations: [{ value: { en: "XL" } }] });
    await v.quota({ size: 5, items: [item.id], variations: [item.variations[0].id] });
    const pos = await v.sell({ positions: [{ item: item.id, variation: item.variations[0].id }] });
    const r = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/${pos.id}/?expand=variation`);
    expect(r.status).toBe(200);
    expect(r.body.variation).toEqual(
      (await v.client.get(`${v.path}/items/${item.id}/variations/${item.variations[0].id}/`)).body,
    );
    expect(r.body.variation.value).toEqual({ en: "XL" });
  });

  it("the check-in history filters auto_checked_in and created_before (test_history)", async () => {
    const v = await venue();
    const list = await v.list({ auto_checkin_sales_channels: ["web"] });
    const auto = await v.sell();
    const hand = await v.sell({ sales_channel: "resellers" });
    await v.redeem({ secret: hand.secret, lists: [list.id] });
    const history = async (q: string) =>
      (await v.client.get(`${v.path}/checkins/?${q}`)).body.results.map((c: Json) => c.position);
    expect(await history("auto_checked_in=true")).toEqual([auto.id]);
    expect(await history("auto_checked_in=false")).toEqual([hand.id]);
    const [row] = await db()
      .select()
      .from(checkins)
      .where(and(eq(checkins.positionId, hand.id), eq(checkins.listId, list.id)));
    expect(await history(`created_before=${encodeURIComponent(new Date(row!.created).toISOString())}`)).toEqual([
      auto.id,
    ]);
    expect(
      await history(`created_before=${encodeURIComponent(new Date(row!.created + 1).toISOString())}`),
    ).toHaveLength(2);
  });
});

describe("base/test_checkin.py: decisions no other test shows", () => {
  it("dates: another date's ticket is refused with product; a list without a date admits every date, and time rules use the ticket's date (test_checkin_invalid_subevent, test_checkin_all_subevents, test_rules_isafter_subevent)", async () => {
    const v = await venue({ series: true });
    const past = await v.subevent({ name: { en: "Past" }, date_from: "2020-01-01T19:00:00Z" });
    const future = await v.subevent({ name: { en: "Future" }, date_from: "2040-01-01T19:00:00Z" });
    for (const d of [past, future]) await v.quota({ subevent: d.id, size: 10, items: [v.ticket.id] });
    const sellFor = async (d: Json) =>
      (await v.order({ positions: [{ item: v.ticket.id, subevent: d.id }] })).positions[0];
    const onFuture = await v.list({ name: "Future only", subevent: future.id });
    const pastTicket = await sellFor(past);
    expect((await v.redeem({ secret: pastTicket.secret, lists: [onFuture.id] })).body.reason).toBe("product");
    const all = await v.list({ name: "All dates" });
    expect((await v.redeem({ secret: pastTicket.secret, lists: [all.id] })).status).toBe(201);
    // a time rule "after admission" against the ticket's date: a past date passes, a future one is refused
    const ruled = await v.list({
      name: "Ruled",
      rules: { isAfter: [{ var: "now" }, { buildTime: ["date_admission"] }, null] },
    });
    expect((await v.redeem({ secret: (await sellFor(past)).secret, lists: [ruled.id] })).status).toBe(201);
    expect((await v.redeem({ secret: (await sellFor(future)).secret, lists: [ruled.id] })).body.reason).toBe("rules");
  });

  it("exits: exit-entry-exit and entry-exit-exit pass; an entry uploaded late is ordered by its time (test_exit_does_not_invalidate, test_multi_exit, test_single_entry_after_exit_ordered_by_date)", async () => {
    const v = await venue();
    const list = await v.list({ allow_entry_after_exit: true });
    const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();
    const a = await v.sell();
    for (const type of ["exit", "entry", "exit"])
      expect((await v.redeem({ secret: a.secret, lists: [list.id], type })).status, type).toBe(201);
    const b = await v.sell();
    for (const type of ["entry", "exit", "exit"])
      expect((await v.redeem({ secret: b.secret, lists: [list.id], type })).status, type).toBe(201);
    // an exit 5 minutes ago recorded first, an entry 10 minutes ago uploaded later: the last passage is the exit
    const c = await v.sell();
    expect((await v.redeem({ secret: c.secret, lists: [list.id], type: "exit", datetime: at(5) })).status).toBe(201);
    expect((await v.redeem({ secret: c.secret, lists: [list.id], datetime: at(10), force: true })).status).toBe(201);
    expect((await v.redeem({ secret: c.secret, lists: [list.id] })).status).toBe(201);
  });

  it("no automatic exit for a ticket that entered after exit_all_at (test_auto_check_out_only_if_checked_in_before_exit_all_at)", async () => {
    const v = await venue();
    const at = Date.now() - 3_600_000;
    const list = await v.list({ exit_all_at: new Date(at).toISOString() });
    const early = await v.sell();
    const late = await v.sell();
    await v.redeem({ secret: early.secret, lists: [list.id], datetime: new Date(at - 60_000).toISOString() });
    await v.redeem({ secret: late.secret, lists: [list.id], datetime: new Date(at + 60_000).toISOString() });
    await runDurableObjectAlarm(eventObject(env, v.eventId));
    const autoExits = await db()
      .select()
      .from(checkins)
      .where(and(eq(checkins.listId, list.id), eq(checkins.autoCheckedIn, true)));
    expect(autoExits.map((x) => x.positionId)).toEqual([early.id]);
  });
});
