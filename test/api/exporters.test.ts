/**
 * Exporters (spec "Exporters", the export rows of "States and transitions", "Limits"; pretix docs
 * exporters.rst): the lists, input checks, the job in steps on the exports queue (driven by hand
 * through the pool's createMessageBatch / getQueueResult), the download URL's states, the limit
 * of two running exports, messages delivered twice, failure, expiry, and the files' contents.
 */
import type { ExportMessage } from "../../src/lib/queues";
import { env } from "cloudflare:workers";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { events, exportJobs } from "../../src/db/schema";
import { runHousekeeping } from "../../src/jobs/housekeeping";
import { db, HARNESS_GROUP, type Json, seedOrganizer, seedTeam, tokenClient } from "../harness";
import { appendToUpload, newUpload } from "../../src/services/exports/upload";
import { captureExportMessages, deliver, drain, exportEnv, keepMessagesOf, sheetRows, unzip } from "../helpers/exports";
import { venue, type Venue } from "../helpers/checkin";
import { type Shop, shop } from "../helpers/sales";
import { checkFileContract } from "../helpers/contract";

let sent: ExportMessage[];
beforeEach(() => {
  sent = captureExportMessages();
});
afterEach(() => {
  vi.restoreAllMocks();
  vi.useRealTimers();
});

const SMALL_STEPS = exportEnv({ EXPORT_STEP_ROWS: "2" });

type Sold = { s: Shop; ticket: Json; orders: Json[] };

/** An event with five orders: four paid (one with two positions), one pending. */
async function soldShop(opts: { series?: boolean } = {}): Promise<Sold> {
  const s = await shop(opts);
  const ticket = await s.item({ name: { en: "Ticket" }, default_price: "20.00" });
  await s.quota({ size: 100, items: [ticket.id], ...(opts.series ? { subevent: (await s.subevent()).id } : {}) });
  const orders: Json[] = [];
  const names = ["Zoë Ärger", "Anna Bell", "Иван Петров", 'Bob "Quote", Jr.'];
  for (let i = 0; i < 4; i++) {
    const res = await s.client.post(`${s.path}/orders/`, {
      email: `buyer${i}@example.org`,
      status: "p",
      payment_provider: "manual",
      invoice_address: {
        company: i === 1 ? "ACME" : "",
        name_parts: { full_name: `Buyer ${i}` },
        city: "Berlin",
        country: "DE",
      },
      positions: [
        { item: ticket.id, attendee_name_parts: { full_name: names[i] }, attendee_email: `guest${i}@example.org` },
        ...(i === 0 ? [{ item: ticket.id, attendee_name_parts: { full_name: "=SUM(A1)" } }] : []),
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    orders.push(res.body);
  }
  const pending = await s.client.post(`${s.path}/orders/`, {
    email: "late@example.org",
    payment_provider: "manual",
    positions: [{ item: ticket.id }],
  });
  expect(pending.status).toBe(201);
  orders.push(pending.body);
  return { s, ticket, orders };
}

async function run(s: Shop, identifier: string, body: unknown, base = s.path) {
  return s.client.post(`${base}/exporters/${identifier}/run/`, body);
}

async function fileOf(
  client: Shop["client"],
  url: string,
): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const { exports } = await import("cloudflare:workers");
  const res = await exports.default.fetch(new Request(url, { headers: { Authorization: client.authorization! } }));
  const answer = { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
  await checkFileContract("GET", url, answer);
  return answer;
}

const csvText = (b: Uint8Array) => new TextDecoder().decode(b);

describe("exporter lists", () => {
  it("lists the event's exporters with pretix's identifiers, names and inputs", async () => {
    const { s } = await soldShop();
    const res = await s.client.get(`${s.path}/exporters/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      count: 4,
      next: null,
      previous: null,
      results: [
        {
          identifier: "checkinlist",
          verbose_name: "Check-in list",
          input_parameters: [
            { name: "_format", required: true, choices: ["xlsx", "default", "csv-excel", "semicolon"] },
            { name: "list", required: true },
            { name: "secrets", required: false },
            { name: "attention_only", required: false },
            { name: "status", required: false, choices: ["", "1", "2", "3", "0"] },
            { name: "sort", required: false, choices: ["name", "code"] },
            { name: "questions", required: false },
          ],
        },
        {
          identifier: "invoicedata",
          verbose_name: "Invoice data",
          input_parameters: [
            {
              name: "_format",
              required: true,
              choices: [
                "xlsx",
                "invoices:default",
                "invoices:excel",
                "invoices:semicolon",
                "lines:default",
                "lines:excel",
                "lines:semicolon",
              ],
            },
            { name: "date_from", required: false },
            { name: "date_to", required: false },
            { name: "payment_provider", required: false, choices: ["", "giftcard", "manual"] },
          ],
        },
        {
          identifier: "orderlist",
          verbose_name: "Order data",
          input_parameters: [
            {
              name: "_format",
              required: true,
              choices: [
                "xlsx",
                "orders:default",
                "orders:excel",
                "orders:semicolon",
                "positions:default",
                "positions:excel",
                "positions:semicolon",
                "fees:default",
                "fees:excel",
                "fees:semicolon",
              ],
            },
            { name: "paid_only", required: false },
            { name: "include_payment_amounts", required: false },
            { name: "group_multiple_choice", required: false },
            { name: "date_from", required: false },
            { name: "date_to", required: false },
          ],
        },
        { identifier: "json", verbose_name: "Order data (JSON)", input_parameters: [] },
      ],
    });
  });

  it("adds the date inputs for a series and the name parts to the sort choices", async () => {
    const s = await shop({ series: true });
    expect((await s.client.patch(`${s.path}/settings/`, { name_scheme: "given_family" })).status).toBe(200);
    const res = await s.client.get(`${s.path}/exporters/`);
    const byId = Object.fromEntries(
      res.body.results.map((e: Json) => [e.identifier, e.input_parameters.map((p: Json) => p.name)]),
    );
    expect(byId.orderlist).toContain("event_date_from");
    expect(byId.orderlist).toContain("event_date_to");
    expect(byId.checkinlist.slice(0, 4)).toEqual(["_format", "list", "date_from", "date_to"]);
    const sort = res.body.results
      .find((e: Json) => e.identifier === "checkinlist")
      .input_parameters.find((p: Json) => p.name === "sort");
    expect(sort.choices).toEqual(["name", "code", "name:given_name", "name:family_name"]);
  });

  it("lists organizer exporters by the caller's organizer permissions", async () => {
    const org = await seedOrganizer();
    const all = await org.client.get(`/api/v1/organizers/${org.slug}/exporters/`);
    expect(all.status).toBe(200);
    expect(all.body.results.map((e: Json) => [e.identifier, e.verbose_name])).toEqual([
      ["customerlist", "Customer accounts"],
      ["giftcardlist", "Gift cards"],
      ["invoicedata", "Invoice data"],
      ["orderlist", "Order data"],
    ]);
    expect(all.body.results[2].input_parameters[0]).toEqual({ name: "events", required: false });
    expect(all.body.results[3].input_parameters[0]).toEqual({ name: "events", required: false });
    expect(all.body.results[1].input_parameters).toEqual([
      { name: "_format", required: true, choices: ["xlsx", "default", "csv-excel", "semicolon"] },
      { name: "date", required: false },
      { name: "testmode", required: false, choices: ["", "yes", "no"] },
      { name: "state", required: false, choices: ["", "empty", "valid_value", "expired_value", "expired"] },
    ]);
    const viewer = await seedTeam(org.id, { permissions: ["can_view_orders"] });
    const limited = await viewer.client.get(`/api/v1/organizers/${org.slug}/exporters/`);
    expect(limited.body.results.map((e: Json) => e.identifier)).toEqual(["invoicedata", "orderlist"]);
    const refused = await viewer.client.post(`/api/v1/organizers/${org.slug}/exporters/giftcardlist/run/`, {
      _format: "default",
    });
    expect(refused.status).toBe(404);
    expect(await db().select().from(exportJobs).where(eq(exportJobs.organizerId, org.id))).toHaveLength(0);
  });
});

describe("running an export: input checks", () => {
  it("answers 400 with field errors and creates nothing", async () => {
    const { s } = await soldShop();
    const list = await s.post("/checkinlists/", { name: "Entrance", all_products: true });
    const other = await shop();
    const foreignList = await other.post("/checkinlists/", { name: "Elsewhere", all_products: true });
    const cases: [string, unknown, Json][] = [
      ["orderlist", {}, { _format: ["This field is required."] }],
      ["orderlist", { _format: "pdf" }, { _format: ['"pdf" is not a valid choice.'] }],
      ["orderlist", { _format: "xlsx", paid_only: "maybe" }, { paid_only: ["Must be a valid boolean."] }],
      [
        "orderlist",
        { _format: "xlsx", date_from: "01.02.2030" },
        { date_from: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] },
      ],
      [
        "orderlist",
        { _format: "xlsx", event_date_from: "2030-01-01" },
        { fields: ["Additional fields not allowed: ['event_date_from']."] },
      ],
      [
        "checkinlist",
        { _format: "default", list: list.id, questions: [999999] },
        { questions: ['Invalid pk "999999" - object does not exist.'] },
      ],
      [
        "checkinlist",
        { _format: "default", list: list.id, sort: "name:given_name" },
        { sort: ['"name:given_name" is not a valid choice.'] },
      ],
      // pretix's `list`: a required ModelChoiceField of the event's check-in lists (PrimaryKeyRelatedField in its API)
      ["checkinlist", { _format: "default" }, { list: ["This field is required."] }],
      ["checkinlist", { _format: "default", list: null }, { list: ["This field may not be null."] }],
      ["checkinlist", { _format: "default", list: 999999 }, { list: ['Invalid pk "999999" - object does not exist.'] }],
      [
        "checkinlist",
        { _format: "default", list: foreignList.id },
        { list: [`Invalid pk "${foreignList.id}" - object does not exist.`] },
      ],
      [
        "checkinlist",
        { _format: "default", list: "entrance" },
        { list: ["Incorrect type. Expected pk value, received str."] },
      ],
      [
        "checkinlist",
        { _format: "default", list: true },
        { list: ["Incorrect type. Expected pk value, received bool."] },
      ],
      [
        "checkinlist",
        { _format: "default", list: [list.id] },
        { list: ["Incorrect type. Expected pk value, received list."] },
      ],
      [
        "checkinlist",
        { _format: "default", list: 1.5 },
        { list: ["Incorrect type. Expected pk value, received float."] },
      ],
      ["checkinlist", { _format: "default", list: list.id, status: "4" }, { status: ['"4" is not a valid choice.'] }],
      [
        "checkinlist",
        { _format: "default", list: list.id, date_from: "2030-01-01" },
        { fields: ["Additional fields not allowed: ['date_from']."] },
      ],
      [
        "checkinlist",
        { list: "x", status: "9" },
        {
          _format: ["This field is required."],
          list: ["Incorrect type. Expected pk value, received str."],
          status: ['"9" is not a valid choice.'],
        },
      ],
      ["json", { anything: 1 }, { fields: ["Additional fields not allowed: ['anything']."] }],
    ];
    for (const [identifier, body, errors] of cases) {
      const res = await run(s, identifier, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    expect(await run(s, "nosuchexporter", {})).toMatchObject({ status: 404 });
    expect(await db().select().from(exportJobs).where(eq(exportJobs.organizerId, s.org.id))).toHaveLength(0);
    expect(sent).toHaveLength(0);
  });

  it("limits organizer exports to the events the caller may see orders of", async () => {
    const a = await soldShop();
    const orgPath = `/api/v1/organizers/${a.s.orgSlug}`;
    const other = await a.s.client.post(`${orgPath}/events/`, {
      name: { en: "Other" },
      slug: "other",
      currency: "EUR",
      date_from: "2030-01-01T10:00:00Z",
    });
    expect(other.status).toBe(201);
    const otherRow = await db().select().from(events).where(eq(events.slug, "other")).get();
    const limited = await seedTeam(a.s.org.id, {
      permissions: ["can_view_orders"],
      allEvents: false,
      events: [otherRow!.id],
    });
    const refused = await limited.client.post(`${orgPath}/exporters/orderlist/run/`, {
      _format: "orders:default",
      events: [a.s.eventSlug],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ events: [`Object with slug=${a.s.eventSlug} does not exist.`] });
    expect(
      (await limited.client.post(`${orgPath}/exporters/orderlist/run/`, { _format: "orders:default", events: [] }))
        .body,
    ).toEqual({
      events: ["This list may not be empty."],
    });
    // without `events`: the events the caller may see, so none of the first event's orders
    const ok = await limited.client.post(`${orgPath}/exporters/orderlist/run/`, { _format: "orders:default" });
    expect(ok.status).toBe(202);
    await drain(sent);
    const file = await fileOf(limited.client, ok.body.download);
    expect(file.status).toBe(200);
    expect(csvText(file.bytes).trim().split("\r\n")).toHaveLength(1);
    // another organizer's administrator gets nothing of this organizer
    const foreign = await seedOrganizer();
    expect((await foreign.client.get(ok.body.download)).status).toBe(403);
    expect((await foreign.client.post(`${orgPath}/exporters/orderlist/run/`, { _format: "xlsx" })).status).toBe(403);
  });
});

describe("the job and the download URL", () => {
  it("reports waiting, then running with a percentage per step, then serves the file", async () => {
    const { s, orders } = await soldShop();
    const res = await run(s, "orderlist", { _format: "positions:default", paid_only: true });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      download: expect.stringMatching(
        new RegExp(`^http://ticketing\\.test${s.path}/exporters/orderlist/download/[0-9a-f-]{36}/$`),
      ),
    });
    expect(sent).toEqual([{ kind: "export", exportId: expect.any(String), step: 0, group: HARNESS_GROUP }]);

    const waiting = await s.client.get(res.body.download);
    expect(waiting.status).toBe(409);
    expect(waiting.body).toEqual({ status: "waiting", percentage: null });
    expect(waiting.headers.get("Retry-After")).toBe("1");

    // 5 paid positions, 2 per step: 40 %, 80 %, then done
    const seen: Json[] = [];
    while (sent.length) {
      const result = await deliver(sent.shift()!, SMALL_STEPS);
      expect(result.explicitAcks).toHaveLength(1);
      const poll = await s.client.get(res.body.download);
      seen.push(poll.status === 409 ? poll.body : poll.status);
    }
    expect(seen).toEqual([{ status: "running", percentage: 40 }, { status: "running", percentage: 80 }, 200]);

    const file = await fileOf(s.client, res.body.download);
    expect(file.headers.get("Content-Type")).toBe("text/csv");
    expect(file.headers.get("Content-Disposition")).toBe(`attachment; filename="${s.eventSlug}_orders.csv"`);
    const lines = csvText(file.bytes).split("\r\n");
    expect(lines[0]).toBe(
      '"Event slug","Order code","Position ID","Status","Email","Phone number","Order date","Order time","Product","Variation","Price","Tax rate","Tax rule","Tax value","Attendee name","Attendee email","Voucher","Pseudonymization ID","Seat ID","Seat name","Seat zone","Seat row","Seat number","Order comment","Company","Invoice address name","Address","ZIP code","City","Country","State","VAT ID","Sales channel","Order locale","Payment providers"',
    );
    expect(lines).toHaveLength(7); // header, five positions, the last line break
    const o0 = orders[0];
    expect(lines[1]).toBe(
      `"${s.eventSlug}","${o0.code}",1,"paid","buyer0@example.org","","${o0.datetime.slice(0, 10)}","${o0.datetime.slice(11, 19)}","Ticket","","20.00","0.00","","0.00","Zoë Ärger","guest0@example.org","","${o0.positions[0].pseudonymization_id}","","","","","","","","Buyer 0","","","Berlin","DE","","","web","en","manual"`,
    );
    // a value that a spreadsheet would run as a formula is defused, as pretix's defusedcsv does
    expect(lines[2]).toContain(`"'=SUM(A1)"`);
    expect(lines.some((l) => l.includes(`"Bob ""Quote"", Jr."`))).toBe(true);
    expect(lines.some((l) => l.includes("late@example.org"))).toBe(false);
  });

  it("writes the chunks of every step into one file whatever the step size", async () => {
    const { s } = await soldShop();
    const whole = await run(s, "orderlist", { _format: "positions:semicolon" });
    expect(await drain(sent)).toBe(1);
    const reference = csvText((await fileOf(s.client, whole.body.download)).bytes);
    expect(reference.split("\r\n")).toHaveLength(8);
    for (const [rows, steps] of [
      ["1", 7],
      ["2", 4],
      ["3", 3],
    ] as const) {
      const res = await run(s, "orderlist", { _format: "positions:semicolon" });
      expect(await drain(sent, exportEnv({ EXPORT_STEP_ROWS: rows }))).toBe(steps);
      expect(csvText((await fileOf(s.client, res.body.download)).bytes)).toBe(reference);
    }
  });

  it("uploads a large file in equal parts of R2's minimum size across steps (multipart upload)", async () => {
    const MiB = 1024 * 1024;
    const key = `exports/test-${crypto.randomUUID()}/big.csv`;
    const chunk = (n: number, fill: number) => new Uint8Array(n).fill(fill);
    const opts = { partBytes: 5 * MiB, contentType: "text/csv", filename: "big.csv" };
    let state = newUpload(key);
    const obsolete: string[] = [];
    const sizes = [3 * MiB, 3 * MiB, 6 * MiB, 1 * MiB];
    for (const [i, n] of sizes.entries()) {
      const r = await appendToUpload(env.FILES, state, chunk(n, 65 + i), {
        ...opts,
        step: i,
        final: i === sizes.length - 1,
      });
      state = r.state;
      obsolete.push(...r.obsolete);
      if (i === 0) expect(state.pending).toHaveLength(1);
      if (i === 1) expect(state.parts).toHaveLength(1);
    }
    expect(state.parts).toHaveLength(3);
    const object = await env.FILES.get(key);
    const bytes = new Uint8Array(await object!.arrayBuffer());
    expect(bytes.length).toBe(13 * MiB);
    expect([bytes[0], bytes[3 * MiB], bytes[6 * MiB], bytes[12 * MiB]]).toEqual([65, 66, 67, 68]);
    expect(object!.httpMetadata?.contentType).toBe("text/csv");
    expect(obsolete.length).toBeGreaterThan(0);
  });

  it("delivers a message twice, one after the other and at once: each step acts once, one file", async () => {
    const { s } = await soldShop();
    const res = await run(s, "orderlist", { _format: "positions:default" });
    const first = sent.shift()!;
    await deliver(first, SMALL_STEPS);
    const again = await deliver(first, SMALL_STEPS);
    expect(again.explicitAcks).toHaveLength(1);
    expect(sent).toEqual([{ kind: "export", exportId: first.exportId, step: 1, group: HARNESS_GROUP }]);
    // the next step delivered twice at the same moment: one runs it, the other comes back later
    const second = sent.shift()!;
    const both = await Promise.all([deliver(second, SMALL_STEPS), deliver(second, SMALL_STEPS)]);
    expect(both.flatMap((r) => r.explicitAcks)).toHaveLength(1);
    expect(both.flatMap((r) => r.retryMessages)).toEqual([expect.objectContaining({ msgId: expect.any(String) })]);
    expect(sent).toEqual([{ kind: "export", exportId: first.exportId, step: 2, group: HARNESS_GROUP }]);
    await drain(sent, SMALL_STEPS);
    // the retried copy of step 1 finds the step done and does nothing
    expect((await deliver(second, SMALL_STEPS)).explicitAcks).toHaveLength(1);
    expect(sent).toHaveLength(0);
    const lines = csvText((await fileOf(s.client, res.body.download)).bytes)
      .trim()
      .split("\r\n");
    expect(lines).toHaveLength(7);
    expect(new Set(lines).size).toBe(7);
    const objects = await env.FILES.list({ prefix: `exports/${first.exportId}/` });
    expect(objects.objects.map((o) => o.key)).toEqual([`exports/${first.exportId}/${s.eventSlug}_orders.csv`]);
  });

  it("ends as failed (410 with status and message) when a step keeps failing", async () => {
    const { s } = await soldShop();
    const res = await run(s, "orderlist", { _format: "orders:default" });
    vi.spyOn(env.FILES, "put").mockRejectedValue(new Error("R2 is down"));
    const message = sent.shift()!;
    for (let attempt = 1; attempt <= 4; attempt++) {
      const result = await deliver(message, env as never, attempt);
      expect(result.retryMessages).toHaveLength(1);
      expect((await s.client.get(res.body.download)).status).toBe(409);
    }
    const last = await deliver(message, env as never, 5);
    expect(last.explicitAcks).toHaveLength(1);
    const failed = await s.client.get(res.body.download);
    expect(failed.status).toBe(410);
    expect(failed.body).toEqual({ status: "failed", message: "Internal error" });
    expect(failed.headers.get("Retry-After")).toBeNull();
    expect(sent).toHaveLength(0);
    // a failed export no longer counts towards the limit
    vi.mocked(env.FILES.put).mockRestore();
    expect((await run(s, "json", {})).status).toBe(202);
    expect((await run(s, "json", {})).status).toBe(202);
  });

  it("answers 404 for an unknown id, another exporter's or event's id, and an expired export (which the cron removes)", async () => {
    const { s } = await soldShop();
    const res = await run(s, "json", {});
    await drain(sent);
    expect((await s.client.get(res.body.download)).status).toBe(200);
    const id = res.body.download.split("/").at(-2);
    expect((await s.client.get(`${s.path}/exporters/json/download/00000000-0000-4000-8000-000000000000/`)).status).toBe(
      404,
    );
    expect((await s.client.get(`${s.path}/exporters/orderlist/download/${id}/`)).status).toBe(404);
    const other = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
      name: { en: "B" },
      slug: "b-event",
      currency: "EUR",
      date_from: "2030-01-01T10:00:00Z",
    });
    expect(
      (await s.client.get(`/api/v1/organizers/${s.orgSlug}/events/${other.body.slug}/exporters/json/download/${id}/`))
        .status,
    ).toBe(404);
    expect((await s.client.get(`/api/v1/organizers/${s.orgSlug}/exporters/json/download/${id}/`)).status).toBe(404);

    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 24 * 3_600_000 + 1000);
    const expired = await s.client.get(res.body.download);
    expect(expired.status).toBe(404);
    expect(expired.body).toEqual({ detail: "Not found." });
    await runHousekeeping(env as never, Date.now());
    expect(await db().select().from(exportJobs).where(eq(exportJobs.id, id))).toHaveLength(0);
    expect((await env.FILES.list({ prefix: `exports/${id}/` })).objects).toHaveLength(0);
  });

  it("sends the message again for an export whose message was lost (cron)", async () => {
    const { s } = await soldShop();
    const res = await run(s, "json", {});
    sent.length = 0; // lost
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 11 * 60_000);
    await runHousekeeping(env as never, Date.now());
    const exportId = res.body.download.split("/").at(-2);
    keepMessagesOf(sent, exportId);
    expect(sent).toEqual([{ kind: "export", exportId, step: 0, group: HARNESS_GROUP }]);
    vi.useRealTimers();
    await drain(sent);
    expect((await s.client.get(res.body.download)).status).toBe(200);
  });
});

describe("another organizer's events and exports", () => {
  const NOT_FOUND = { detail: "Not found." };
  const orgRun = (s: Shop, identifier: string, body: unknown) =>
    s.client.post(`/api/v1/organizers/${s.orgSlug}/exporters/${identifier}/run/`, body);
  const jobsOf = (organizerId: number) => db().select().from(exportJobs).where(eq(exportJobs.organizerId, organizerId));

  it("an organizer-level export naming another organizer's event is refused with 400 and creates no job", async () => {
    const a = await soldShop();
    const b = await shop();
    for (const identifier of ["orderlist", "invoicedata"]) {
      const format = identifier === "orderlist" ? "orders:default" : "invoices:default";
      const foreign = await orgRun(b, identifier, { _format: format, events: [a.s.eventSlug] });
      expect(foreign.status).toBe(400);
      expect(foreign.body).toEqual({ events: [`Object with slug=${a.s.eventSlug} does not exist.`] });
      // beside one of its own events: refused all the same
      const mixed = await orgRun(b, identifier, { _format: format, events: [b.eventSlug, a.s.eventSlug] });
      expect(mixed.status).toBe(400);
      expect(mixed.body).toEqual({ events: [`Object with slug=${a.s.eventSlug} does not exist.`] });
    }
    expect(await jobsOf(b.org.id)).toHaveLength(0);
    expect(sent).toEqual([]);
    // its own event alone is accepted (the refusal above is about the foreign slug)
    const own = await orgRun(b, "orderlist", { _format: "orders:default", events: [b.eventSlug] });
    expect(own.status).toBe(202);
    expect((await jobsOf(b.org.id)).map((j) => j.params.events)).toEqual([
      [(await db().select().from(events).where(eq(events.slug, b.eventSlug)).get())!.id],
    ]);
  });

  it("a job of one organizer is never found, polled or downloaded through another organizer's paths", async () => {
    const a = await soldShop();
    const b = await shop();
    const aOrg = `/api/v1/organizers/${a.s.orgSlug}`;
    const bOrg = `/api/v1/organizers/${b.orgSlug}`;
    const orgJob = await orgRun(a.s, "orderlist", { _format: "orders:default" });
    const eventJob = await run(a.s, "orderlist", { _format: "orders:default" });
    expect([orgJob.status, eventJob.status]).toEqual([202, 202]);
    const orgId = orgJob.body.download.split("/").at(-2) as string;
    const eventId = eventJob.body.download.split("/").at(-2) as string;

    /** Every path of organizer B a guessed id could be tried at, for each of A's job ids and an unknown one. */
    const guesses = () =>
      [orgId, eventId, "00000000-0000-4000-8000-000000000000"].flatMap((id) => [
        `${bOrg}/exporters/orderlist/download/${id}/`,
        `${bOrg}/events/${b.eventSlug}/exporters/orderlist/download/${id}/`,
      ]);
    const expectNothingForB = async (state: string) => {
      for (const path of guesses()) {
        const res = await b.client.get(path);
        expect([state, path, res.status]).toEqual([state, path, 404]);
        expect(res.body).toEqual(NOT_FOUND);
      }
    };

    // waiting: A polls its jobs, B finds nothing
    expect((await a.s.client.get(orgJob.body.download)).body).toEqual({ status: "waiting", percentage: null });
    expect((await a.s.client.get(eventJob.body.download)).body).toEqual({ status: "waiting", percentage: null });
    await expectNothingForB("waiting");
    // running
    await db().update(exportJobs).set({ state: "running", percentage: 50 }).where(eq(exportJobs.id, orgId));
    expect((await a.s.client.get(orgJob.body.download)).body).toEqual({ status: "running", percentage: 50 });
    await expectNothingForB("running");
    await db().update(exportJobs).set({ state: "waiting", percentage: null }).where(eq(exportJobs.id, orgId));
    // done: A downloads, B still finds nothing
    await drain(sent);
    expect((await fileOf(a.s.client, orgJob.body.download)).status).toBe(200);
    expect((await fileOf(a.s.client, eventJob.body.download)).status).toBe(200);
    await expectNothingForB("done");
    // failed
    await db().update(exportJobs).set({ state: "failed", message: "broken" }).where(eq(exportJobs.id, orgId));
    expect((await a.s.client.get(orgJob.body.download)).status).toBe(410);
    await expectNothingForB("failed");
    // B's own job under the same path is found: the 404s above are about the foreign ids
    const own = await orgRun(b, "orderlist", { _format: "orders:default" });
    expect((await b.client.get(own.body.download)).status).toBe(409);
    // and A's paths stay closed to B's administrator
    expect((await b.client.get(`${aOrg}/exporters/orderlist/download/${orgId}/`)).status).toBe(403);
  });
});

describe("at most two exports of a caller at once", () => {
  it("refuses a third with 429 while two run, also when they are started at the same moment", async () => {
    const { s } = await soldShop();
    const answers = await Promise.all(Array.from({ length: 5 }, () => run(s, "orderlist", { _format: "xlsx" })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([202, 202, 429, 429, 429]);
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused.body).toEqual({
      detail: "At most 2 exports may run at the same time. Retry when one of them has finished.",
    });
    expect(refused.headers.get("Retry-After")).toBe("5");
    expect(await db().select().from(exportJobs).where(eq(exportJobs.organizerId, s.org.id))).toHaveLength(2);
    // another credential is not held up
    const colleague = await seedTeam(s.org.id, { permissions: ["can_view_orders"] });
    expect((await colleague.client.post(`${s.path}/exporters/json/run/`, {})).status).toBe(202);
    // once one has finished, the caller may start another
    await deliver(sent.shift()!);
    expect((await run(s, "json", {})).status).toBe(202);
    expect((await run(s, "json", {})).status).toBe(429);
  });
});

describe("files", () => {
  it("orders sheet: totals, fees, tax rate columns, payment providers", async () => {
    const { s, orders } = await soldShop();
    const res = await run(s, "orderlist", { _format: "orders:excel", include_payment_amounts: true });
    await drain(sent);
    const lines = csvText((await fileOf(s.client, res.body.download)).bytes)
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe(
      "Event slug,Order code,Order total,Status,Email,Phone number,Order date,Order time,Company,Name,Address,ZIP code,City,Country,State,VAT ID,Date of last payment,Fees,Order locale,Gross at 0.00 % tax,Net at 0.00 % tax,Tax value at 0.00 % tax,Sales channel,Requires special attention,Comment,Positions,Payment providers,Paid by manual",
    );
    expect(lines).toHaveLength(6);
    const first = lines.find((l) => l.includes(orders[0].code))!;
    expect(first).toBe(
      `${s.eventSlug},${orders[0].code},40.00,paid,buyer0@example.org,,${orders[0].datetime.slice(0, 10)},${orders[0].datetime.slice(11, 19)},,Buyer 0,,,Berlin,DE,,,${orders[0].payments[0]?.payment_date?.slice(0, 10) ?? orders[0].datetime.slice(0, 10)},0.00,en,40.00,40.00,0.00,web,No,,2,manual,40.00`,
    );
    const pending = lines.find((l) => l.includes(orders[4].code))!;
    expect(pending).toContain(",pending,late@example.org,");
    expect(pending.endsWith(",1,manual,0.00")).toBe(true);
  });

  it("XLSX: one workbook with a sheet per list that spreadsheet programs read", async () => {
    const { s, orders } = await soldShop();
    const res = await run(s, "orderlist", { _format: "xlsx" });
    await drain(sent, SMALL_STEPS);
    const file = await fileOf(s.client, res.body.download);
    expect(file.headers.get("Content-Type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    const parts = await unzip(file.bytes);
    expect([...parts.keys()].sort()).toEqual([
      "[Content_Types].xml",
      "_rels/.rels",
      "xl/_rels/workbook.xml.rels",
      "xl/styles.xml",
      "xl/workbook.xml",
      "xl/worksheets/sheet1.xml",
      "xl/worksheets/sheet2.xml",
      "xl/worksheets/sheet3.xml",
    ]);
    expect(parts.get("xl/workbook.xml")).toContain(
      '<sheet name="Orders" sheetId="1" r:id="rId1"/><sheet name="Order positions" sheetId="2" r:id="rId2"/><sheet name="Order fees" sheetId="3" r:id="rId3"/>',
    );
    const positions = sheetRows(parts.get("xl/worksheets/sheet2.xml")!);
    expect(positions).toHaveLength(7);
    expect(positions[0]!.slice(0, 3)).toEqual(["Event slug", "Order code", "Position ID"]);
    const names = positions.slice(1).map((r) => r[14]);
    expect(names).toEqual(expect.arrayContaining(["Zoë Ärger", "=SUM(A1)", "Иван Петров", 'Bob "Quote", Jr.']));
    const orderRows = sheetRows(parts.get("xl/worksheets/sheet1.xml")!);
    expect(orderRows.find((r) => r[1] === orders[0].code)![2]).toBe("40.00");
    expect(sheetRows(parts.get("xl/worksheets/sheet3.xml")!)).toHaveLength(1);
  });

  it("json: the event's catalog and every order with positions, fees and answers", async () => {
    const { s, ticket, orders } = await soldShop();
    const res = await run(s, "json", {});
    await drain(sent, SMALL_STEPS);
    const file = await fileOf(s.client, res.body.download);
    expect(file.headers.get("Content-Type")).toBe("application/json");
    expect(file.headers.get("Content-Disposition")).toBe(`attachment; filename="${s.eventSlug}_pretixdata.json"`);
    const doc = JSON.parse(csvText(file.bytes));
    expect(doc.event).toMatchObject({
      name: "Concert",
      slug: s.eventSlug,
      organizer: { slug: s.orgSlug },
      categories: [],
      questions: [],
      subevents: [],
    });
    expect(doc.event.items).toEqual([
      expect.objectContaining({ id: ticket.id, name: "Ticket", price: "20.00", variations: [] }),
    ]);
    expect(doc.event.quotas).toEqual([
      { id: expect.any(Number), size: 100, subevent: null, items: [ticket.id], variations: [] },
    ]);
    expect(doc.event.orders.map((o: Json) => o.code)).toEqual(orders.map((o) => o.code));
    expect(doc.event.orders[0]).toMatchObject({
      code: orders[0].code,
      status: "p",
      email: "buyer0@example.org",
      total: "40.00",
      fees: [],
      positions: [
        {
          positionid: 1,
          item: ticket.id,
          price: "20.00",
          attendee_name: "Zoë Ärger",
          attendee_email: "guest0@example.org",
          secret: orders[0].positions[0].secret,
          answers: [],
        },
        { positionid: 2, attendee_name: "=SUM(A1)" },
      ],
    });
  });

  it("checkinlist of a list of all products without scans: the positions of paid orders by name, the check-in columns empty", async () => {
    const { s, orders } = await soldShop();
    const list = await s.post("/checkinlists/", { name: "Entrance", all_products: true });
    const res = await run(s, "checkinlist", { _format: "default", list: list.id, secrets: true });
    await drain(sent, SMALL_STEPS);
    const lines = csvText((await fileOf(s.client, res.body.download)).bytes)
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe(
      '"Order code","Attendee name","Product","Price","Checked in","Checked out","Automatically checked in","Secret","E-mail","Company","Voucher code","Order date","Requires special attention","Comment","Seat ID","Seat name","Seat zone","Seat row","Seat number"',
    );
    const names = lines.slice(1).map((l) => l.split('","')[1]);
    expect(names).toEqual(["'=SUM(A1)", "Anna Bell", 'Bob ""Quote"", Jr.', "Zoë Ärger", "Иван Петров"]);
    const anna = lines.find((l) => l.includes("Anna Bell"))!;
    expect(anna).toBe(
      `"${orders[1].code}","Anna Bell","Ticket","20.00","","","No","${orders[1].positions[0].secret}","guest1@example.org","ACME","","${orders[1].datetime.slice(0, 10)}","No","","","","","",""`,
    );
    // the list as a string of digits, as pretix's PrimaryKeyRelatedField takes it
    const byCode = await run(s, "checkinlist", { _format: "semicolon", list: String(list.id), sort: "code" });
    expect(byCode.status).toBe(202);
    await drain(sent);
    const codes = csvText((await fileOf(s.client, byCode.body.download)).bytes)
      .trim()
      .split("\r\n")
      .slice(1)
      .map((l) => l.split(";")[0]);
    expect(codes).toEqual([...codes].sort());
  });

  it("giftcardlist and customerlist at organizer level", async () => {
    const org = await seedOrganizer();
    const orgPath = `/api/v1/organizers/${org.slug}`;
    for (const card of [
      { secret: "GIFT-ONE", currency: "EUR", value: "25.00" },
      { secret: "GIFT-EMPTY", currency: "EUR", value: "0.00" },
      { secret: "GIFT-TEST", currency: "EUR", value: "5.00", testmode: true },
    ]) {
      const r = await org.client.post(`${orgPath}/giftcards/`, card);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const kim = await org.client.post(`${orgPath}/customers/`, {
      email: "kim@example.org",
      name_parts: { full_name: "Kim Lee" },
    });
    expect(kim.status, JSON.stringify(kim.body)).toBe(201);
    const client = { ...org.client, authorization: org.client.authorization } as Shop["client"];

    const cards = await org.client.post(`${orgPath}/exporters/giftcardlist/run/`, {
      _format: "csv-excel",
      testmode: "no",
      state: "valid_value",
    });
    expect(cards.status, JSON.stringify(cards.body)).toBe(202);
    await drain(sent);
    const lines = csvText((await fileOf(client, cards.body.download)).bytes)
      .trim()
      .split("\r\n");
    expect(lines[0]).toBe(
      "Gift card code,Test mode card,Creation date,Expiry date,Special terms and conditions,Currency,Current value,Created in order",
    );
    expect(lines.slice(1).map((l) => l.split(",")[0])).toEqual(["GIFT-ONE"]);
    expect(lines[1]).toMatch(/^GIFT-ONE,No,\d{4}-\d{2}-\d{2},,,EUR,25.00,$/);

    const everything = await org.client.post(`${orgPath}/exporters/giftcardlist/run/`, { _format: "csv-excel" });
    await drain(sent);
    expect(
      csvText((await fileOf(client, everything.body.download)).bytes)
        .trim()
        .split("\r\n"),
    ).toHaveLength(4);

    const people = await org.client.post(`${orgPath}/exporters/customerlist/run/`, { _format: "default" });
    expect(people.status).toBe(202);
    await drain(sent);
    const rows = csvText((await fileOf(client, people.body.download)).bytes)
      .trim()
      .split("\r\n");
    expect(rows[0]).toBe(
      '"Customer ID","External identifier","Email","Full name","Account active","Verified email address","Last login","Registration date","Language","Notes"',
    );
    expect(rows[1]).toMatch(
      /^"[A-Z0-9]+","","kim@example.org","Kim Lee","Yes","(Yes|No)","","\d{4}-\d{2}-\d{2}","en",""$/,
    );
    expect(rows).toHaveLength(2);
  });

  it("organizer orderlist: only the chosen events, with the event slug per row", async () => {
    const a = await soldShop();
    const orgPath = `/api/v1/organizers/${a.s.orgSlug}`;
    const res = await a.s.client.post(`${orgPath}/exporters/orderlist/run/`, {
      _format: "orders:default",
      events: [a.s.eventSlug],
    });
    expect(res.status).toBe(202);
    await drain(sent);
    const file = await fileOf(a.s.client, res.body.download);
    expect(file.headers.get("Content-Disposition")).toBe(`attachment; filename="${a.s.orgSlug}_orders.csv"`);
    const lines = csvText(file.bytes).trim().split("\r\n");
    expect(lines).toHaveLength(6);
    expect(lines.slice(1).every((l) => l.startsWith(`"${a.s.eventSlug}",`))).toBe(true);
    // a token of another organizer cannot read it, a client without access to the organizer neither
    expect((await tokenClient("nope").get(res.body.download)).status).toBe(401);
  });
});

describe("checkinlist with check-ins", () => {
  /** Runs an export to the end; the file's lines (CSV) without the last line break. */
  async function exportLines(s: Shop, identifier: string, body: Record<string, unknown>): Promise<string[]> {
    const res = await run(s, identifier, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    await drain(sent, SMALL_STEPS);
    const file = await fileOf(s.client, res.body.download);
    expect(file.status).toBe(200);
    return csvText(file.bytes).trim().split("\r\n");
  }

  const HEADER = '"Order code","Attendee name","Product","Price","Checked in","Checked out","Automatically checked in"';
  const TAIL =
    '"E-mail","Company","Voucher code","Order date","Requires special attention","Comment","Seat ID","Seat name","Seat zone","Seat row","Seat number"';

  type Door = {
    v: Venue;
    main: Json;
    auto: Json;
    pending: Json;
    parking: Json;
    anna: Json;
    bert: Json;
    cleo: Json;
    dora: Json;
  };

  /**
   * An event in Berlin with a ticket and a parking space; lists "Main" (tickets only), "Auto"
   * (all products, checks in what is sold on the web) and "Pending too" (tickets, with pending
   * orders). Paid orders of Anna (ticket and parking), Bert and Cleo, a pending one of Dora.
   * Scans on Main through checkinrpc/redeem: Anna came at 20:00 and left at 22:30 (Berlin
   * time), Bert came at 21:00 and stays (a refused scan of his at 23:00), Cleo never came.
   */
  /** The calendar date of an instant in the door's event (Europe/Berlin), as the exports write it. */
  const berlinDate = (iso: string) =>
    new Intl.DateTimeFormat("en-CA", {
      timeZone: "Europe/Berlin",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    }).format(new Date(iso));

  async function door(): Promise<Door> {
    const v = await venue({ event: { timezone: "Europe/Berlin" } });
    const parking = await v.item({ name: { en: "Parking" }, default_price: "5.00", admission: false });
    await v.quota({ size: 100, items: [parking.id] });
    const main = await v.list({ name: "Main", all_products: false, limit_products: [v.ticket.id] });
    const auto = await v.list({ name: "Auto", auto_checkin_sales_channels: ["web"] });
    const pending = await v.list({
      name: "Pending too",
      all_products: false,
      limit_products: [v.ticket.id],
      include_pending: true,
    });
    const person = (name: string, extra: Record<string, unknown>[] = []) => ({
      email: `${name.toLowerCase()}@example.org`,
      positions: [{ item: v.ticket.id, attendee_name_parts: { full_name: name } }, ...extra],
    });
    const anna = await v.order(person("Anna", [{ item: parking.id }]));
    const bert = await v.order(person("Bert"));
    const cleo = await v.order(person("Cleo"));
    const dora = await v.order({ ...person("Dora"), status: undefined });
    expect(dora.status).toBe("n");
    const scan = async (pos: Json, type: string, datetime: string, expected = 201) => {
      const r = await v.redeem({ secret: pos.secret, lists: [main.id], type, datetime });
      expect(r.status, JSON.stringify(r.body)).toBe(expected);
    };
    await scan(anna.positions[0], "entry", "2030-06-01T18:00:00Z");
    await scan(anna.positions[0], "exit", "2030-06-01T20:30:00Z");
    await scan(bert.positions[0], "entry", "2030-06-01T19:00:00Z");
    await scan(bert.positions[0], "entry", "2030-06-01T21:00:00Z", 400); // already redeemed: a failed scan
    return { v, main, auto, pending, parking, anna, bert, cleo, dora };
  }

  it("fills the check-in columns from the chosen list's successful scans, in the event's timezone, for the list's products", async () => {
    const { v, main, anna, bert, cleo } = await door();
    const lines = await exportLines(v, "checkinlist", { _format: "default", list: main.id });
    expect(lines).toEqual([
      `${HEADER},${TAIL}`,
      `"${anna.code}","Anna","Ticket","20.00","2030-06-01 20:00:00","2030-06-01 22:30:00","No","anna@example.org","","","${berlinDate(anna.datetime)}","No","","","","","",""`,
      `"${bert.code}","Bert","Ticket","20.00","2030-06-01 21:00:00","","No","bert@example.org","","","${berlinDate(bert.datetime)}","No","","","","","",""`,
      `"${cleo.code}","Cleo","Ticket","20.00","","","No","cleo@example.org","","","${berlinDate(cleo.datetime)}","No","","","","","",""`,
    ]);
    // a later entry after the exit: "Checked in" is the last entry, "Checked out" the last exit
    expect(
      (await v.redeem({ secret: anna.positions[0].secret, lists: [main.id], datetime: "2030-06-01T21:15:00Z" })).status,
    ).toBe(201);
    const again = await exportLines(v, "checkinlist", { _format: "semicolon", list: main.id, sort: "code" });
    expect(again.find((l) => l.startsWith(`${anna.code};`))).toContain(
      ";Anna;Ticket;20.00;2030-06-01 23:15:00;2030-06-01 22:30:00;No;",
    );
  });

  it("status: pretix's choices all, checked in, present, checked in but left, not checked in", async () => {
    const { v, main, anna, bert, cleo } = await door();
    const codes = async (status: unknown) =>
      (await exportLines(v, "checkinlist", { _format: "csv-excel", list: main.id, status, sort: "code" }))
        .slice(1)
        .map((l) => l.split(",")[0]);
    const sorted = (...orders: Json[]) => orders.map((o) => o.code as string).sort();
    expect(await codes("")).toEqual(sorted(anna, bert, cleo));
    expect(await codes("1")).toEqual(sorted(anna, bert));
    expect(await codes("2")).toEqual([bert.code]);
    expect(await codes("3")).toEqual([anna.code]);
    expect(await codes("0")).toEqual([cleo.code]);
    // the number, as Django REST framework reads a choice
    expect(await codes(2)).toEqual([bert.code]);
    // Anna comes back: present again, no longer "checked in but left"
    expect(
      (await v.redeem({ secret: anna.positions[0].secret, lists: [main.id], datetime: "2030-06-01T21:15:00Z" })).status,
    ).toBe(201);
    expect(await codes("2")).toEqual(sorted(anna, bert));
    expect(await codes("3")).toEqual([]);
  });

  it("another list shows its own check-ins: automatic check-ins of its sales channel, all its products", async () => {
    const { v, auto, anna, bert, cleo } = await door();
    const lines = await exportLines(v, "checkinlist", { _format: "default", list: auto.id, sort: "code" });
    expect(lines[0]).toBe(`${HEADER},${TAIL}`);
    const rows = lines.slice(1).map((l) => l.slice(1, -1).split('","'));
    // Anna's ticket and parking space, Bert's and Cleo's tickets; Dora's order is pending
    expect(rows.map((r) => [r[0], r[2]]).sort()).toEqual(
      [
        [anna.code, "Ticket"],
        [anna.code, "Parking"],
        [bert.code, "Ticket"],
        [cleo.code, "Ticket"],
      ].sort(),
    );
    for (const r of rows) {
      // checked in when the order was placed, automatically; the scans on Main are not this list's
      const order = [anna, bert, cleo].find((o) => o.code === r[0])!;
      expect(r[4]).toMatch(/^2\d{3}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
      expect(r[4]!.slice(0, 10)).toBe(berlinDate(order.datetime));
      expect([r[5], r[6]]).toEqual(["", "Yes"]);
    }
  });

  it("a list with include_pending adds pending orders and pretix's Paid column; scans on other lists do not count", async () => {
    const { v, pending, anna, bert, cleo, dora } = await door();
    const lines = await exportLines(v, "checkinlist", { _format: "default", list: pending.id, secrets: true });
    expect(lines[0]).toBe(
      `"Order code","Attendee name","Product","Price","Checked in","Checked out","Automatically checked in","Paid","Secret",${TAIL}`,
    );
    expect(lines.slice(1).map((l) => l.split('","').slice(0, 9))).toEqual([
      [`"${anna.code}`, "Anna", "Ticket", "20.00", "", "", "No", "Yes", anna.positions[0].secret],
      [`"${bert.code}`, "Bert", "Ticket", "20.00", "", "", "No", "Yes", bert.positions[0].secret],
      [`"${cleo.code}`, "Cleo", "Ticket", "20.00", "", "", "No", "Yes", cleo.positions[0].secret],
      [`"${dora.code}`, "Dora", "Ticket", "20.00", "", "", "No", "No", dora.positions[0].secret],
    ]);
    // Dora's ticket scanned on this list (pending admitted with ignore_unpaid on an include_pending list)
    const r = await v.redeem({
      secret: dora.positions[0].secret,
      lists: [pending.id],
      ignore_unpaid: true,
      datetime: "2030-06-01T17:05:00Z",
    });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const present = await exportLines(v, "checkinlist", { _format: "default", list: pending.id, status: "2" });
    expect(present.slice(1).map((l) => l.split('","').slice(0, 8))).toEqual([
      [`"${dora.code}`, "Dora", "Ticket", "20.00", "2030-06-01 19:05:00", "", "No", "No"],
    ]);
  });

  it("a list of one date of a series: that date's tickets only", async () => {
    const v = await venue({ series: true });
    const first = await v.subevent({
      name: { en: "First" },
      date_from: "2030-07-01T19:00:00Z",
      date_to: "2030-07-01T22:00:00Z",
    });
    const second = await v.subevent({ name: { en: "Second" }, date_from: "2030-07-02T19:00:00Z" });
    for (const d of [first, second]) await v.quota({ size: 10, items: [v.ticket.id], subevent: d.id });
    const list = await v.list({ name: "First night", subevent: first.id });
    const a = await v.order({
      positions: [{ item: v.ticket.id, subevent: first.id, attendee_name_parts: { full_name: "Ada" } }],
    });
    await v.order({
      positions: [{ item: v.ticket.id, subevent: second.id, attendee_name_parts: { full_name: "Ben" } }],
    });
    expect(
      (await v.redeem({ secret: a.positions[0].secret, lists: [list.id], datetime: "2030-07-01T18:30:00Z" })).status,
    ).toBe(201);
    const lines = await exportLines(v, "checkinlist", { _format: "default", list: list.id });
    expect(lines[0]).toBe(
      `${HEADER},"E-mail","Date","Start date","End date","Company","Voucher code","Order date","Requires special attention","Comment","Seat ID","Seat name","Seat zone","Seat row","Seat number"`,
    );
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      `"${a.code}","Ada","Ticket","20.00","2030-07-01 18:30:00","","No","a@example.org","First","2030-07-01 19:00:00","2030-07-01 22:00:00","","","${a.datetime.slice(0, 10)}","No","","","","","",""`,
    );
  });

  it("ends as failed (410) when the list is deleted before the export ran", async () => {
    const { v, main } = await door();
    const res = await run(v, "checkinlist", { _format: "default", list: main.id });
    expect(res.status).toBe(202);
    expect((await v.client.delete(`${v.path}/checkinlists/${main.id}/`)).status).toBe(204);
    await drain(sent);
    const failed = await v.client.get(res.body.download);
    expect(failed.status).toBe(410);
    expect(failed.body).toEqual({ status: "failed", message: "The check-in list of this export no longer exists." });
  });

  it("XLSX: the scan times as text cells of the sheet", async () => {
    const { v, main, anna } = await door();
    const res = await run(v, "checkinlist", { _format: "xlsx", list: main.id, status: "3" });
    await drain(sent);
    const rows = sheetRows(
      (await unzip((await fileOf(v.client, res.body.download)).bytes)).get("xl/worksheets/sheet1.xml")!,
    );
    expect(rows).toHaveLength(2);
    expect(rows[1]!.slice(0, 7)).toEqual([
      anna.code,
      "Anna",
      "Ticket",
      "20.00",
      "2030-06-01 20:00:00",
      "2030-06-01 22:30:00",
      "No",
    ]);
  });
});
