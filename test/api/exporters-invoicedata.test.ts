/**
 * The `invoicedata` exporter (pretix `base/exporters/invoices.py`, InvoiceDataExporter) at
 * event and organizer level: its inputs, the job in steps with `percentage`, the rows of an
 * invoice and of its cancellation in both sheets (CSV and XLSX), the inputs' filters, and the
 * organizer level's `events` held to what the caller may see.
 */
import type { ExportMessage } from "../../src/lib/queues";
import { eq } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { events, exportJobs } from "../../src/db/schema";
import { type Client, db, type Json, seedOrganizer, seedTeam, unique } from "../harness";
import { captureExportMessages, deliver, drain, exportEnv, sheetRows, unzip } from "../helpers/exports";

let sent: ExportMessage[];
beforeEach(() => {
  sent = captureExportMessages();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const ISSUER = {
  invoice_address_from_name: "Big Events LLC",
  invoice_address_from: "Demo street 12",
  invoice_address_from_zipcode: "10115",
  invoice_address_from_city: "Berlin",
  invoice_address_from_country: "DE",
  invoice_address_from_tax_id: "12/345/67890",
  invoice_address_from_vat_id: "DE123456789",
};
const SENDER = ["Big Events LLC", "Demo street 12", "10115", "Berlin", "DE", "12/345/67890", "DE123456789"];
const RECIPIENT = [
  "Sample company",
  "John Doe",
  "Test street 12",
  "12345",
  "Testington",
  "GB",
  "",
  "GB123456789",
  "",
  "PO-77",
];
const NO_RECIPIENT = ["", "", "", "", "", "", "", "", "", ""];

type Invoiced = { client: Client; org: string; slug: string; path: string; prefix: string; paid: Json; canceled: Json };

/**
 * An event (Europe/Berlin, in Heidelberg) with invoice_generate "True": a paid order with an
 * invoice address and a payment fee (invoice 00001), a pending order (00002) that is then
 * canceled (its cancellation 00003).
 */
async function invoicedEvent(org: { client: Client; slug: string }, slug = unique("ev")): Promise<Invoiced> {
  const client = org.client;
  const orgPath = `/api/v1/organizers/${org.slug}`;
  const created = await client.post(`${orgPath}/events/`, {
    name: { en: "Concert" },
    slug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
    timezone: "Europe/Berlin",
    location: { en: "Heidelberg" },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const path = `${orgPath}/events/${slug}`;
  expect((await client.patch(`${path}/settings/`, { ...ISSUER, invoice_generate: "True" })).status).toBe(200);
  const vat = (await client.post(`${path}/taxrules/`, { name: { en: "VAT" }, rate: "19.00" })).body;
  const ticket = (
    await client.post(`${path}/items/`, {
      name: { en: "Ticket" },
      default_price: "119.00",
      tax_rule: vat.id,
      admission: true,
    })
  ).body;
  expect((await client.post(`${path}/quotas/`, { name: "Tickets", size: 100, items: [ticket.id] })).status).toBe(201);
  const paid = await client.post(`${path}/orders/`, {
    email: "buyer@example.org",
    status: "p",
    payment_provider: "manual",
    invoice_address: {
      is_business: true,
      company: "Sample company",
      name_parts: { full_name: "John Doe" },
      street: "Test street 12",
      zipcode: "12345",
      city: "Testington",
      country: "GB",
      internal_reference: "PO-77",
      vat_id: "GB123456789",
    },
    positions: [{ item: ticket.id, attendee_name_parts: { full_name: "Ζωή Łukasz" } }],
    fees: [{ fee_type: "payment", value: "2.38", description: "Card", tax_rule: vat.id }],
  });
  expect(paid.status, JSON.stringify(paid.body)).toBe(201);
  const pending = await client.post(`${path}/orders/`, {
    email: "late@example.org",
    payment_provider: "manual",
    positions: [{ item: ticket.id }],
  });
  expect(pending.status, JSON.stringify(pending.body)).toBe(201);
  expect((await client.post(`${path}/orders/${pending.body.code}/mark_canceled/`, {})).status).toBe(200);
  const invoices = await client.get(`${path}/invoices/?ordering=nr`);
  const prefix = `${slug.toUpperCase()}-`;
  expect(invoices.body.results.map((i: Json) => [i.number, i.order, i.refers])).toEqual([
    [`${prefix}00001`, paid.body.code, null],
    [`${prefix}00002`, pending.body.code, null],
    [`${prefix}00003`, pending.body.code, `${prefix}00002`],
  ]);
  return { client, org: orgPath, slug, path, prefix, paid: paid.body, canceled: pending.body };
}

async function fileOf(client: Client, url: string): Promise<{ status: number; headers: Headers; bytes: Uint8Array }> {
  const { exports } = await import("cloudflare:workers");
  const res = await exports.default.fetch(new Request(url, { headers: { Authorization: client.authorization! } }));
  return { status: res.status, headers: res.headers, bytes: new Uint8Array(await res.arrayBuffer()) };
}

/** The rows of a CSV file in pretix's default dialect (every text quoted; numbers bare). */
function csvRows(bytes: Uint8Array): string[][] {
  const lines = new TextDecoder().decode(bytes).split("\r\n");
  expect(lines.at(-1)).toBe("");
  return lines
    .slice(0, -1)
    .map((line) =>
      [...line.matchAll(/"((?:[^"]|"")*)"|([^,]+)/g)].map((m) =>
        m[1] !== undefined ? m[1].replace(/""/g, '"') : m[2]!,
      ),
    );
}

const today = () => new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date());

async function exportFile(
  client: Client,
  base: string,
  body: unknown,
  env = exportEnv({}),
): Promise<{ download: string; bytes: Uint8Array; headers: Headers }> {
  const res = await client.post(`${base}/exporters/invoicedata/run/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(202);
  await drain(sent, env);
  const file = await fileOf(client, res.body.download);
  expect(file.status).toBe(200);
  return { download: res.body.download, bytes: file.bytes, headers: file.headers };
}

const INVOICE_HEADER = [
  "Invoice number",
  "Date",
  "Order code",
  "Email address",
  "Invoice type",
  "Cancellation of",
  "Language",
  "Invoice sender: Name",
  "Invoice sender: Address",
  "Invoice sender: ZIP code",
  "Invoice sender: City",
  "Invoice sender: Country",
  "Invoice sender: Tax ID",
  "Invoice sender: VAT ID",
  "Invoice recipient: Company",
  "Invoice recipient: Name",
  "Invoice recipient: Street address",
  "Invoice recipient: ZIP code",
  "Invoice recipient: City",
  "Invoice recipient: Country",
  "Invoice recipient: State",
  "Invoice recipient: VAT ID",
  "Invoice recipient: Beneficiary",
  "Invoice recipient: Internal reference",
  "Shown foreign currency",
  "Foreign currency rate",
  "Total value (with taxes)",
  "Total value (without taxes)",
  "Payment providers",
];

const LINE_HEADER = [
  "Invoice number",
  "Line number",
  "Description",
  "Gross price",
  "Net price",
  "Tax value",
  "Tax rate",
  "Tax name",
  "Event start date",
  "Date",
  "Order code",
  "Email address",
  "Invoice type",
  "Cancellation of",
  ...INVOICE_HEADER.slice(7, 24),
  "Payment providers",
  "Event end date",
  "Location",
];

describe("invoicedata: the exporter lists", () => {
  it("is offered at event level with pretix's name and inputs, and at organizer level with events", async () => {
    const org = await seedOrganizer();
    const w = await invoicedEvent(org);
    const res = await w.client.get(`${w.path}/exporters/`);
    expect(res.status).toBe(200);
    expect(res.body.results.map((e: Json) => e.identifier)).toEqual([
      "checkinlist",
      "invoicedata",
      "orderlist",
      "json",
    ]);
    const formats = [
      "xlsx",
      "invoices:default",
      "invoices:excel",
      "invoices:semicolon",
      "lines:default",
      "lines:excel",
      "lines:semicolon",
    ];
    const inputs = [
      { name: "_format", required: true, choices: formats },
      { name: "date_from", required: false },
      { name: "date_to", required: false },
      { name: "payment_provider", required: false, choices: ["", "giftcard", "manual"] },
    ];
    expect(res.body.results[1]).toEqual({
      identifier: "invoicedata",
      verbose_name: "Invoice data",
      input_parameters: inputs,
    });
    const orgList = await w.client.get(`${w.org}/exporters/`);
    expect(orgList.body.results.find((e: Json) => e.identifier === "invoicedata")).toEqual({
      identifier: "invoicedata",
      verbose_name: "Invoice data",
      input_parameters: [{ name: "events", required: false }, ...inputs],
    });
  });

  it("answers 400 with field errors to bad inputs and starts nothing", async () => {
    const org = await seedOrganizer();
    const w = await invoicedEvent(org);
    const cases: [unknown, Json][] = [
      [{}, { _format: ["This field is required."] }],
      [{ _format: "invoices" }, { _format: ['"invoices" is not a valid choice.'] }],
      [{ _format: "xlsx", payment_provider: "paypal" }, { payment_provider: ['"paypal" is not a valid choice.'] }],
      [
        { _format: "xlsx", date_to: "31.12.2030" },
        { date_to: ["Date has wrong format. Use one of these formats instead: YYYY-MM-DD."] },
      ],
      [
        { _format: "xlsx", event_date_from: "2030-01-01" },
        { fields: ["Additional fields not allowed: ['event_date_from']."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await w.client.post(`${w.path}/exporters/invoicedata/run/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body).toEqual(errors);
    }
    const orgRun = await w.client.post(`${w.org}/exporters/invoicedata/run/`, {
      _format: "xlsx",
      events: ["nosuchevent"],
    });
    expect(orgRun.status).toBe(400);
    expect(orgRun.body).toEqual({ events: ["Object with slug=nosuchevent does not exist."] });
    expect(await db().select().from(exportJobs).where(eq(exportJobs.organizerId, org.id))).toHaveLength(0);
    expect(sent).toHaveLength(0);
  });
});

describe("invoicedata: the files", () => {
  it("invoices sheet: runs in steps with a percentage, then a row per invoice and cancellation", async () => {
    const org = await seedOrganizer();
    const w = await invoicedEvent(org);
    const res = await w.client.post(`${w.path}/exporters/invoicedata/run/`, { _format: "invoices:default" });
    expect(res.status).toBe(202);
    expect(res.body.download).toMatch(new RegExp(`${w.path}/exporters/invoicedata/download/[0-9a-f-]{36}/$`));
    const waiting = await w.client.get(res.body.download);
    expect(waiting.status).toBe(409);
    expect(waiting.body).toEqual({ status: "waiting", percentage: null });
    // three invoices, two rows per step: 66 %, then done
    const seen: Json[] = [];
    while (sent.length) {
      await deliver(sent.shift()!, exportEnv({ EXPORT_STEP_ROWS: "2" }));
      const poll = await w.client.get(res.body.download);
      seen.push(poll.status === 409 ? poll.body : poll.status);
    }
    expect(seen).toEqual([{ status: "running", percentage: 66 }, 200]);
    const file = await fileOf(w.client, res.body.download);
    expect(file.headers.get("Content-Type")).toBe("text/csv");
    expect(file.headers.get("Content-Disposition")).toBe(`attachment; filename="${w.slug}_invoices.csv"`);
    const date = today();
    expect(csvRows(file.bytes)).toEqual([
      INVOICE_HEADER,
      [
        `${w.prefix}00001`,
        date,
        w.paid.code,
        "buyer@example.org",
        "Invoice",
        "",
        "en",
        ...SENDER,
        ...RECIPIENT,
        "",
        "",
        "121.38",
        "102.00",
        "manual",
      ],
      [
        `${w.prefix}00002`,
        date,
        w.canceled.code,
        "late@example.org",
        "Invoice",
        "",
        "en",
        ...SENDER,
        ...NO_RECIPIENT,
        "",
        "",
        "119.00",
        "100.00",
        "",
      ],
      [
        `${w.prefix}00003`,
        date,
        w.canceled.code,
        "late@example.org",
        "Cancellation",
        `${w.prefix}00002`,
        "en",
        ...SENDER,
        ...NO_RECIPIENT,
        "",
        "",
        "-119.00",
        "-100.00",
        "",
      ],
    ]);
  });

  it("lines sheet: every line of every invoice, the cancellation's negated, whatever the step size", async () => {
    const org = await seedOrganizer();
    const w = await invoicedEvent(org);
    const whole = await exportFile(w.client, w.path, { _format: "lines:default" });
    const date = today();
    const head = (type: string, refers: string, code: string, email: string) => [date, code, email, type, refers];
    const paidHead = head("Invoice", "", w.paid.code, "buyer@example.org");
    const pendingHead = head("Invoice", "", w.canceled.code, "late@example.org");
    const cancelHead = head("Cancellation", `${w.prefix}00002`, w.canceled.code, "late@example.org");
    expect(csvRows(whole.bytes)).toEqual([
      LINE_HEADER,
      [
        `${w.prefix}00001`,
        "1",
        "Ticket - Attendee: Ζωή Łukasz",
        "119.00",
        "100.00",
        "19.00",
        "19.00",
        "VAT",
        "2030-06-01",
        ...paidHead,
        ...SENDER,
        ...RECIPIENT,
        "manual",
        "",
        "Heidelberg",
      ],
      [
        `${w.prefix}00001`,
        "2",
        "Payment fee - Card",
        "2.38",
        "2.00",
        "0.38",
        "19.00",
        "VAT",
        "2030-06-01",
        ...paidHead,
        ...SENDER,
        ...RECIPIENT,
        "manual",
        "",
        "Heidelberg",
      ],
      [
        `${w.prefix}00002`,
        "1",
        "Ticket",
        "119.00",
        "100.00",
        "19.00",
        "19.00",
        "VAT",
        "2030-06-01",
        ...pendingHead,
        ...SENDER,
        ...NO_RECIPIENT,
        "",
        "",
        "Heidelberg",
      ],
      [
        `${w.prefix}00003`,
        "1",
        "Ticket",
        "-119.00",
        "-100.00",
        "-19.00",
        "19.00",
        "VAT",
        "2030-06-01",
        ...cancelHead,
        ...SENDER,
        ...NO_RECIPIENT,
        "",
        "",
        "Heidelberg",
      ],
    ]);
    // one line per step: the same file, in four steps and a last one that finds no more lines
    const res = await w.client.post(`${w.path}/exporters/invoicedata/run/`, { _format: "lines:default" });
    expect(await drain(sent, exportEnv({ EXPORT_STEP_ROWS: "1" }))).toBe(5);
    expect(new TextDecoder().decode((await fileOf(w.client, res.body.download)).bytes)).toBe(
      new TextDecoder().decode(whole.bytes),
    );
  });

  it("XLSX: one workbook with the invoices and the invoice lines", async () => {
    const org = await seedOrganizer();
    const w = await invoicedEvent(org);
    const file = await exportFile(w.client, w.path, { _format: "xlsx" });
    expect(file.headers.get("Content-Disposition")).toBe(`attachment; filename="${w.slug}_invoices.xlsx"`);
    const parts = await unzip(file.bytes);
    expect(parts.get("xl/workbook.xml")).toContain(
      '<sheet name="Invoices" sheetId="1" r:id="rId1"/><sheet name="Invoice lines" sheetId="2" r:id="rId2"/>',
    );
    const invoices = sheetRows(parts.get("xl/worksheets/sheet1.xml")!);
    expect(invoices[0]).toEqual(INVOICE_HEADER);
    expect(invoices.map((r) => [r[0], r[4], r[5], r[26], r[27]])).toEqual([
      ["Invoice number", "Invoice type", "Cancellation of", "Total value (with taxes)", "Total value (without taxes)"],
      [`${w.prefix}00001`, "Invoice", "", "121.38", "102.00"],
      [`${w.prefix}00002`, "Invoice", "", "119.00", "100.00"],
      [`${w.prefix}00003`, "Cancellation", `${w.prefix}00002`, "-119.00", "-100.00"],
    ]);
    // money is a number cell in XLSX
    expect(parts.get("xl/worksheets/sheet1.xml")).toContain("<v>121.38</v>");
    const lines = sheetRows(parts.get("xl/worksheets/sheet2.xml")!);
    expect(lines[0]).toEqual(LINE_HEADER);
    expect(lines.slice(1).map((r) => [r[0], r[1], r[2], r[3]])).toEqual([
      [`${w.prefix}00001`, "1", "Ticket - Attendee: Ζωή Łukasz", "119.00"],
      [`${w.prefix}00001`, "2", "Payment fee - Card", "2.38"],
      [`${w.prefix}00002`, "1", "Ticket", "119.00"],
      [`${w.prefix}00003`, "1", "Ticket", "-119.00"],
    ]);
  });

  it("date range (invoice date, inclusive) and payment provider (orders with an attempt of it)", async () => {
    const org = await seedOrganizer();
    const w = await invoicedEvent(org);
    const numbers = async (body: Record<string, unknown>) =>
      csvRows((await exportFile(w.client, w.path, { _format: "invoices:default", ...body })).bytes)
        .slice(1)
        .map((r) => r[0]);
    const date = today();
    const all = [`${w.prefix}00001`, `${w.prefix}00002`, `${w.prefix}00003`];
    expect(await numbers({ date_from: date, date_to: date })).toEqual(all);
    expect(await numbers({ date_from: "2099-01-01" })).toEqual([]);
    expect(await numbers({ date_to: "2000-12-31" })).toEqual([]);
    // the canceled order's payment was canceled with it: only the paid order made a manual payment attempt that counts
    expect(await numbers({ payment_provider: "manual" })).toEqual([`${w.prefix}00001`]);
    expect(await numbers({ payment_provider: "giftcard" })).toEqual([]);
    expect(await numbers({ payment_provider: "" })).toEqual(all);
  });
});

describe("invoicedata at organizer level", () => {
  it("exports the chosen events' invoices, and only events the caller may see orders of", async () => {
    const org = await seedOrganizer();
    const a = await invoicedEvent(org);
    const b = await invoicedEvent(org);
    const numbers = async (client: Client, body: Record<string, unknown>) =>
      csvRows((await exportFile(client, a.org, { _format: "invoices:default", ...body })).bytes)
        .slice(1)
        .map((r) => r[0]);
    const fileName = await exportFile(org.client, a.org, { _format: "lines:semicolon", events: [a.slug] });
    expect(fileName.headers.get("Content-Disposition")).toBe(`attachment; filename="${org.slug}_invoices.csv"`);
    expect(await numbers(org.client, { events: [b.slug] })).toEqual([
      `${b.prefix}00001`,
      `${b.prefix}00002`,
      `${b.prefix}00003`,
    ]);
    expect((await numbers(org.client, {})).sort()).toEqual(
      [
        `${a.prefix}00001`,
        `${a.prefix}00002`,
        `${a.prefix}00003`,
        `${b.prefix}00001`,
        `${b.prefix}00002`,
        `${b.prefix}00003`,
      ].sort(),
    );
    const bRow = await db().select({ id: events.id }).from(events).where(eq(events.slug, b.slug)).get();
    const limited = await seedTeam(org.id, { permissions: ["can_view_orders"], allEvents: false, events: [bRow!.id] });
    const refused = await limited.client.post(`${a.org}/exporters/invoicedata/run/`, {
      _format: "invoices:default",
      events: [a.slug],
    });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({ events: [`Object with slug=${a.slug} does not exist.`] });
    // without `events`: the events the caller may see orders of
    expect(await numbers(limited.client, {})).toEqual([`${b.prefix}00001`, `${b.prefix}00002`, `${b.prefix}00003`]);
    // a team without can_view_orders sees no event's invoices
    const blind = await seedTeam(org.id, { permissions: ["can_change_items"] });
    expect(await numbers(blind.client, {})).toEqual([]);
    expect(
      (
        await blind.client.post(`${a.org}/exporters/invoicedata/run/`, {
          _format: "invoices:default",
          events: [b.slug],
        })
      ).body,
    ).toEqual({
      events: [`Object with slug=${b.slug} does not exist.`],
    });
  });
});
