/**
 * `npm run bench:pdf`: how long rendering takes and how much memory it holds, under Node (V8,
 * the engine workerd runs): a ticket with the default layout and an invoice of ten lines, both
 * with Latin, Greek, Cyrillic, Chinese, Hebrew, Arabic and Korean names (every font family is loaded and subset).
 * "cold": the first document of an isolate, whose fonts are parsed anew (fresh copies of the
 * font files, as an isolate reads them from R2); "warm": later documents of the same isolate
 * (fonts cached per isolate, src/services/tickets/documents.ts). Not part of `npm test` (nothing there
 * is timed): it prints the figures docs/documents.md quotes.
 */
/// <reference types="node" />
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "vitest";
import type { InvoiceRecord } from "../../src/db/invoices";
import type { EventRow } from "../../src/db/tenancy";
import { renderInvoicePdf } from "../../src/services/invoices/invoice-render";
import { DEFAULT_LAYOUT } from "../../src/services/tickets/ticket-default-layout";
import { renderTicketPdf, type TicketDocument } from "../../src/services/tickets/ticket-render";
import { FONT_FACES, type FontFace } from "../../src/lib/pdf/fonts";

const root = path.resolve(import.meta.dirname, "..", "..");
const fonts = new Map<FontFace, Uint8Array>();
for (const [face, f] of Object.entries(FONT_FACES))
  fonts.set(face as FontFace, new Uint8Array(readFileSync(path.join(root, "node_modules", f.pkg, f.dir, f.file))));
const loadFont = async (face: FontFace) => fonts.get(face)!;
const NAMES = "Ζωή Łukasz 王小明 Олег שרה محمد 김민준";

const event = {
  id: 1,
  organizerId: 1,
  slug: "conf",
  name: { en: "Sample Conference" },
  currency: "EUR",
  timezone: "Europe/Berlin",
  dateFrom: Date.UTC(2030, 5, 1, 18),
  dateTo: null,
  dateAdmission: null,
  location: { en: "Heidelberg" },
  hasSubevents: false,
  seatingPlanId: null,
} as unknown as EventRow;

const ticket: TicketDocument = {
  positions: [
    {
      id: 1,
      positionid: 1,
      secret: "z3fsn8jyufm5kpk768q69gkbyr5f4h6w",
      pseudonymizationId: "MQLJVANO3B",
      price: 4990,
      priceWithAddons: 4990,
      attendeeName: NAMES,
      attendeeNameParts: { full_name: NAMES },
      attendeeEmail: null,
      item: { name: { en: "Konzert-Ticket" }, description: null, category: null, meta: {} },
      variation: null,
      subevent: null,
      seat: null,
      addons: [],
      answers: {},
    },
  ],
  order: {
    code: "ABC12",
    email: "a@example.org",
    phone: null,
    datetime: Date.UTC(2030, 0, 1),
    locale: "en",
    invoiceAddress: null,
  },
  event: {
    name: event.name,
    seriesName: event.name,
    dateFrom: event.dateFrom,
    dateTo: null,
    dateAdmission: null,
    location: event.location,
    timezone: event.timezone,
    currency: "EUR",
    seating: false,
    organizer: "Big Events LLC",
    organizerInfoText: null,
    nameScheme: "full",
    meta: {},
  },
  layouts: new Map([[1, { name: "Default", elements: DEFAULT_LAYOUT, background: null }]]),
};

const line = (k: number) => ({
  position: k,
  description: `Ticket ${k}\nAttendee: ${NAMES}`,
  item: 1,
  variation: null,
  subevent: null,
  fee_type: null,
  fee_internal_type: null,
  event_date_from: event.dateFrom,
  event_date_to: null,
  event_location: "Heidelberg",
  attendee_name: NAMES,
  gross_value: 11900,
  tax_value: 1900,
  tax_name: "VAT",
  tax_rate: 1900,
});
const invoice = {
  invoice: {
    id: 1,
    number: "CONF-00001",
    isCancellation: false,
    date: "2030-01-01",
    locale: "en",
    createdAt: Date.UTC(2030, 0, 1),
    texts: {
      invoice_from_name: "Big Events LLC",
      invoice_from: "Demo street 12",
      invoice_from_zipcode: "10115",
      invoice_from_city: "Berlin",
      invoice_from_country: "DE",
      invoice_from_tax_id: "",
      invoice_from_vat_id: "DE123456789",
      invoice_to: `王小明 GmbH\n${NAMES}\nMain 1\n1 Kyiv\nUkraine`,
      invoice_to_company: "王小明 GmbH",
      invoice_to_name: NAMES,
      invoice_to_street: "Main 1",
      invoice_to_zipcode: "1",
      invoice_to_city: "Kyiv",
      invoice_to_state: "",
      invoice_to_country: "UA",
      invoice_to_vat_id: "",
      invoice_to_beneficiary: "",
      custom_field: null,
      introductory_text: "Thank you for your purchase:",
      additional_text: "See you there!",
      payment_provider_text: "The payment for this invoice has already been received.",
      payment_provider_stamp: "paid",
      footer_text: "Big Events LLC - Registration No. 123456",
      internal_reference: "",
    },
    lines: Array.from({ length: 10 }, (_, k) => line(k + 1)),
  },
  orderCode: "ABC12",
  refersNumber: null,
} as unknown as InvoiceRecord;

type Sample = { wall: number; cpu: number };

/** Median and 90th percentile of `runs` samples of `measure`, in milliseconds. */
async function sample(runs: number, measure: () => Promise<Sample>): Promise<{ wall: string; cpu: string }> {
  const samples: Sample[] = [];
  for (let k = 0; k < runs; k++) samples.push(await measure());
  const stat = (pick: (x: Sample) => number) => {
    const sorted = samples.map(pick).sort((a, b) => a - b);
    const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0);
    return `${at(0.5)} / ${at(0.9)}`;
  };
  return { wall: stat((x) => x.wall), cpu: stat((x) => x.cpu) };
}

/** Fresh copies of the font files: the parsed fonts of earlier documents are not reused. */
const freshFonts = () => {
  const copies = new Map([...fonts].map(([face, bytes]) => [face, bytes.slice()]));
  return async (face: FontFace) => copies.get(face)!;
};

/**
 * Wall time and CPU time (this process's user and system time: what a Worker's CPU limit
 * counts; wall time also counts waiting for a core on a busy machine) of cold and warm renderings.
 */
async function time(
  label: string,
  render: (load: (face: FontFace) => Promise<Uint8Array>) => Promise<Uint8Array>,
): Promise<void> {
  const timed = async (load: (face: FontFace) => Promise<Uint8Array>): Promise<Sample> => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await render(load);
    const wall = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { wall, cpu: (c.user + c.system) / 1000 };
  };
  const cold = await sample(5, () => timed(freshFonts()));
  for (let k = 0; k < 3; k++) await render(loadFont);
  const warm = await sample(30, () => timed(loadFont));
  const size = (await render(loadFont)).length;
  console.log(
    `${label} (${(size / 1024).toFixed(1)} KiB), ms median / p90: cold CPU ${cold.cpu}, wall ${cold.wall}; warm CPU ${warm.cpu}, wall ${warm.wall}`,
  );
}

const gc = (globalThis as { gc?: () => void }).gc;
const heapMiB = () => {
  gc?.();
  const m = process.memoryUsage();
  return (m.heapUsed + m.arrayBuffers) / 2 ** 20;
};

describe("PDF rendering", () => {
  it("ticket (default layout, one position)", async () => {
    await time("ticket", (load) => renderTicketPdf(ticket, load, Date.UTC(2030, 0, 1)));
  });
  it("invoice (ten lines)", async () => {
    await time("invoice", (load) => renderInvoicePdf(invoice, event, load));
  });
  it("memory held by an isolate that rendered both (fonts loaded and parsed)", async () => {
    const base = heapMiB();
    const load = freshFonts();
    const held = [
      await renderTicketPdf(ticket, load, Date.UTC(2030, 0, 1)),
      await renderInvoicePdf(invoice, event, load),
    ];
    console.log(
      `memory: ${(heapMiB() - base).toFixed(1)} MiB more heap and buffers after rendering with fresh fonts (font files ${([...fonts.values()].reduce((s, b) => s + b.length, 0) / 2 ** 20).toFixed(1)} MiB)${gc ? "" : " (no gc: rough)"}`,
    );
    void held;
  });
});
