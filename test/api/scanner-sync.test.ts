/**
 * A real scanner's sync, replayed: the calls pretixSCAN makes through pretix/libpretixsync
 * (SyncManager, its sync adapters, PretixApi, OnlineCheckProvider), in its order, with its
 * query strings and bodies, checking what the library reads of each answer (docs/clients.md
 * has the table). Calls of the device endpoints that another part of the service answers
 * (initialize, update, info) are not replayed here. Also the lists the sync reads of features
 * the service does not have (api/scanner-sync.ts): always empty, in pretix's shape.
 */
import { describe, expect, it } from "vitest";
import { anonymous, type ApiResponse, type Client, deviceClient, type Json, seedOrganizer, seedTeam } from "../harness";
import { venue } from "../helpers/checkin";
import { PNG } from "../helpers/items";

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

    // kiosk mode and turnstiles: a check-in whose gate did not open is annulled by its nonce
    const turnstile = sold[6].positions[0];
    const gate = { ...body, secret: turnstile.secret, nonce: "turnstile-1" };
    expect((await scan.post(`${org}/checkinrpc/redeem/`, gate)).body.status).toBe("ok");
    const annul = await scan.post(`${org}/checkinrpc/annul/`, {
      nonce: "turnstile-1",
      lists: [list.id],
      error_explanation: "Turnstile did not turn",
    });
    expect([annul.status, annul.body]).toEqual([200, { status: "ok" }]);
    // the ticket is not used: the next scan admits it
    expect((await scan.post(`${org}/checkinrpc/redeem/`, { ...gate, nonce: "turnstile-2" })).body.status).toBe("ok");
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

// ---- every key the library reads with get… ----

/**
 * How the library reads a key (org.json's `get…`, which throws when the key is missing or has
 * another type): `long`/`int` getLong/getInt, `string` getString, `boolean` getBoolean, `object`
 * getJSONObject, `array` getJSONArray, `long[]` getJSONArray then getLong of each element,
 * `present` any value but null (getString of an object: Android's org.json gives its JSON text).
 * A trailing `?` marks a key the library tests with `isNull` first (null passes); `~` one it
 * tests with `has` first (absent passes). A nested spec is getJSONObject and its keys; `[spec]`
 * getJSONArray and each element's keys.
 */
type Kind = "long" | "int" | "string" | "boolean" | "object" | "array" | "long[]" | "present";
type Read = Kind | `${Kind}?` | `${Kind}~` | `${Kind}~?` | Reads | [Reads];
type Reads = { [key: string]: Read };

function kindOk(kind: Kind, v: unknown): boolean {
  switch (kind) {
    case "long":
    case "int":
      return typeof v === "number" && Number.isInteger(v);
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "object":
      return typeof v === "object" && v !== null && !Array.isArray(v);
    case "array":
      return Array.isArray(v);
    case "long[]":
      return Array.isArray(v) && v.every((x) => typeof x === "number" && Number.isInteger(x));
    case "present":
      return v !== null && v !== undefined;
  }
}

/** What the library would fail on when it reads `obj` as `spec` (empty: nothing). */
function unreadable(where: string, obj: unknown, spec: Reads): string[] {
  if (typeof obj !== "object" || obj === null || Array.isArray(obj)) return [`${where}: not an object`];
  const o = obj as Record<string, unknown>;
  const out: string[] = [];
  for (const [key, read] of Object.entries(spec)) {
    const at = `${where}.${key}`;
    if (Array.isArray(read)) {
      if (!Array.isArray(o[key])) out.push(`${at}: not an array`);
      else (o[key] as unknown[]).forEach((el, i) => out.push(...unreadable(`${at}[${i}]`, el, read[0])));
    } else if (typeof read === "object") {
      out.push(...unreadable(at, o[key], read));
    } else {
      const kind = read.replace(/[~?]+$/, "") as Kind;
      if (read.includes("~") && !(key in o)) continue;
      if (read.endsWith("?") && o[key] === null) continue;
      if (!(key in o)) out.push(`${at}: missing`);
      else if (!kindOk(kind, o[key])) out.push(`${at}: ${JSON.stringify(o[key])} is no ${kind}`);
    }
  }
  return out;
}

/** Holds an answer to what the library reads of it. */
function expectReads(where: string, obj: unknown, spec: Reads) {
  expect(unreadable(where, obj, spec)).toEqual([]);
}

/** A list's page (BaseDownloadSyncAdapter): `count`, `results`, `next` (isNull, then getString). */
const PAGE: Reads = { count: "int", results: "array", next: "string?" };

// the keys per endpoint; each comment names where the library reads them (docs/clients.md has the same table)

/** SetupManager.initialize; the gate (`name`, `id`) only when there is one (has, isNull): the service has no gates */
const INITIALIZE: Reads = {
  api_token: "string",
  organizer: "string",
  device_id: "long",
  unique_serial: "string",
  gate: "object~?",
};
/** SyncManager.bumpKnownVersion (device/update); the gate only when there is one (has, isNull) */
const DEVICE_UPDATE: Reads = { name: "string", gate: "object~?" };
/** SyncManager.fetchDeviceInfo */
const DEVICE_INFO: Reads = {
  server: { version: { pretix_numeric: "long" } },
  device: { name: "string", gate: "object~?" },
};
/** SyncManager.checkEventSelection (200) */
const EVENT_SELECTION: Reads = { event: { slug: "string", name: "present" } };
/** EventManager.parseEvents (the setup's event list; subevents read `event`, `id`, `active` instead of `slug`, `live`) */
const SETUP_EVENT: Reads = {
  name: "object",
  slug: "string",
  date_from: "string",
  live: "boolean",
  best_availability_state: "long~?",
};
const SETUP_SUBEVENT: Reads = { name: "object", event: "string", date_from: "string", id: "long", active: "boolean" };
/** AllSubEventsSyncAdapter, SubEventSyncAdapter, SubEventExtensions.toModel (offline scans) */
const SUBEVENT: Reads = {
  id: "long",
  event: "string",
  date_from: "string",
  date_to: "string?",
  active: "boolean",
  name: "object",
  item_price_overrides: [{ item: "long" }],
  variation_price_overrides: [{ variation: "long" }],
  seat_category_mapping: "object",
};
/** EventSyncAdapter, EventExtensions.toModel, AsyncCheckProvider (date_from) */
const EVENT: Reads = {
  slug: "string",
  currency: "string",
  date_from: "string",
  date_to: "string?",
  has_subevents: "boolean",
  live: "boolean",
  name: "object",
  seat_category_mapping: "object",
};
/** ItemCategorySyncAdapter, ItemCategoryExtensions.toModel */
const CATEGORY: Reads = { id: "long", position: "long", name: "object", description: "object?" };
/** ItemSyncAdapter, ItemExtensions.toModel, Item (variations, bundles, add-ons) */
const ITEM: Reads = {
  id: "long",
  position: "long",
  name: "object",
  description: "object?",
  has_variations: "boolean",
  personalized: "boolean~",
  require_voucher: "boolean",
  hide_without_voucher: "boolean",
  issue_giftcard: "boolean",
  default_price: "string",
  free_price: "boolean?",
  require_bundling: "boolean",
  validity_dynamic_start_choice_day_limit: "long~?",
  variations: [{ id: "long", active: "boolean", position: "long", price: "string", value: "object" }],
  bundles: [{ bundled_item: "long", bundled_variation: "long?", count: "int", designated_price: "string?" }],
  addons: [
    {
      addon_category: "long",
      min_count: "int",
      max_count: "int",
      position: "int",
      multi_allowed: "boolean",
      price_included: "boolean",
    },
  ],
};
/** QuestionSyncAdapter, QuestionExtensions.toModel (also questions of a redeem answer and expanded answers) */
const QUESTION: Reads = {
  id: "long",
  position: "long",
  required: "boolean",
  items: "long[]",
  ask_during_checkin: "boolean",
  show_during_checkin: "boolean",
  type: "string",
  identifier: "string",
  question: "object",
  options: [{ id: "long", position: "long", identifier: "string", answer: "object" }],
  dependency_question: "long?",
};
/** CheckInListSyncAdapter, CheckInListExtensions.toModel */
const CHECKIN_LIST: Reads = {
  id: "long",
  limit_products: "long[]",
  allow_multiple_entries: "boolean",
  allow_entry_after_exit: "boolean",
};
/** RevokedTicketSecretSyncAdapter, BlockedTicketSecretSyncAdapter */
const REVOKED: Reads = { id: "long", secret: "string", created: "string" };
const BLOCKED: Reads = { id: "long", secret: "string", updated: "string", blocked: "boolean" };
/** OrderSyncAdapter, OrderExtensions.toModel (payments and refunds: excluded by the library's own query) */
const ORDER: Reads = {
  code: "string",
  status: "string",
  datetime: "string",
  testmode: "boolean",
  require_approval: "boolean",
  total: "string",
  locale: "string",
  positions: [
    {
      id: "long",
      item: "long",
      positionid: "long",
      addon_to: "long?",
      price: "string",
      tax_rate: "string",
      tax_value: "string",
      valid_from: "string~?",
      valid_until: "string~?",
      checkins: [{ list: "long", datetime: "string" }],
      answers: [{ question: "long", answer: "string", options: "long[]" }],
    },
  ],
};
/** OnlineCheckProvider.check: the redeem answer's position (besides what the order sync reads) */
const SCANNED_POSITION: Reads = {
  item: "long",
  checkins: [{ list: "long", datetime: "string" }],
  order__locale: "string~",
};
/** OnlineCheckProvider.search */
const SEARCHED: Reads = { item: "long", checkins: "array" };
/** OnlineCheckProvider.parseStatusResponse */
const STATUS: Reads = {
  event: { name: "string" },
  position_count: "int",
  checkin_count: "int",
  inside_count: "int~",
  items: [
    {
      id: "long",
      name: "string",
      position_count: "int",
      checkin_count: "int",
      admission: "boolean",
      variations: [{ id: "long", value: "string", position_count: "int", checkin_count: "int" }],
    },
  ],
};

describe("every key pretixSCAN's library reads with get…", () => {
  it("a series with variations, add-ons, bundles and questions at the door: setup, sync, online scans with answers, search, status", {
    timeout: 120_000,
  }, async () => {
    const v = await venue({ series: true });
    const org = `/api/v1/organizers/${v.orgSlug}`;
    // signed secrets: offline scanners check them with the event's keys, re-issued ones are revoked
    expect((await v.client.patch(`${v.path}/settings/`, { ticket_secret_generator: "pretix_sig1" })).status).toBe(200);
    // a date that runs now: the event selection suggests it
    const hour = 3_600_000;
    const iso = (ms: number) => new Date(ms).toISOString();
    const day = await v.subevent({
      name: { en: "Today" },
      date_from: iso(Date.now() - hour),
      date_to: iso(Date.now() + 10 * hour),
    });
    const addons = (await v.client.post(`${v.path}/categories/`, { name: { en: "Extras" }, is_addon: true })).body;
    const shirt = await v.item({
      name: { en: "Shirt" },
      admission: false,
      category: addons.id,
      has_variations: true,
      variations: [{ value: { en: "S" } }, { value: { en: "M" }, default_price: "25.00", checkin_text: "Hand out M" }],
    });
    const pass = await v.item({
      name: { en: "Pass" },
      checkin_text: "Wristband",
      addons: [{ addon_category: addons.id, max_count: 2 }],
      bundles: [{ bundled_item: shirt.id, bundled_variation: shirt.variations[0].id, designated_price: "0.00" }],
    });
    await v.quota({
      subevent: day.id,
      size: 50,
      items: [pass.id, shirt.id, v.ticket.id],
      variations: shirt.variations.map((x: Json) => x.id),
    });
    const size = await v.post("/questions/", {
      question: { en: "Size" },
      type: "C",
      required: true,
      items: [pass.id],
      ask_during_checkin: true,
      show_during_checkin: true,
      options: [{ answer: { en: "S" } }, { answer: { en: "M" } }],
    });
    const photo = await v.post("/questions/", {
      question: { en: "Photo" },
      type: "F",
      required: true,
      items: [pass.id],
      ask_during_checkin: true,
    });
    const list = await v.list({ name: "Door", subevent: day.id });
    const live = await v.client.patch(`${v.path}/`, { live: true, plugins: ["pretix.plugins.banktransfer"] });
    expect(live.status, JSON.stringify(live.body)).toBe(200);
    const order = await v.order({
      positions: [
        { item: pass.id, subevent: day.id, positionid: 1, attendee_name: "Ada" },
        { item: shirt.id, variation: shirt.variations[1].id, subevent: day.id, positionid: 2, addon_to: 1 },
      ],
    });
    const [ticket] = order.positions;

    // the device, made by the organizer and initialized by the app (SetupManager)
    const made = await v.client.post(`${org}/devices/`, {
      name: "Door 1",
      all_events: true,
      security_profile: "pretixscan",
    });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const init = await anonymous.post("/api/v1/device/initialize", {
      token: made.body.initialization_token,
      hardware_brand: "Zebra",
      hardware_model: "TC25",
      os_name: "Android",
      os_version: "13",
      software_brand: "pretixSCAN Android",
      software_version: "1.21.0",
    });
    expect(init.status, JSON.stringify(init.body)).toBe(200);
    expectReads("initialize", init.body, INITIALIZE);
    const scan = deviceClient(init.body.api_token);

    // EventManager: the events and dates to choose from
    const since = encodeURIComponent(iso(Date.now() - 24 * hour));
    const events = libraryReads(await scan.get(`${org}/events/?ends_after=${since}&ordering=date_from`));
    expect(events.kind).toBe("data");
    if (events.kind === "data") {
      expectReads("events", events.data, PAGE);
      for (const e of events.data.results) expectReads("events[]", e, SETUP_EVENT);
    }
    const dates = libraryReads(await scan.get(`${org}/subevents/?ends_after=${since}&ordering=date_from&active=true`));
    expect(dates.kind === "data" && dates.data.results.length, "dates").toBe(1);
    if (dates.kind === "data") for (const d of dates.data.results) expectReads("subevents[]", d, SETUP_SUBEVENT);

    // SyncManager: event selection, device info, then the download
    const selection = await scan.get(
      `/api/v1/device/eventselection?current_event=${v.eventSlug}&current_subevent=${day.id}&current_checkinlist=${list.id}`,
    );
    expect([200, 304, 404]).toContain(selection.status);
    // a device still on the event without its date is told to switch (200)
    const switched = await scan.get(`/api/v1/device/eventselection?current_event=${v.eventSlug}`);
    expect(switched.status).toBe(200);
    expectReads("eventselection", switched.body, EVENT_SELECTION);
    const info = libraryReads(await scan.get("/api/v1/device/info"));
    expect(info.kind).toBe("data");
    if (info.kind === "data") expectReads("device/info", info.data, DEVICE_INFO);

    const subs = await downloadAll(scan, `${org}/subevents/`);
    expect(subs.results).toHaveLength(1);
    for (const s of subs.results) expectReads("subevents", s, SUBEVENT);
    const ev = libraryReads(await scan.get(`${org}/events/${v.eventSlug}/`));
    expect(ev.kind).toBe("data");
    if (ev.kind === "data") expectReads("event", ev.data, EVENT);
    for (const [path, spec, n] of [
      ["categories/", CATEGORY, 1],
      ["items/", ITEM, 3],
      ["questions/", QUESTION, 2],
      [`checkinlists/?exclude=checkin_count&exclude=position_count&subevent_match=${day.id}`, CHECKIN_LIST, 1],
    ] as const) {
      const r = await downloadAll(scan, `${v.path}/${path}`);
      expect(r.results.length, path).toBe(n);
      for (const x of r.results) expectReads(path, x, spec);
    }
    // the revoked and blocked secrets, after a re-issue and a block
    const other = await v.order({ positions: [{ item: v.ticket.id, subevent: day.id }] });
    await v.client.post(`${v.path}/orderpositions/${other.positions[0].id}/regenerate_secrets/`);
    await v.client.post(`${v.path}/orderpositions/${other.positions[0].id}/add_block/`, { name: "admin" });
    const revoked = await downloadAll(scan, `${v.path}/revokedsecrets/`);
    expect(revoked.results.length, "revoked").toBeGreaterThan(0);
    for (const x of revoked.results) expectReads("revokedsecrets", x, REVOKED);
    const blocked = await downloadAll(scan, `${v.path}/blockedsecrets/`);
    expect(blocked.results.length).toBeGreaterThan(0);
    for (const x of blocked.results) expectReads("blockedsecrets", x, BLOCKED);
    const query = `testmode=false&exclude=downloads&exclude=payment_date&exclude=payment_provider&exclude=fees&exclude=positions.downloads&exclude=payments&exclude=refunds&pdf_data=true&subevent_after=${encodeURIComponent(iso(Date.now() - 14 * 24 * hour).replace(/\.\d+Z$/, "+0000"))}`;
    const orders = await downloadAll(scan, `${v.path}/orders/?${query}`);
    expect(orders.results.map((o) => o.code)).toContain(order.code);
    for (const o of orders.results) expectReads(`orders ${o.code}`, o, ORDER);
    // OrderCleanup: the selected date on its own
    const single = libraryReads(await scan.get(`${v.path}/subevents/${day.id}/`));
    expect(single.kind).toBe("data");
    if (single.kind === "data") expectReads("subevent", single.data, SUBEVENT);
    // SyncManager.bumpKnownVersion after an app update
    const updated = libraryReads(
      await scan.post("/api/v1/device/update", {
        hardware_brand: "Zebra",
        hardware_model: "TC25",
        os_name: "Android",
        os_version: "13",
        software_brand: "pretixSCAN Android",
        software_version: "1.22.0",
      }),
    );
    expect(updated.kind).toBe("data");
    if (updated.kind === "data") expectReads("device/update", updated.data, DEVICE_UPDATE);

    // OnlineCheckProvider: the door asks, the scanner answers (the photo uploaded first, PretixApi.uploadFile)
    const body = {
      force: false,
      ignore_unpaid: false,
      nonce: "n-1",
      type: "entry",
      source_type: "barcode",
      answers: {},
      questions_supported: true,
      canceled_supported: true,
      use_order_locale: false,
      secret: ticket.secret,
      lists: [list.id],
    };
    const asked = libraryReads(await scan.post(`${org}/checkinrpc/redeem/?expand=answers.question`, body));
    expect(asked.kind).toBe("data");
    if (asked.kind === "data") {
      expect(asked.data).toMatchObject({ status: "incomplete", list: { event: v.eventSlug } });
      expect(asked.data.questions.map((q: Json) => q.id)).toEqual([size.id, photo.id]);
      for (const q of asked.data.questions) expectReads("redeem questions[]", q, QUESTION);
    }
    const uploaded = await scan.request("POST", "/api/v1/upload", undefined, {
      raw: PNG,
      headers: { "Content-Type": "image/png", "Content-Disposition": 'attachment; filename="face.png"' },
    });
    expect(uploaded.status).toBe(201);
    expectReads("upload", uploaded.body, { id: "string" });
    const ok = libraryReads(
      await scan.post(`${org}/checkinrpc/redeem/?expand=answers.question&pdf_data=true`, {
        ...body,
        nonce: "n-2",
        answers: { [size.id]: String(size.options[1].id), [photo.id]: uploaded.body.id },
      }),
    );
    expect(ok.kind).toBe("data");
    if (ok.kind === "data") {
      expect(ok.code).toBe(201);
      expect(ok.data).toMatchObject({ status: "ok", checkin_texts: ["Wristband"], list: { event: v.eventSlug } });
      expectReads("redeem", ok.data, {
        status: "string",
        list: { event: "string", include_pending: "boolean" },
        checkin_texts: "array~",
      });
      expectReads("redeem position", ok.data.position, {
        ...SCANNED_POSITION,
        answers: [{ answer: "string", question: QUESTION }],
      });
      // the answers pretixSCAN shows: those of questions with show_during_checkin
      const shown = ok.data.position.answers.filter((a: Json) => a.question.show_during_checkin);
      expect(shown.map((a: Json) => a.answer)).toEqual(["M"]);
    }
    const used = libraryReads(
      await scan.post(`${org}/checkinrpc/redeem/?expand=answers.question`, { ...body, nonce: "n-3" }),
    );
    if (used.kind === "data") {
      expectReads("redeem refused", used.data, {
        status: "string",
        reason_explanation: "string~?",
        list: { event: "string", include_pending: "boolean" },
      });
      expectReads("redeem refused position", used.data.position, SCANNED_POSITION);
    }

    // search and the status screen
    const found = libraryReads(
      await scan.get(
        `${org}/checkinrpc/search/?ignore_status=true&page=1&search=${encodeURIComponent("Ada")}&list=${list.id}`,
      ),
    );
    // the ticket and its add-on, found by the name the add-on shows
    expect(found.kind === "data" && found.data.results.length, "search").toBe(2);
    if (found.kind === "data") for (const r of found.data.results) expectReads("search", r, SEARCHED);
    const status = libraryReads(await scan.get(`${v.path}/checkinlists/${list.id}/status/`));
    expect(status.kind).toBe("data");
    if (status.kind === "data") {
      expectReads("status", status.data, STATUS);
      expect(status.data.items.find((i: Json) => i.id === shirt.id).variations).toHaveLength(2);
    }
  });
});
