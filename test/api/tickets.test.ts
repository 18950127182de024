/**
 * Ticket PDFs (pretix docs orders.rst: `downloads`, order and position download; ticket
 * layouts, open point 12): which orders and positions offer downloads, 409 then 200, a QR code
 * that decodes back to the secret, any script in the text layer, layouts by assignment and
 * sales channel, backgrounds, unusable layouts, the customer's links, idempotent rendering.
 */
import { env } from "cloudflare:workers";
import { PDFDocument } from "@cantoo/pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { MM } from "../../src/lib/pdf/document";
import { TICKETS_NOT_OFFERED } from "../../src/pages/order";
import { BASE, type Json, seedOrganizer } from "../harness";
import {
  decodeQr,
  deliver,
  objectKeys,
  pdfText,
  pdfTextItems,
  rawGet,
  SEED_FONTS_TIMEOUT,
  seedFonts,
} from "../helpers/documents";
import { type Shop, shop } from "../helpers/sales";

/** Where the default layout draws the QR code: 80 mm square at (65 mm, 125 mm). */
const QR = { x: 65 * MM, y: 125 * MM, size: 80 * MM };

const NAMES = "Ζωή Łukasz 王小明 Олег שרה";

type World = { s: Shop; ticket: Json; shirt: Json; workshop: Json };

async function world(settings: Record<string, unknown> = {}): Promise<World> {
  const s = await shop({ event: { location: { en: "Kraków" }, timezone: "Europe/Warsaw" } });
  if (Object.keys(settings).length) expect((await s.client.patch(`${s.path}/settings/`, settings)).status).toBe(200);
  const ticket = await s.item({ name: { en: "Konzert-Ticket" }, default_price: "49.90" });
  const shirt = await s.item({ name: { en: "T-Shirt" }, default_price: "15.00", admission: false });
  const workshop = await s.item({
    name: { en: "Workshop" },
    default_price: "10.00",
    admission: true,
    generate_tickets: false,
  });
  await s.quota({ size: 100, items: [ticket.id, shirt.id, workshop.id] });
  return { s, ticket, shirt, workshop };
}

async function order(w: World, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await w.s.client.post(`${w.s.path}/orders/`, {
    email: "a@example.org",
    positions: [{ item: w.ticket.id, attendee_name_parts: { full_name: NAMES } }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function paid(w: World, body: Record<string, unknown> = {}): Promise<Json> {
  const o = await order(w, body);
  const res = await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_paid/`, {});
  expect(res.status).toBe(200);
  return res.body;
}

/** Downloads a PDF through `url`, rendering it on the queue in between when it is not ready. */
async function downloadPdf(w: World, url: string): Promise<{ first: number; bytes: Uint8Array }> {
  const first = await rawGet(w.s.client, url);
  if (first.status === 200) return { first: 200, bytes: first.bytes };
  expect(first.status, JSON.stringify(first.json)).toBe(409);
  await renderTickets(url);
  const second = await rawGet(w.s.client, url);
  expect(second.status, JSON.stringify(second.json)).toBe(200);
  expect(second.headers.get("Content-Type")).toBe("application/pdf");
  return { first: first.status, bytes: second.bytes };
}

/** Delivers the render message a download URL queued (the documents queue's work). */
async function renderTickets(url: string, attempts = 1) {
  const order = /\/orders\/([A-Z0-9]+)\/download/.exec(url);
  const position = /\/orderpositions\/(\d+)\/download/.exec(url);
  const page = /\/order\/([A-Z0-9]+)\/[^/]+\/download\/pdf\/(?:(\d+)\/)?/.exec(url);
  const code = order?.[1] ?? page?.[1] ?? (await codeOfPosition(Number(position![1])));
  const positionId = position ? Number(position[1]) : page?.[2] ? Number(page[2]) : null;
  const eventId = await eventIdOfCode(code);
  return deliver([{ kind: "ticket-pdf", eventId, code, positionId }], attempts);
}

async function codeOfPosition(id: number): Promise<string> {
  const row = await env.DB_2.prepare(
    "SELECT o.code AS code FROM order_positions p JOIN orders o ON o.id = p.order_id WHERE p.id = ?",
  )
    .bind(id)
    .first<{ code: string }>();
  return row!.code;
}
async function eventIdOfCode(code: string): Promise<number> {
  const row = await env.DB_2.prepare("SELECT event_id AS id FROM orders WHERE code = ?")
    .bind(code)
    .first<{ id: number }>();
  return row!.id;
}

beforeAll(seedFonts, SEED_FONTS_TIMEOUT);

describe("downloads in the order", () => {
  it("none while pending; paid: the order and each position with a ticket offer pdf at pretix's paths", async () => {
    const w = await world();
    const o = await order(w, {
      positions: [
        { positionid: 1, item: w.ticket.id },
        { positionid: 2, item: w.ticket.id, addon_to: 1 },
        { positionid: 3, item: w.shirt.id },
        { positionid: 4, item: w.workshop.id },
      ],
    });
    expect(o.downloads).toEqual([]);
    expect(o.positions.map((p: Json) => p.downloads)).toEqual([[], [], [], []]);
    const after = (await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_paid/`, {})).body;
    const api = `${BASE}/api/v1/organizers/${w.s.orgSlug}/events/${w.s.eventSlug}`;
    expect(after.downloads).toEqual([{ output: "pdf", url: `${api}/orders/${o.code}/download/pdf/` }]);
    // the shirt is not an admission product but ticket_download_nonadm is on by default; the add-on gets
    // none (ticket_download_addons off); the workshop's item says generate_tickets: false
    expect(after.positions.map((p: Json) => p.downloads)).toEqual([
      [{ output: "pdf", url: `${api}/orderpositions/${after.positions[0].id}/download/pdf/` }],
      [],
      [{ output: "pdf", url: `${api}/orderpositions/${after.positions[2].id}/download/pdf/` }],
      [],
    ]);
    const read = await w.s.client.get(`${w.s.path}/orders/${o.code}/`);
    expect(read.body.downloads).toEqual(after.downloads);
    expect((await w.s.client.get(`${w.s.path}/orders/?code=${o.code}`)).body.results[0].positions[2].downloads).toEqual(
      after.positions[2].downloads,
    );
  });

  it("follows ticket_download_pending, ticket_download_addons and ticket_download_nonadm", async () => {
    const w = await world({
      ticket_download_pending: true,
      ticket_download_addons: true,
      ticket_download_nonadm: false,
    });
    const o = await order(w, {
      positions: [
        { positionid: 1, item: w.ticket.id },
        { positionid: 2, item: w.ticket.id, addon_to: 1 },
        { positionid: 3, item: w.shirt.id },
      ],
    });
    expect(o.downloads).toHaveLength(1);
    expect(o.positions.map((p: Json) => p.downloads.length)).toEqual([1, 1, 0]);
    const canceled = (await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_canceled/`, {})).body;
    expect(canceled.downloads).toEqual([]);
    const dl = await rawGet(w.s.client, `${w.s.path}/orders/${o.code}/download/pdf/`);
    expect(dl.status).toBe(403);
    expect(dl.json).toEqual({ detail: "Downloads are not available for canceled or expired orders." });
  });
});

describe("downloads in check-in positions", () => {
  it("a list's tickets, the search and a scan's answer carry the same downloads as the order's positions", async () => {
    const w = await world({ ticket_download_pending: false });
    const list = await w.s.post("/checkinlists/", { name: "Entrance", all_products: true, include_pending: true });
    const o = await paid(w, {
      positions: [
        { positionid: 1, item: w.ticket.id },
        { positionid: 2, item: w.ticket.id, addon_to: 1 },
        { positionid: 3, item: w.workshop.id },
      ],
    });
    const pending = await order(w);
    const byId = new Map<number, Json[]>([...o.positions, ...pending.positions].map((p: Json) => [p.id, p.downloads]));
    // the order's own answer: the ticket has one, the add-on and the workshop none, the pending order none
    expect([...byId.values()].map((d) => d.length)).toEqual([1, 0, 0, 0]);
    const listed = (await w.s.client.get(`${w.s.path}/checkinlists/${list.id}/positions/?ignore_status=true`)).body
      .results as Json[];
    expect(listed).toHaveLength(4);
    for (const p of listed) expect(p.downloads, `position ${p.id}`).toEqual(byId.get(p.id));
    const one = (await w.s.client.get(`${w.s.path}/checkinlists/${list.id}/positions/${o.positions[0].id}/`)).body;
    expect(one.downloads).toEqual(o.positions[0].downloads);
    const org = `/api/v1/organizers/${w.s.orgSlug}`;
    const found = (
      await w.s.client.get(`${org}/checkinrpc/search/?list=${list.id}&search=${o.positions[0].secret.slice(0, 8)}`)
    ).body.results as Json[];
    expect(found.map((p) => p.downloads)).toEqual([o.positions[0].downloads]);
    const scan = await w.s.client.post(`${org}/checkinrpc/redeem/`, {
      secret: o.positions[0].secret,
      lists: [list.id],
    });
    expect(scan.status, JSON.stringify(scan.body)).toBe(201);
    expect(scan.body.position.downloads).toEqual(o.positions[0].downloads);
    // the URL the list gives is the one that serves the ticket
    const { bytes } = await downloadPdf(w, listed.find((p) => p.id === o.positions[0].id)!.downloads[0].url);
    expect(await decodeQr(bytes, QR)).toBe(o.positions[0].secret);
    // the event's settings count for lists too: pending orders offer tickets once ticket_download_pending is on
    await w.s.client.patch(`${w.s.path}/settings/`, { ticket_download_pending: true });
    const again = (await w.s.client.get(`${w.s.path}/checkinlists/${list.id}/positions/${pending.positions[0].id}/`))
      .body;
    expect(again.downloads).toEqual([
      {
        output: "pdf",
        url: `${BASE}/api/v1/organizers/${w.s.orgSlug}/events/${w.s.eventSlug}/orderpositions/${pending.positions[0].id}/download/pdf/`,
      },
    ]);
    expect(again.downloads).toEqual(
      (await w.s.client.get(`${w.s.path}/orders/${pending.code}/`)).body.positions[0].downloads,
    );
  });
});

describe("the ticket PDF", () => {
  it("409 while it is rendered, then a PDF whose QR code decodes to the secret and whose text layer has every script", async () => {
    const w = await world();
    const o = await paid(w);
    const p = o.positions[0];
    const { first, bytes } = await downloadPdf(w, p.downloads[0].url);
    expect(first).toBe(409);
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    const { text, pages } = await pdfText(bytes);
    expect(pages).toBe(1);
    for (const s of [NAMES, "Konzert-Ticket", "Concert", "Kraków", o.code, p.secret, "€49.90"])
      expect(text, s).toContain(s);
    // the default layout's QR code
    expect(await decodeQr(bytes, QR)).toBe(p.secret);
    // fonts are subset: the 10 MB CJK font contributes a few glyphs
    expect(bytes.length).toBeLessThan(150_000);
  });

  it("the default layout shows the start date and time with the event's time zone and the venue; in a series the date's", async () => {
    // 19:00 UTC on 1 June 2030 is 21:00 in Warsaw
    const w = await world();
    const o = await paid(w);
    const { text } = await pdfText((await downloadPdf(w, o.positions[0].downloads[0].url)).bytes);
    expect(text).toMatch(/Jun 1, 2030, 9:00\sPM \(Europe\/Warsaw\)/);
    expect(text).not.toMatch(/7:00\sPM/);
    expect(text).toContain("Kraków");

    // a series: the position's date (23:30 UTC on 4 July 2030 is 19:30 in New York), not the series' own
    const s = await shop({ series: true, event: { timezone: "America/New_York" } });
    const ticket = await s.item({ name: { en: "Evening ticket" } });
    const date = await s.subevent({ name: { en: "Fireworks" }, date_from: "2030-07-04T23:30:00Z" });
    await s.quota({ size: 5, items: [ticket.id], subevent: date.id });
    const res = await s.client.post(`${s.path}/orders/`, {
      status: "p",
      payment_provider: "manual",
      positions: [{ item: ticket.id, subevent: date.id }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const series = (await pdfText((await downloadPdf({ ...w, s }, res.body.positions[0].downloads[0].url)).bytes)).text;
    expect(series).toMatch(/Jul 4, 2030, 7:30\sPM \(America\/New_York\)/);
    expect(series).toContain("Fireworks");
    expect(series).not.toContain("Jun 1, 2030");
  });

  it("the default layout uses the page: the event at the top, the QR code in the middle, the holder below, no wide empty band", async () => {
    const w = await world();
    const o = await paid(w, { positions: [{ item: w.ticket.id, attendee_name_parts: { full_name: "Ada Lovelace" } }] });
    const { bytes } = await downloadPdf(w, o.positions[0].downloads[0].url);
    const items = await pdfTextItems(bytes);
    const y = (s: string) => items.find((i) => i.str.includes(s))!.y / MM;
    const PAGE = 297;
    // top third: the event, when and where; below the QR code (125 mm to 205 mm): the holder and the order
    expect(y("Concert")).toBeGreaterThan((PAGE * 2) / 3);
    expect(y("Kraków")).toBeGreaterThan((PAGE * 2) / 3);
    expect(y("Ada Lovelace")).toBeLessThan(125);
    expect(y("Konzert-Ticket")).toBeLessThan(125);
    expect(y(`${o.code}-1`)).toBeLessThan(125);
    expect(y("Show this ticket at the entrance")).toBeLessThan(PAGE / 4);
    expect(await decodeQr(bytes, QR)).toBe(o.positions[0].secret);
    // no band of the page wider than 45 mm is empty (the QR code counts as content)
    const filled = [...items.map((i) => i.y / MM), 125, 145, 165, 185, 205].sort((a, b) => a - b);
    const gaps = filled.slice(1).map((v, k) => v - filled[k]!);
    expect(Math.max(...gaps)).toBeLessThan(45);
    expect(filled[0]).toBeLessThan(25);
    expect(filled.at(-1)).toBeGreaterThan(250);
  });

  it("a non-admission product gets a ticket while ticket_download_nonadm is on (pretix's default), none once it is off", async () => {
    const on = await world();
    const both = await paid(on, { positions: [{ item: on.ticket.id }, { item: on.shirt.id }] });
    const all = (await downloadPdf(on, both.downloads[0].url)).bytes;
    expect((await pdfText(all)).pages).toBe(2);
    expect((await pdfText(all)).text).toContain("T-Shirt");
    expect(await decodeQr(all, QR, 1)).toBe(both.positions[1].secret);

    const off = await world({ ticket_download_nonadm: false });
    const o = await paid(off, { positions: [{ item: off.ticket.id }, { item: off.shirt.id }] });
    expect(o.positions.map((p: Json) => p.downloads.length)).toEqual([1, 0]);
    // the order's PDF has the admission ticket only
    const { bytes } = await downloadPdf(off, o.downloads[0].url);
    const { text, pages } = await pdfText(bytes);
    expect(pages).toBe(1);
    expect(text).toContain("Konzert-Ticket");
    expect(text).not.toContain("T-Shirt");
    expect(await decodeQr(bytes, QR)).toBe(o.positions[0].secret);
    // the shirt's own download is refused
    const shirt = await rawGet(off.s.client, `${off.s.path}/orderpositions/${o.positions[1].id}/download/pdf/`);
    expect(shirt.status).toBe(403);
    expect(shirt.json).toEqual({ detail: "Downloads are not enabled for this product." });
  });

  it("the order's download is every ticket in one PDF; a message delivered twice leaves one file", async () => {
    const w = await world();
    const o = await paid(w, {
      positions: [
        { item: w.ticket.id, attendee_name_parts: { full_name: "Anna" } },
        { item: w.ticket.id, attendee_name_parts: { full_name: "Bert" } },
      ],
    });
    const url = o.downloads[0].url;
    expect((await rawGet(w.s.client, url)).status).toBe(409);
    await renderTickets(url);
    await renderTickets(url);
    const keys = await objectKeys(`tickets/${await eventIdOfCode(o.code)}/`);
    expect(keys.filter((k) => k.includes("/order-"))).toHaveLength(1);
    const { bytes } = await downloadPdf(w, url);
    const { text, pages } = await pdfText(bytes);
    expect(pages).toBe(2);
    expect(text).toContain("Anna");
    expect(text).toContain("Bert");
    expect(await decodeQr(bytes, QR, 1)).toBe(o.positions[1].secret);
  });

  it("changed data gets a new file; the old one is removed", async () => {
    const w = await world();
    const o = await paid(w);
    const url = o.positions[0].downloads[0].url;
    await downloadPdf(w, url);
    const before = await objectKeys(`tickets/${await eventIdOfCode(o.code)}/`);
    await w.s.client.patch(`${w.s.path}/items/${w.ticket.id}/`, { name: { en: "Renamed ticket" } });
    const { first, bytes } = await downloadPdf(w, url);
    expect(first).toBe(409);
    expect((await pdfText(bytes)).text).toContain("Renamed ticket");
    const after = await objectKeys(`tickets/${await eventIdOfCode(o.code)}/`);
    expect(after).toHaveLength(1);
    expect(after).not.toEqual(before);
  });

  it("404 for another output or position, 403 for another organizer", async () => {
    const w = await world();
    const o = await paid(w);
    expect((await rawGet(w.s.client, `${w.s.path}/orders/${o.code}/download/passbook/`)).status).toBe(404);
    expect((await rawGet(w.s.client, `${w.s.path}/orderpositions/999999/download/pdf/`)).status).toBe(404);
    expect((await rawGet(w.s.client, `${w.s.path}/orders/NOPE/download/pdf/`)).status).toBe(404);
    const foreign = await seedOrganizer();
    expect((await rawGet(foreign.client, o.positions[0].downloads[0].url)).status).toBe(403);
    const other = await world();
    // a position of another event, addressed through this event
    expect(
      (await rawGet(w.s.client, `${w.s.path}/orderpositions/${(await paid(other)).positions[0].id}/download/pdf/`))
        .status,
    ).toBe(404);
  });
});

describe("layouts", () => {
  it("the item's layout for the order's sales channel, else the event's default; pretix's elements and variables", async () => {
    const w = await world();
    const text = (content: Record<string, unknown>, bottom: number) => ({
      type: "textarea",
      left: 10,
      bottom,
      width: 180,
      fontsize: 12,
      fontfamily: "Open Sans",
      bold: false,
      italic: false,
      align: "left",
      color: [0, 0, 0, 1],
      downward: true,
      ...content,
    });
    const def = await w.s.post("/ticketlayouts/", {
      name: "Standard",
      default: true,
      layout: [text({ content: "other", text: "STANDARD {attendee_name}" }, 280)],
    });
    const vip = await w.s.post("/ticketlayouts/", {
      name: "VIP",
      layout: [
        text(
          { content: "other", text: "VIP {attendee_name} / {order_positionid} / {event_location} / {unknown_var}" },
          280,
        ),
        text({ content: "other_i18n", text_i18n: { en: "Welcome {attendee_name_full_name}", de: "Willkommen" } }, 260),
        text({ content: "itemvar", bold: true, align: "center", rotation: 90 }, 200),
        { type: "barcodearea", left: 20, bottom: 60, size: 40, content: "secret" },
        { type: "imagearea", left: 120, bottom: 60, width: 30, height: 30, content: "logo" },
        { type: "poweredby", left: 0, bottom: 0, size: 20, content: "dark" },
        { type: "somethingnew", anything: true },
      ],
    });
    await w.s.post("/ticketlayoutitems/", { layout: vip.id, item: w.ticket.id, sales_channel: "web" });
    const web = await paid(w);
    const webPdf = (await downloadPdf(w, web.positions[0].downloads[0].url)).bytes;
    const webText = (await pdfText(webPdf)).text;
    expect(webText).toContain(`VIP ${NAMES} / ${web.code}-1 / Kraków / {unknown_var}`);
    expect(webText).toContain(`Welcome ${NAMES}`);
    expect(webText).not.toContain("STANDARD");
    expect(await decodeQr(webPdf, { x: 20 * MM, y: 60 * MM, size: 40 * MM })).toBe(web.positions[0].secret);
    // another channel: the default layout
    const box = await paid(w, { sales_channel: "resellers" });
    const boxText = (await pdfText((await downloadPdf(w, box.positions[0].downloads[0].url)).bytes)).text;
    expect(boxText).toContain(`STANDARD ${NAMES}`);
    void def;
  });

  it("a background PDF gives the pages and their size", async () => {
    const w = await world();
    const bg = await PDFDocument.create();
    bg.addPage([105 * MM, 148 * MM]); // A6
    const bgBytes = await bg.save();
    const up = await w.s.client.request("POST", "/api/v1/upload", undefined, {
      raw: bgBytes,
      headers: { "Content-Type": "application/pdf", "Content-Disposition": "attachment; filename=bg.pdf" },
    });
    expect(up.status).toBe(201);
    await w.s.post("/ticketlayouts/", {
      name: "A6",
      default: true,
      background: up.body.id,
      layout: [
        { type: "barcodearea", left: 10, bottom: 10, size: 50 },
        {
          type: "textarea",
          left: 10,
          bottom: 140,
          width: 85,
          fontsize: 10,
          bold: false,
          italic: false,
          align: "left",
          color: [0, 0, 0],
          content: "attendee_name",
          downward: true,
          page: 2,
        },
      ],
    });
    const o = await paid(w);
    const { bytes } = await downloadPdf(w, o.positions[0].downloads[0].url);
    const doc = await PDFDocument.load(bytes);
    expect(doc.getPageCount()).toBe(1);
    const { width, height } = doc.getPage(0).getSize();
    expect([Math.round(width), Math.round(height)]).toEqual([Math.round(105 * MM), Math.round(148 * MM)]);
    expect(await decodeQr(bytes, { x: 10 * MM, y: 10 * MM, size: 50 * MM })).toBe(o.positions[0].secret);
    // the element of page 2 has no page to go on (pretix draws only on the background's pages)
    expect((await pdfText(bytes)).text).not.toContain(NAMES);
  });

  it("a layout the renderer cannot use answers 400 with the reason, never a broken PDF", async () => {
    const w = await world();
    const layout = await w.s.post("/ticketlayouts/", {
      name: "Broken",
      default: true,
      layout: [
        { type: "textarea", left: 10, bottom: "high", width: 100, fontsize: 12, content: "attendee_name" },
        { type: "barcodearea", left: 1, bottom: 1 },
      ],
    });
    const o = await paid(w);
    const res = await rawGet(w.s.client, o.positions[0].downloads[0].url);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      detail:
        'The ticket layout "Broken" cannot be rendered: layout[0] (textarea): "bottom" must be a number; layout[1] (barcodearea): "size" is missing',
    });
    // a background that is not a PDF: found by the renderer, then answered as such
    const fake = await w.s.client.request("POST", "/api/v1/upload", undefined, {
      raw: "%PDF-1.7 this is not a pdf",
      headers: { "Content-Type": "application/pdf", "Content-Disposition": "attachment; filename=fake.pdf" },
    });
    await w.s.client.patch(`${w.s.path}/ticketlayouts/${layout.id}/`, {
      layout: [{ type: "barcodearea", left: 1, bottom: 1, size: 30 }],
      background: fake.body.id,
    });
    const url = o.positions[0].downloads[0].url;
    expect((await rawGet(w.s.client, url)).status).toBe(409);
    await renderTickets(url);
    const broken = await rawGet(w.s.client, url);
    expect(broken.status).toBe(400);
    expect(broken.json.detail).toMatch(
      /^The ticket layout "Broken" cannot be rendered: its background is not a PDF that can be read/,
    );
    expect((await objectKeys(`tickets/${await eventIdOfCode(o.code)}/`)).filter((k) => k.endsWith(".pdf"))).toEqual([]);
  });

  it("a barcode whose content no QR code can hold: 400 with the reason once the renderer found it", async () => {
    const w = await world();
    await w.s.post("/ticketlayouts/", {
      name: "Long",
      default: true,
      layout: [
        {
          type: "barcodearea",
          left: 10,
          bottom: 10,
          size: 50,
          content: "other",
          text: `{attendee_name} ${"x".repeat(4000)}`,
        },
      ],
    });
    const o = await paid(w);
    const url = o.positions[0].downloads[0].url;
    expect((await rawGet(w.s.client, url)).status).toBe(409);
    await renderTickets(url);
    const res = await rawGet(w.s.client, url);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({
      detail: `The ticket layout "Long" cannot be rendered: the content of a barcode (${4001 + new TextEncoder().encode(NAMES).length} bytes) is too long for a QR code`,
    });
  });
});

describe("the customer's order page", () => {
  it("offers no downloads while ticket_download is off; links and files once it is on", async () => {
    const w = await world();
    const o = await paid(w);
    const off = new TextDecoder().decode((await rawGet(null, o.url)).bytes);
    expect(off).not.toContain("download/pdf");
    // the buyer is told that the tickets are not offered here, rather than left looking for them
    expect(off).toContain(`<p class="note">${TICKETS_NOT_OFFERED}</p>`);
    expect((await rawGet(null, `${o.url}download/pdf/`)).status).toBe(404);
    // a pending order has no tickets yet: nothing said about downloads
    const pending = new TextDecoder().decode((await rawGet(null, (await order(w)).url)).bytes);
    expect(pending).not.toContain(TICKETS_NOT_OFFERED);
    await w.s.client.patch(`${w.s.path}/settings/`, { ticket_download: true });
    const on = new TextDecoder().decode((await rawGet(null, o.url)).bytes);
    expect(on).not.toContain(TICKETS_NOT_OFFERED);
    expect(on).toContain(`href="${o.url}download/pdf/"`);
    expect(on).toContain(`href="${o.url}download/pdf/${o.positions[0].id}/"`);
    const url = `${o.url}download/pdf/${o.positions[0].id}/`;
    const first = await rawGet(null, url);
    expect(first.status).toBe(409);
    expect(first.headers.get("Refresh")).toBe("2");
    await renderTickets(url);
    const file = await rawGet(null, url);
    expect(file.status).toBe(200);
    expect(file.headers.get("Content-Type")).toBe("application/pdf");
    expect(await decodeQr(file.bytes, QR)).toBe(o.positions[0].secret);
    // the order's secret is the credential
    expect((await rawGet(null, url.replace(o.secret, "wrongsecret123"))).status).toBe(404);
  });
});
