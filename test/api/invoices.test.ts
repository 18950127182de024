/**
 * Invoices (spec "Invoice", endpoints "Invoices"; pretix docs invoices.rst, orders.rst
 * `create_invoice`; open point 26): when they come to exist, their numbers (gapless under
 * parallel payment), every field, list filters and ordering, the PDF (409 then 200), reissue
 * and regenerate, cancellations, the sweep.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { events, invoices, orders as orderRows } from "../../src/db/schema";
import { type InvoiceInsert, invoiceConditions, insertInvoices } from "../../src/db/invoices";
import { sweepInvoices } from "../../src/services/invoices/invoices";
import { db, type Json, seedOrganizer, seedOrderRow, unique, groupTestEnv } from "../harness";
import { deliver, objectKeys, pdfText, rawGet, SEED_FONTS_TIMEOUT, seedFonts } from "../helpers/documents";
import { settleObject, type Shop, shop } from "../helpers/sales";
import { and, eq, inArray, isNull } from "drizzle-orm";

const ISSUER = {
  invoice_address_from_name: "Big Events LLC",
  invoice_address_from: "Demo street 12",
  invoice_address_from_zipcode: "10115",
  invoice_address_from_city: "Berlin",
  invoice_address_from_country: "DE",
  invoice_address_from_tax_id: "12/345/67890",
  invoice_address_from_vat_id: "DE123456789",
  invoice_introductory_text: { en: "Thank you for your purchase:" },
  invoice_additional_text: { en: "See you at the concert!" },
  invoice_footer_text: { en: "Big Events LLC - Registration No. 123456" },
};

type World = { s: Shop; vat: Json; ticket: Json };

/**
 * The sweep visits every recently changed order of the database, the other test files' too (the
 * files of the project share it, test/vitest.config.ts): a run first leaves it nothing of theirs
 * to do, so what the sweep counts afterwards is the test's own.
 */
const sweepOtherFiles = () => sweepInvoices(groupTestEnv(), db(), Date.now());

async function world(settings: Record<string, unknown>, event: Record<string, unknown> = {}): Promise<World> {
  const s = await shop({ event: { location: { en: "Heidelberg" }, timezone: "Europe/Berlin", ...event } });
  const patched = await s.client.patch(`${s.path}/settings/`, { ...ISSUER, ...settings });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const vat = await s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
  const ticket = await s.item({ default_price: "119.00", tax_rule: vat.id });
  await s.quota({ size: 500, items: [ticket.id] });
  return { s, vat, ticket };
}

function orderBody(w: World, extra: Record<string, unknown> = {}) {
  return {
    email: "buyer@example.org",
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
    positions: [{ item: w.ticket.id, attendee_name_parts: { full_name: "Ζωή Łukasz" } }],
    fees: [{ fee_type: "payment", value: "2.38", description: "Card", internal_type: "stripe", tax_rule: w.vat.id }],
    ...extra,
  };
}

/** An order, in D1 once this resolves (the event's object may answer an order before D1 has it). */
async function order(w: World, extra: Record<string, unknown> = {}): Promise<Json> {
  const res = await w.s.client.post(`${w.s.path}/orders/`, orderBody(w, extra));
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await w.s.settle();
  return res.body;
}

/** Another event of the world's organizer, set up like `world` (its own tax rule, item and quota). */
async function eventOfSameOrganizer(w: World, settings: Record<string, unknown>): Promise<World> {
  const slug = unique("ev");
  const made = await w.s.client.post(`/api/v1/organizers/${w.s.orgSlug}/events/`, {
    name: { en: "Second concert" },
    slug,
    currency: "EUR",
    date_from: "2030-06-01T19:00:00Z",
    location: { en: "Heidelberg" },
    timezone: "Europe/Berlin",
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  const path = `/api/v1/organizers/${w.s.orgSlug}/events/${slug}`;
  const patched = await w.s.client.patch(`${path}/settings/`, { ...ISSUER, ...settings });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const post = async (p: string, body: unknown) => {
    const r = await w.s.client.post(`${path}${p}`, body);
    expect(r.status, `${p}: ${JSON.stringify(r.body)}`).toBe(201);
    return r.body;
  };
  const vat = await post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
  const ticket = await post("/items/", {
    name: { en: "Ticket" },
    default_price: "119.00",
    admission: true,
    tax_rule: vat.id,
  });
  await post("/quotas/", { name: "Tickets", size: 500, items: [ticket.id] });
  const eventId = (await db().query.events.findFirst({ where: (e, { eq: is }) => is(e.slug, slug) }))!.id;
  const settle = async () => expect(await settleObject(eventId)).toBe(true);
  return { s: { ...w.s, eventSlug: slug, path, post, eventId, settle }, vat, ticket };
}

/**
 * The organizer's invoices with `prefix`, read from D1 and checked by value (not left to the
 * unique index): no number twice, and the numbers are exactly prefix + 1..n, zero-padded.
 */
async function expectNumbered(organizerId: number, prefix: string, n: number) {
  const rows = await db()
    .select({ number: invoices.number, invoiceNo: invoices.invoiceNo, orderId: invoices.orderId })
    .from(invoices)
    .where(and(eq(invoices.organizerId, organizerId), eq(invoices.prefix, prefix)));
  const numbers = rows.map((r) => r.number);
  expect(numbers.filter((x, i) => numbers.indexOf(x) !== i)).toEqual([]);
  expect(rows.map((r) => Number(r.invoiceNo)).sort((x, y) => x - y)).toEqual(
    Array.from({ length: n }, (_, k) => k + 1),
  );
  expect([...numbers].sort()).toEqual(
    Array.from({ length: n }, (_, k) => `${prefix}${String(k + 1).padStart(5, "0")}`),
  );
  return rows;
}

async function list(w: World, query = ""): Promise<Json[]> {
  const res = await w.s.client.get(`${w.s.path}/invoices/${query}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results;
}

/** Renders the PDFs of the world's invoices that have none yet (as the documents queue does). */
async function renderPending(w: World): Promise<void> {
  const ev = (await db().query.events.findFirst({ where: (e, { eq: q }) => q(e.slug, w.s.eventSlug) }))!;
  const pending = await db()
    .select({ id: invoices.id, version: invoices.version })
    .from(invoices)
    .where(and(eq(invoices.eventId, ev.id), isNull(invoices.file)));
  await deliver(pending.map((p) => ({ kind: "invoice-pdf" as const, invoiceId: p.id, version: p.version })));
}

beforeAll(seedFonts, SEED_FONTS_TIMEOUT);

describe("when invoices come to exist", () => {
  it("invoice_generate paid: none for a pending order, one with every field when it is paid", async () => {
    const w = await world({ invoice_generate: "paid" });
    const o = await order(w);
    expect(await list(w)).toEqual([]);
    const paid = await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_paid/`, {});
    expect(paid.status).toBe(200);
    const all = await list(w);
    expect(all).toHaveLength(1);
    const prefix = `${w.s.eventSlug.toUpperCase()}-`;
    const today = new Intl.DateTimeFormat("en-CA", { timeZone: "Europe/Berlin" }).format(new Date());
    expect(all[0]).toEqual({
      number: `${prefix}00001`,
      order: o.code,
      is_cancellation: false,
      invoice_from_name: "Big Events LLC",
      invoice_from: "Demo street 12",
      invoice_from_zipcode: "10115",
      invoice_from_city: "Berlin",
      invoice_from_country: "DE",
      invoice_from_tax_id: "12/345/67890",
      invoice_from_vat_id: "DE123456789",
      invoice_to: "Sample company\nJohn Doe\nTest street 12\n12345 Testington\nUnited Kingdom\nVAT-ID: GB123456789",
      invoice_to_company: "Sample company",
      invoice_to_name: "John Doe",
      invoice_to_street: "Test street 12",
      invoice_to_zipcode: "12345",
      invoice_to_city: "Testington",
      invoice_to_state: "",
      invoice_to_country: "GB",
      invoice_to_vat_id: "GB123456789",
      invoice_to_beneficiary: "",
      custom_field: null,
      date: today,
      refers: null,
      locale: "en",
      introductory_text: "Thank you for your purchase:",
      additional_text: "See you at the concert!",
      payment_provider_text: "The payment for this invoice has already been received.",
      payment_provider_stamp: "paid",
      footer_text: "Big Events LLC - Registration No. 123456",
      internal_reference: "PO-77",
      foreign_currency_display: null,
      foreign_currency_rate: null,
      foreign_currency_rate_date: null,
      lines: [
        {
          position: 1,
          description: "Ticket\nAttendee: Ζωή Łukasz",
          item: w.ticket.id,
          variation: null,
          subevent: null,
          fee_type: null,
          fee_internal_type: null,
          event_date_from: "2030-06-01T19:00:00Z",
          event_date_to: null,
          event_location: "Heidelberg",
          attendee_name: "Ζωή Łukasz",
          gross_value: "119.00",
          tax_value: "19.00",
          tax_name: "VAT",
          tax_rate: "19.00",
        },
        {
          position: 2,
          description: "Payment fee - Card",
          item: null,
          variation: null,
          subevent: null,
          fee_type: "payment",
          fee_internal_type: "stripe",
          event_date_from: "2030-06-01T19:00:00Z",
          event_date_to: null,
          event_location: "Heidelberg",
          attendee_name: null,
          gross_value: "2.38",
          tax_value: "0.38",
          tax_name: "VAT",
          tax_rate: "19.00",
        },
      ],
    });
  });

  it('invoice_generate "True": the invoice comes with the order; canceling it creates a cancellation that refers to it', async () => {
    await sweepOtherFiles();
    const w = await world({
      invoice_generate: "True",
      invoice_numbers_prefix: "CONF-%Y-",
      invoice_numbers_prefix_cancellations: "STORNO-",
    });
    const o = await order(w);
    const [inv] = await list(w);
    const year = new Date().getUTCFullYear();
    expect(inv.number).toBe(`CONF-${year}-00001`);
    expect(inv.payment_provider_stamp).toBeNull();
    expect(inv.payment_provider_text).toBe("");
    expect((await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_canceled/`, {})).status).toBe(200);
    const all = await list(w, "?ordering=nr");
    expect(all.map((i: Json) => [i.number, i.is_cancellation, i.refers])).toEqual([
      [`CONF-${year}-00001`, false, null],
      ["STORNO-00001", true, `CONF-${year}-00001`],
    ]);
    const cancellation = all[1];
    expect(cancellation.lines.map((l: Json) => [l.gross_value, l.tax_value])).toEqual([
      ["-119.00", "-19.00"],
      ["-2.38", "-0.38"],
    ]);
    expect(cancellation.invoice_to).toBe(inv.invoice_to);
    // canceling is idempotent: the sweep finds nothing left to do
    expect(await sweepInvoices(groupTestEnv(), db(), Date.now())).toBe(0);
    expect(await list(w)).toHaveLength(2);
  });

  it("free orders and orders of other sales channels get none; expiry cancels", async () => {
    const w = await world({ invoice_generate: "True" });
    const free = await w.s.item({ default_price: "0.00" });
    await w.s.quota({ size: 10, items: [free.id] });
    await order(w, { positions: [{ item: free.id }], fees: [] });
    await order(w, { sales_channel: "resellers" });
    expect(await list(w)).toEqual([]);
    const o = await order(w);
    expect(await list(w)).toHaveLength(1);
    expect((await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_expired/`, {})).status).toBe(200);
    expect((await list(w, "?is_cancellation=true")).map((i: Json) => i.refers)).toEqual([
      (await list(w, "?is_cancellation=false"))[0].number,
    ]);
  });

  it("the order action create_invoice: 400 while invoicing is off, 200 once, 400 when one exists", async () => {
    const w = await world({ invoice_generate: "False" });
    const o = await order(w);
    const off = await w.s.client.post(`${w.s.path}/orders/${o.code}/create_invoice/`, {});
    expect(off.status).toBe(400);
    expect(off.body).toEqual({ detail: "You cannot generate an invoice for this order." });
    expect(await list(w)).toEqual([]);
    await w.s.client.patch(`${w.s.path}/settings/`, { invoice_generate: "admin" });
    const created = await w.s.client.post(`${w.s.path}/orders/${o.code}/create_invoice/`, {});
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      order: o.code,
      number: `${w.s.eventSlug.toUpperCase()}-00001`,
      is_cancellation: false,
    });
    const again = await w.s.client.post(`${w.s.path}/orders/${o.code}/create_invoice/`, {});
    expect(again.status).toBe(400);
    expect(again.body).toEqual({ detail: "An invoice for this order already exists." });
    expect(await list(w)).toHaveLength(1);
    expect((await w.s.client.post(`${w.s.path}/orders/NOSUCH/create_invoice/`, {})).status).toBe(404);
  });

  it("non-consecutive numbering uses the order code", async () => {
    const w = await world({
      invoice_generate: "True",
      invoice_numbers_consecutive: false,
      invoice_numbers_prefix: "R-",
    });
    const o = await order(w);
    expect((await list(w)).map((i: Json) => i.number)).toEqual([`R-${o.code}-1`]);
  });
});

describe("invoice numbers under parallel payment", () => {
  it("many orders paid at once get the numbers 1..n: unique, without gaps", async () => {
    const w = await world({ invoice_generate: "paid", invoice_numbers_prefix: "PAR-" });
    const n = 24;
    const orders: Json[] = [];
    for (let k = 0; k < n; k++) orders.push(await order(w));
    // the cron sweep runs at the same time: it may create the invoices the payments' hooks are about to create
    const [results] = await Promise.all([
      Promise.all(orders.map((o) => w.s.client.post(`${w.s.path}/orders/${o.code}/mark_paid/`, {}))),
      sweepInvoices(groupTestEnv(), db(), Date.now()),
      sweepInvoices(groupTestEnv(), db(), Date.now()),
    ]);
    expect(results.map((r) => r.status)).toEqual(orders.map(() => 200));
    const all = [...(await list(w, "?page_size=50"))];
    const numbers = all.map((i: Json) => i.number).sort();
    expect(numbers).toEqual(Array.from({ length: n }, (_, k) => `PAR-${String(k + 1).padStart(5, "0")}`));
    // one invoice per order
    expect(new Set(all.map((i: Json) => i.order)).size).toBe(n);
    // the organizer's rows in D1, by value
    const rows = await expectNumbered(w.s.org.id, "PAR-", n);
    expect(new Set(rows.map((r) => r.orderId)).size).toBe(n);
  });

  it("orders of two events of one organizer invoiced at once share the organizer's counter: 1..n over both, no number twice", async () => {
    // one event invoices on payment, the other on create_invoice: two ways to the one counter
    const paid = await world({ invoice_generate: "paid", invoice_numbers_prefix: "ORG-" });
    const admin = await eventOfSameOrganizer(paid, { invoice_generate: "admin", invoice_numbers_prefix: "ORG-" });
    const n = 8;
    const paying: Json[] = [];
    const invoicing: Json[] = [];
    for (let k = 0; k < n; k++) {
      paying.push(await order(paid));
      invoicing.push(await order(admin));
    }
    const results = await Promise.all([
      ...paying.map((o) => paid.s.client.post(`${paid.s.path}/orders/${o.code}/mark_paid/`, {})),
      ...invoicing.map((o) => admin.s.client.post(`${admin.s.path}/orders/${o.code}/create_invoice/`, {})),
    ]);
    expect(results.map((r) => r.status)).toEqual(Array(2 * n).fill(200));
    const rows = await expectNumbered(paid.s.org.id, "ORG-", 2 * n);
    // each event's list shows its own invoices, one per order, and together they are the organizer's
    const paidNumbers = (await list(paid, "?page_size=50")).map((i: Json) => i.number);
    const adminNumbers = (await list(admin, "?page_size=50")).map((i: Json) => i.number);
    expect([paidNumbers.length, adminNumbers.length]).toEqual([n, n]);
    expect([...paidNumbers, ...adminNumbers].sort()).toEqual(rows.map((r) => r.number).sort());
    expect(new Set(rows.map((r) => r.orderId)).size).toBe(2 * n);
  });

  it("a write whose condition fails draws no number: the next invoice follows without a gap", async () => {
    const w = await world({ invoice_generate: "admin" });
    const [a, b] = [await order(w), await order(w)];
    const rows = await db()
      .select({ id: orderRows.id, code: orderRows.code, eventId: orderRows.eventId, organizerId: events.organizerId })
      .from(orderRows)
      .innerJoin(events, eq(events.id, orderRows.eventId))
      .where(inArray(orderRows.code, [a.code, b.code]));
    const write = (code: string): InvoiceInsert => {
      const o = rows.find((r) => r.code === code)!;
      return {
        organizerId: o.organizerId,
        eventId: o.eventId,
        orderId: o.id,
        orderCode: code,
        prefix: "GAP-",
        consecutive: true,
        counterLength: 5,
        isCancellation: false,
        refers: null,
        date: "2030-01-01",
        locale: "en",
        texts: {} as InvoiceInsert["texts"],
        lines: [],
        creationKey: crypto.randomUUID(),
        createdAt: Date.now(),
        when: invoiceConditions.noLiveInvoice(o.id),
      };
    };
    expect((await insertInvoices(db(), [write(a.code)])).map((r) => r.invoice.number)).toEqual(["GAP-00001"]);
    // the order has its invoice now: the same write again creates nothing and takes no number
    expect(await insertInvoices(db(), [write(a.code)])).toEqual([]);
    expect(await insertInvoices(db(), [write(a.code), write(a.code)])).toEqual([]);
    expect((await insertInvoices(db(), [write(b.code)])).map((r) => r.invoice.number)).toEqual(["GAP-00002"]);
  });

  it("create_invoice sent many times at once for one order: one invoice, and the next number follows without a gap", async () => {
    const w = await world({ invoice_generate: "admin", invoice_numbers_prefix: "ONE-" });
    const [a, b] = [await order(w), await order(w)];
    const results = await Promise.all(
      Array.from({ length: 12 }, () => w.s.client.post(`${w.s.path}/orders/${a.code}/create_invoice/`, {})),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(11).fill(400)]);
    for (const r of results.filter((x) => x.status === 400))
      expect(r.body).toEqual({ detail: "An invoice for this order already exists." });
    expect((await w.s.client.post(`${w.s.path}/orders/${b.code}/create_invoice/`, {})).body.number).toBe("ONE-00002");
    expect((await list(w)).map((i: Json) => [i.number, i.order])).toEqual([
      ["ONE-00001", a.code],
      ["ONE-00002", b.code],
    ]);
    await expectNumbered(w.s.org.id, "ONE-", 2);
  });

  it("reissue sent many times at once: one cancellation and one new invoice, numbers without a gap", async () => {
    const w = await world({ invoice_generate: "True", invoice_numbers_prefix: "RE-" });
    const o = await order(w);
    const results = await Promise.all(
      Array.from({ length: 10 }, () => w.s.client.post(`${w.s.path}/invoices/RE-00001/reissue/`, {})),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(400)]);
    expect((await list(w)).map((i: Json) => [i.number, i.is_cancellation, i.refers, i.order])).toEqual([
      ["RE-00001", false, null, o.code],
      ["RE-00002", true, "RE-00001", o.code],
      ["RE-00003", false, null, o.code],
    ]);
    await expectNumbered(w.s.org.id, "RE-", 3);
  });
});

describe("list, detail, filters", () => {
  let w: World;
  let a: Json;
  let b: Json;
  beforeAll(async () => {
    w = await world({ invoice_generate: "True" });
    a = await order(w);
    b = await order(w, { locale: "en" });
    await w.s.client.post(`${w.s.path}/orders/${a.code}/mark_canceled/`, {});
  });

  it("filters by is_cancellation, order, refers and locale, orders by nr (default) and date", async () => {
    const prefix = `${w.s.eventSlug.toUpperCase()}-`;
    expect((await list(w)).map((i: Json) => i.number)).toEqual([`${prefix}00001`, `${prefix}00002`, `${prefix}00003`]);
    expect((await list(w, "?ordering=-nr")).map((i: Json) => i.number)).toEqual([
      `${prefix}00003`,
      `${prefix}00002`,
      `${prefix}00001`,
    ]);
    expect((await list(w, "?ordering=date")).map((i: Json) => i.number)).toHaveLength(3);
    expect((await list(w, "?is_cancellation=true")).map((i: Json) => i.number)).toEqual([`${prefix}00003`]);
    expect((await list(w, `?order=${a.code}`)).map((i: Json) => i.number)).toEqual([
      `${prefix}00001`,
      `${prefix}00003`,
    ]);
    expect((await list(w, `?order=${b.code.toLowerCase()}`)).map((i: Json) => i.number)).toEqual([`${prefix}00002`]);
    expect((await list(w, `?refers=${prefix}00001`)).map((i: Json) => i.number)).toEqual([`${prefix}00003`]);
    expect(await list(w, "?locale=de")).toEqual([]);
    expect(await list(w, "?locale=en")).toHaveLength(3);
  });

  it("detail by number; 404 for an unknown number; 403 for another organizer", async () => {
    const prefix = `${w.s.eventSlug.toUpperCase()}-`;
    const one = await w.s.client.get(`${w.s.path}/invoices/${prefix}00002/`);
    expect(one.status).toBe(200);
    expect(one.body.order).toBe(b.code);
    expect((await w.s.client.get(`${w.s.path}/invoices/${prefix}09999/`)).status).toBe(404);
    const foreign = await seedOrganizer();
    expect((await foreign.client.get(`${w.s.path}/invoices/${prefix}00002/`)).status).toBe(403);
    expect((await foreign.client.get(`${w.s.path}/invoices/${prefix}00002/download/`)).status).toBe(403);
  });
});

describe("the PDF", () => {
  it("answers 409 while it is rendered on the queue, then 200 application/pdf with the invoice's text", async () => {
    const w = await world({ invoice_generate: "True" });
    const o = await order(w, {
      invoice_address: {
        company: "王小明 GmbH",
        name_parts: { full_name: "Олег שרה 김민준" },
        street: "شارع الملك فهد",
        zipcode: "1",
        city: "Kyiv",
        country: "UA",
      },
    });
    const [inv] = await list(w);
    // not rendered yet: whatever the background queue did, take its file away
    await db().update(invoices).set({ file: null }).where(eq(invoices.number, inv.number));
    const first = await rawGet(w.s.client, `${w.s.path}/invoices/${inv.number}/download/`);
    expect(first.status).toBe(409);
    expect(first.headers.get("Retry-After")).toBe("2");
    expect(first.json.detail).toMatch(/not yet ready/);
    await renderPending(w);
    const second = await rawGet(w.s.client, `${w.s.path}/invoices/${inv.number}/download/`);
    expect(second.status).toBe(200);
    expect(second.headers.get("Content-Type")).toBe("application/pdf");
    expect(new TextDecoder().decode(second.bytes.slice(0, 5))).toBe("%PDF-");
    const { text, pages } = await pdfText(second.bytes);
    expect(pages).toBe(1);
    for (const s of [
      inv.number,
      o.code,
      "王小明 GmbH",
      "Олег שרה 김민준",
      "شارع الملك فهد",
      "Big Events LLC",
      "Ζωή Łukasz",
      "€119.00",
      "€121.38",
      "Thank you for your purchase:",
    ]) {
      expect(text, s).toContain(s);
    }
  });

  it("a message delivered twice leaves one file; an old version's message renders nothing", async () => {
    const w = await world({ invoice_generate: "True" });
    await order(w);
    const [inv] = await list(w);
    const [row] = await db().select().from(invoices).where(eq(invoices.number, inv.number));
    const message = { kind: "invoice-pdf" as const, invoiceId: row!.id, version: row!.version };
    await deliver([message]);
    await deliver([message]);
    expect(await objectKeys(`invoices/${row!.eventId}/${row!.id}/`)).toEqual([
      `invoices/${row!.eventId}/${row!.id}/v1.pdf`,
    ]);
    await deliver([{ ...message, version: 7 }]);
    expect(await objectKeys(`invoices/${row!.eventId}/${row!.id}/`)).toHaveLength(1);
  });
});

describe("reissue and regenerate", () => {
  it("reissue cancels and creates a new invoice; both answer 400 once it is canceled", async () => {
    const w = await world({ invoice_generate: "True" });
    await order(w);
    const [inv] = await list(w);
    const reissued = await w.s.client.post(`${w.s.path}/invoices/${inv.number}/reissue/`, {});
    expect(reissued.status).toBe(200);
    const prefix = `${w.s.eventSlug.toUpperCase()}-`;
    expect(reissued.body).toMatchObject({ number: `${prefix}00003`, is_cancellation: false, refers: null });
    expect((await list(w)).map((i: Json) => [i.number, i.is_cancellation, i.refers])).toEqual([
      [`${prefix}00001`, false, null],
      [`${prefix}00002`, true, `${prefix}00001`],
      [`${prefix}00003`, false, null],
    ]);
    for (const action of ["reissue", "regenerate"]) {
      const res = await w.s.client.post(`${w.s.path}/invoices/${inv.number}/${action}/`, {});
      expect(res.status, action).toBe(400);
      expect(res.body).toEqual({ detail: "The invoice has already been canceled." });
    }
    expect(await list(w)).toHaveLength(3);
  });

  it("regenerate rebuilds the same invoice from current data and renders a new PDF", async () => {
    const w = await world({ invoice_generate: "True" });
    await order(w);
    const [inv] = await list(w);
    await renderPending(w);
    await w.s.client.patch(`${w.s.path}/settings/`, { invoice_address_from_name: "Renamed Events Ltd" });
    const res = await w.s.client.post(`${w.s.path}/invoices/${inv.number}/regenerate/`, {});
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ number: inv.number, date: inv.date, invoice_from_name: "Renamed Events Ltd" });
    expect((await rawGet(w.s.client, `${w.s.path}/invoices/${inv.number}/download/`)).status).toBe(409);
    await renderPending(w);
    const pdf = await rawGet(w.s.client, `${w.s.path}/invoices/${inv.number}/download/`);
    expect(pdf.status).toBe(200);
    expect((await pdfText(pdf.bytes)).text).toContain("Renamed Events Ltd");
  });
});

describe("the sweep", () => {
  it("creates the invoice an order missed (its hook never ran), once", async () => {
    await sweepOtherFiles();
    const w = await world({ invoice_generate: "paid", invoice_numbers_prefix: "SW-" });
    const eventId = (await db().query.events.findFirst({ where: (e, { eq: q }) => q(e.slug, w.s.eventSlug) }))!.id;
    const row = await seedOrderRow(eventId, { status: "p" });
    await db().update(orderRows).set({ total: 1000 }).where(eq(orderRows.id, row.id));
    expect(await list(w)).toEqual([]);
    expect(await sweepInvoices(groupTestEnv(), db(), Date.now())).toBe(1);
    expect(await sweepInvoices(groupTestEnv(), db(), Date.now())).toBe(0);
    expect((await list(w)).map((i: Json) => [i.number, i.order])).toEqual([["SW-00001", row.code]]);
  });
});
