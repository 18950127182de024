/**
 * A real scanner's sync, replayed: the calls pretixSCAN makes through pretix/libpretixsync
 * (SyncManager, its sync adapters, PretixApi, OnlineCheckProvider), in its order, with its
 * query strings and bodies, checking what the library reads of each answer (docs/clients.md
 * has the table). Calls of the device endpoints that another part of the service answers
 * (initialize, update, info) are not replayed here. Also the lists the sync reads of features
 * the service does not have (api/scanner-sync.ts): always empty, in pretix's shape.
 */
import { describe, expect, it } from "vitest";
import { type ApiResponse, type Client, seedOrganizer, seedTeam } from "../harness";
import { venue } from "../helpers/checkin";

/** libpretixsync's PretixApi treats answers like this (apiCall): what it raises, or the JSON it hands on. */
function libraryReads(
  r: ApiResponse,
): { kind: "data"; code: number; data: any } | { kind: "not_modified" } | { kind: "not_found" } | { kind: "error" } {
  if (r.status >= 500) return { kind: "error" };
  if (r.status === 404 && !r.text.startsWith("{")) return { kind: "not_found" };
  if (r.status === 304) return { kind: "not_modified" };
  if (r.status === 403 || r.status === 409 || r.status >= 405) return { kind: "error" };
  return { kind: "data", code: r.status, data: r.status === 204 ? null : JSON.parse(r.text) };
}

/** BaseDownloadSyncAdapter.downloadData: pages until `next` is null; every page must carry `count` and `results`. */
async function downloadAll(client: Client, url: string, headers: Record<string, string> = {}) {
  const pages: ApiResponse[] = [];
  const results: any[] = [];
  let next: string | null = url;
  while (next) {
    const r = await client.get(next, { headers: pages.length === 0 ? headers : {} });
    pages.push(r);
    const read = libraryReads(r);
    if (read.kind !== "data") return { first: r, pages, results, read };
    expect(typeof read.data.count).toBe("number");
    expect(Array.isArray(read.data.results)).toBe(true);
    results.push(...read.data.results);
    next = read.data.next;
  }
  return { first: pages[0]!, pages, results, read: { kind: "data" as const } };
}

describe("pretixSCAN's sync against this service", () => {
  it("downloads, syncs incrementally, scans online, uploads offline scans and failed scans", {
    timeout: 120_000,
  }, async () => {
    const v = await venue();
    const list = await v.list({ name: "Entrance" });
    await v.list({ name: "VIP", all_products: false, limit_products: [v.ticket.id], include_pending: true });
    // more orders than one page: the sync follows `next`
    const sold: any[] = [];
    for (let i = 0; i < 6; i++)
      sold.push(
        ...(await Promise.all(
          Array.from({ length: 9 }, (_, j) =>
            v.order({
              email: `guest${i}-${j}@example.org`,
              positions: [{ item: v.ticket.id, attendee_name: `Guest ${i}-${j}` }],
            }),
          ),
        )),
      );
    expect(sold.length).toBe(54);
    const scan = v.scanner;
    const org = `/api/v1/organizers/${v.orgSlug}`;

    // SyncManager.checkEventSelection
    const selection = await scan.get(
      `/api/v1/device/eventselection?current_event=${v.eventSlug}&current_checkinlist=${list.id}`,
    );
    expect([200, 304, 404]).toContain(selection.status);

    // AllSubEventsSyncAdapter: the organizer's dates, X-Page-Generated kept for the next run
    const subs = await downloadAll(scan, `${org}/subevents/`);
    expect(subs.read.kind).toBe("data");
    // (without X-Page-Generated here the library simply fetches the dates in full each run)

    // EventSyncAdapter: the event
    const ev = libraryReads(await scan.get(`${org}/events/${v.eventSlug}/`));
    expect(ev.kind).toBe("data");
    if (ev.kind === "data")
      expect(ev.data).toMatchObject({
        slug: v.eventSlug,
        currency: "EUR",
        has_subevents: false,
        live: expect.any(Boolean),
        date_from: expect.any(String),
      });

    // conditional adapters: categories, items, questions, check-in lists (If-Modified-Since on the next run)
    for (const path of [
      "categories/",
      "items/",
      "questions/",
      "checkinlists/?exclude=checkin_count&exclude=position_count",
    ]) {
      const first = await downloadAll(scan, `${v.path}/${path}`);
      expect(first.read.kind, path).toBe("data");
      const lm = first.first.headers.get("last-modified");
      if (lm)
        expect(
          libraryReads(await scan.get(`${v.path}/${path}`, { headers: { "If-Modified-Since": lm } })).kind,
          path,
        ).toBe("not_modified");
      // after a switch of dates the library sends a Java date text to force a full answer
      expect(
        (await scan.get(`${v.path}/${path}`, { headers: { "If-Modified-Since": "Tue Nov 24 07:10:00 UTC 2026" } }))
          .status,
        path,
      ).toBe(200);
    }
    const lists = await downloadAll(scan, `${v.path}/checkinlists/?exclude=checkin_count&exclude=position_count`);
    expect(lists.results.find((l) => l.id === list.id)).toEqual(
      expect.objectContaining({
        id: list.id,
        name: "Entrance",
        all_products: true,
        include_pending: false,
        subevent: null,
        limit_products: [],
      }),
    );
    expect(lists.results[0]).not.toHaveProperty("checkin_count");

    // badge layouts, revoked and blocked secrets, reusable media: empty lists in pretix's shape
    for (const url of [
      `${v.path}/badgelayouts/`,
      `${v.path}/badgeitems/`,
      `${v.path}/revokedsecrets/`,
      `${v.path}/blockedsecrets/`,
      `${org}/reusablemedia/`,
    ]) {
      const r = await downloadAll(scan, url);
      expect(r.read.kind, url).toBe("data");
      expect(r.results).toEqual([]);
    }

    // OrderSyncAdapter: the first full run, following `next`
    const query =
      "testmode=false&exclude=downloads&exclude=payment_date&exclude=payment_provider&exclude=fees&exclude=positions.downloads&exclude=payments&exclude=refunds&pdf_data=true";
    const full = await downloadAll(scan, `${v.path}/orders/?${query}`);
    expect(full.pages.length).toBe(2);
    expect(full.results.length).toBe(54);
    const generated = full.first.headers.get("x-page-generated")!;
    expect(generated).toBeTruthy();
    const o = full.results[0];
    expect(o).toEqual(
      expect.objectContaining({
        code: expect.any(String),
        status: "p",
        datetime: expect.any(String),
        email: expect.any(String),
        checkin_attention: false,
      }),
    );
    for (const gone of ["downloads", "fees", "payments", "refunds"]) expect(o).not.toHaveProperty(gone);
    expect(o.positions[0]).toEqual(
      expect.objectContaining({
        id: expect.any(Number),
        positionid: 1,
        item: v.ticket.id,
        secret: expect.any(String),
        attendee_name: expect.any(String),
        checkins: [],
      }),
    );
    expect(o.positions[0]).not.toHaveProperty("downloads");
    // an interrupted first run continues by creation time
    const continued = await downloadAll(
      scan,
      `${v.path}/orders/?${query}&ordering=datetime&created_since=${encodeURIComponent(full.results[49].datetime)}`,
    );
    expect(continued.results.length).toBeGreaterThanOrEqual(5);

    // nothing changed: the incremental run is empty
    const nothing = await downloadAll(
      scan,
      `${v.path}/orders/?${query}&ordering=-last_modified&modified_since=${encodeURIComponent(generated)}`,
    );
    expect(nothing.results).toEqual([]);

    // SettingsSyncAdapter
    expect(libraryReads(await scan.get(`${v.path}/settings/`)).kind).toBe("data");

    // OnlineCheckProvider (pretix ≥ 4.12): checkinrpc/redeem with the library's body
    const ticket = sold[3].positions[0];
    const body = {
      force: false,
      ignore_unpaid: false,
      nonce: "cHJldGl4c2NhbiBub25jZQ",
      type: "entry",
      source_type: "barcode",
      answers: {},
      questions_supported: true,
      canceled_supported: true,
      use_order_locale: false,
      secret: ticket.secret,
      lists: [list.id],
    };
    const redeemed = await scan.post(`${org}/checkinrpc/redeem/?expand=answers.question&pdf_data=true`, body);
    const read = libraryReads(redeemed);
    expect(read.kind).toBe("data");
    if (read.kind === "data") {
      expect(read.code).toBe(201);
      expect(read.data).toMatchObject({
        status: "ok",
        require_attention: false,
        checkin_texts: [],
        list: { event: v.eventSlug, include_pending: false },
      });
      expect(read.data.position).toMatchObject({
        item: v.ticket.id,
        variation: null,
        attendee_name: "Guest 0-3",
        seat: null,
        order: sold[3].code,
        positionid: 1,
        order__locale: "en",
      });
      expect(read.data.position.checkins.filter((c: { list: number }) => c.list === list.id)).toHaveLength(1);
    }
    // the same ticket again: USED; an unknown code: INVALID (a 404 whose body is JSON)
    const used = libraryReads(
      await scan.post(`${org}/checkinrpc/redeem/?expand=answers.question`, { ...body, nonce: "another" }),
    );
    expect(used.kind === "data" && used.data.reason).toBe("already_redeemed");
    const unknown = await scan.post(`${org}/checkinrpc/redeem/?expand=answers.question`, {
      ...body,
      secret: "unknown-code",
      nonce: "third",
    });
    expect(unknown.status).toBe(404);
    expect(unknown.text.startsWith("{")).toBe(true);

    // another scanner's incremental sync now sees the order, with the check-in
    const changed = await downloadAll(
      scan,
      `${v.path}/orders/?${query}&ordering=-last_modified&modified_since=${encodeURIComponent(generated)}`,
    );
    expect(changed.results.map((x) => x.code)).toEqual([sold[3].code]);
    expect(changed.results[0].positions[0].checkins).toEqual([
      expect.objectContaining({ list: list.id, type: "entry", datetime: expect.any(String) }),
    ]);

    // older servers' form (pretix < 4.12): the per-list redeem with the secret in the path
    const legacyTicket = sold[4].positions[0];
    const legacy = await scan.post(
      `${v.path}/checkinlists/${list.id}/positions/${legacyTicket.secret}/redeem/?pdf_data=true`,
      { ...body, secret: undefined, lists: undefined },
    );
    expect(legacy.status).toBe(201);
    expect(legacy.body.status).toBe("ok");

    // search (checkinrpc) and the status screen
    const found = await scan.get(
      `${org}/checkinrpc/search/?ignore_status=true&page=1&search=${encodeURIComponent("Guest 1-2")}&list=${list.id}`,
    );
    expect(found.status).toBe(200);
    expect(found.body.results[0]).toMatchObject({
      attendee_name: "Guest 1-2",
      order__status: "p",
      require_attention: false,
      checkins: [],
    });
    const status = await scan.get(`${v.path}/checkinlists/${list.id}/status/`);
    expect(status.body).toMatchObject({ checkin_count: 2, position_count: 54, inside_count: 2 });

    // SyncManager.uploadCheckins: offline scans, forced, with the scanner's datetime; 400/404 are dropped, retried otherwise
    const offline = sold[5].positions[0];
    const upload = (nonce: string, type = "entry") =>
      scan.post(`${v.path}/checkinlists/${list.id}/positions/${offline.secret}/redeem/`, {
        datetime: "2030-06-01T19:12:03.000+02:00",
        force: true,
        ignore_unpaid: false,
        nonce,
        type,
        source_type: "barcode",
        answers: {},
        questions_supported: false,
        canceled_supported: true,
        use_order_locale: false,
      });
    expect((await upload("offline-1")).body.status).toBe("ok");
    expect((await upload("offline-1")).body.status).toBe("ok"); // the upload repeated: no second check-in
    expect((await upload("offline-2", "exit")).body.status).toBe("ok");
    const shown = await scan.get(`${v.path}/checkinlists/${list.id}/positions/${offline.id}/`);
    expect(shown.body.checkins.map((c: { type: string; datetime: string }) => [c.type, c.datetime])).toEqual([
      ["entry", "2030-06-01T17:12:03Z"],
      ["exit", "2030-06-01T17:12:03Z"],
    ]);
    const gone = await scan.post(`${v.path}/checkinlists/${list.id}/positions/no-such-secret/redeem/`, {
      force: true,
      nonce: "x",
    });
    expect(gone.status).toBe(404);

    // queued calls: failed scans of the offline mode
    const failed = await scan.post(`${v.path}/checkinlists/${list.id}/failed_checkins/`, {
      raw_barcode: "garbage",
      error_reason: "invalid",
      datetime: "2030-06-01T19:13:00+02:00",
      type: "entry",
      nonce: "f-1",
    });
    expect(failed.status).toBe(201);
  });
});

describe("badge layouts, badge items and reusable media", () => {
  it("an empty first page in pretix's shape for teams and devices, 404 past it, 403 without can_view_orders", async () => {
    const v = await venue();
    const org = `/api/v1/organizers/${v.orgSlug}`;
    const urls = [`${v.path}/badgelayouts/`, `${v.path}/badgeitems/`, `${org}/reusablemedia/`];
    const viewer = (await seedTeam(v.org.id, { permissions: ["can_view_orders"] })).client;
    const other = (await seedTeam(v.org.id, { permissions: ["can_change_items"] })).client;
    const stranger = await seedOrganizer();
    for (const url of urls) {
      for (const client of [v.client, viewer, v.scanner]) {
        const res = await client.get(url);
        expect(res.status, url).toBe(200);
        expect(res.body, url).toEqual({ count: 0, next: null, previous: null, results: [] });
      }
      const past = await v.client.get(`${url}?page=2`);
      expect(past.status, url).toBe(404);
      expect(past.body, url).toEqual({ detail: "Invalid page." });
      for (const client of [other, stranger.client]) {
        const refused = await client.get(url);
        expect(refused.status, url).toBe(403);
        expect(refused.body, url).toEqual({ detail: "You do not have permission to perform this action." });
      }
    }
  });
});
