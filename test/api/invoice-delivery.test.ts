/**
 * Invoices reaching the customer: the event setting `invoice_email_attachment` (pretix: the
 * order placed / paid mail carries the invoice the change generated) through the mail outbox,
 * and the order page listing the order's invoices with their PDFs for the holder of the
 * order's secret link.
 */
import type { DocumentMessage } from "../../src/lib/queues";
import { env } from "cloudflare:workers";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { invoices, mailOutbox } from "../../src/db/schema";
import type { Env } from "../../src/lib/env";
import { deliverMail } from "../../src/jobs/mail";
import { mailInsertStatement } from "../../src/db/mail";
import { composeMail } from "../../src/services/mail/mail";
import { db, HARNESS_GROUP, type Json, groupTestEnv } from "../harness";
import { deliver as deliverDocuments, pdfText, SEED_FONTS_TIMEOUT, seedFonts } from "../helpers/documents";
import { getPage } from "../helpers/pages";
import { type Shop, shop } from "../helpers/sales";

const ISSUER = {
  invoice_address_from_name: "Big Events LLC",
  invoice_address_from: "Demo street 12",
  invoice_address_from_zipcode: "10115",
  invoice_address_from_city: "Berlin",
  invoice_address_from_country: "DE",
};

let documents: DocumentMessage[];
beforeAll(seedFonts, SEED_FONTS_TIMEOUT);
beforeEach(() => {
  // nothing is delivered in the background: the tests deliver mails and render PDFs themselves
  vi.spyOn(env.MAIL_QUEUE, "sendBatch").mockResolvedValue(undefined as never);
  documents = [];
  vi.spyOn(env.DOCUMENTS_QUEUE, "sendBatch").mockImplementation(async (messages) => {
    for (const m of messages) documents.push(m.body as DocumentMessage);
    return undefined as never;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
});

type World = { s: Shop; ticket: Json };

async function world(settings: Record<string, unknown>): Promise<World> {
  const s = await shop();
  const patched = await s.client.patch(`${s.path}/settings/`, { ...ISSUER, ...settings });
  expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  const ticket = await s.item({ default_price: "50.00" });
  await s.quota({ size: 100, items: [ticket.id] });
  return { s, ticket };
}

async function order(w: World, email: string, extra: Record<string, unknown> = {}): Promise<Json> {
  const res = await w.s.client.post(`${w.s.path}/orders/`, {
    email,
    send_email: true,
    payment_provider: "manual",
    invoice_address: { name_parts: { full_name: "Anna Bell" }, city: "Berlin", country: "DE" },
    positions: [{ item: w.ticket.id }],
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function mailsTo(address: string) {
  return db().select().from(mailOutbox).where(eq(mailOutbox.toAddress, address)).orderBy(mailOutbox.id);
}

async function invoicesOf(w: World): Promise<Json[]> {
  const res = await w.s.client.get(`${w.s.path}/invoices/?ordering=nr`);
  expect(res.status).toBe(200);
  return res.body.results;
}

async function objectBytes(key: string): Promise<Uint8Array> {
  const object = await env.FILES.get(key);
  expect(object, key).not.toBeNull();
  return new Uint8Array(await object!.arrayBuffer());
}

const startsWithPdf = (bytes: Uint8Array) => new TextDecoder("latin1").decode(bytes.subarray(0, 5)) === "%PDF-";

/** The environment with the Cloudflare transport and a stand-in for the send_email binding. */
function cloudflareEnv() {
  const send = vi.fn(async (_message: unknown) => ({ messageId: "<sent@example.org>" }));
  return {
    env: {
      ...(env as unknown as Env),
      MAIL_TRANSPORT: "cloudflare",
      MAIL_FROM: "tickets@example.org",
      EMAIL: { send },
    } as unknown as Env,
    send,
  };
}

describe("invoice_email_attachment", () => {
  it("on: the order placed mail carries the invoice's PDF (rendered when the mail goes out if needed)", async () => {
    const w = await world({ invoice_generate: "True", invoice_email_attachment: true });
    const o = await order(w, "with@example.org");
    const [inv] = await invoicesOf(w);
    expect(inv.order).toBe(o.code);
    const [mail] = await mailsTo("with@example.org");
    expect(mail).toMatchObject({ kind: "order_placed", state: "queued" });
    // the outbox row holds a reference, not the file
    expect(mail!.attachments).toEqual([{ kind: "order_invoice", order: o.code }]);
    // the PDF has not been rendered (the documents queue did not run): delivery renders it
    expect(documents).toEqual([
      { kind: "invoice-pdf", invoiceId: expect.any(Number), version: 1, group: HARNESS_GROUP },
    ]);
    const row = await db().select().from(invoices).where(eq(invoices.number, inv.number)).get();
    expect(row!.file).toBeNull();

    const cf = cloudflareEnv();
    await deliverMail(cf.env, db(), mail!.id);
    const [sent] = await mailsTo("with@example.org");
    expect(sent).toMatchObject({ state: "sent", messageId: "<sent@example.org>", lastError: null });
    const key = `invoices/${row!.eventId}/${row!.id}/v1.pdf`;
    expect(sent!.attachments).toEqual([
      { kind: "file", key, filename: `${inv.number}.pdf`, contentType: "application/pdf" },
    ]);
    expect(cf.send).toHaveBeenCalledTimes(1);
    const message = cf.send.mock.calls[0]![0] as Json;
    expect(message).toMatchObject({ to: "with@example.org", subject: `Your order: ${o.code}` });
    expect(message.attachments).toHaveLength(1);
    expect(message.attachments[0]).toMatchObject({
      disposition: "attachment",
      filename: `${inv.number}.pdf`,
      type: "application/pdf",
    });
    const pdf = new Uint8Array(message.attachments[0].content as ArrayBuffer);
    expect(startsWithPdf(pdf)).toBe(true);
    expect((await pdfText(pdf)).text).toContain(inv.number);
    expect(await objectBytes(key)).toEqual(pdf);
    // delivered again (a message delivered twice): nothing is sent a second time
    await deliverMail(cf.env, db(), mail!.id);
    expect(cf.send).toHaveBeenCalledTimes(1);
  });

  it("off: the same mail goes out without an attachment", async () => {
    const w = await world({ invoice_generate: "True" });
    const o = await order(w, "without@example.org");
    expect(await invoicesOf(w)).toHaveLength(1);
    const [mail] = await mailsTo("without@example.org");
    expect(mail).toMatchObject({ kind: "order_placed", attachments: null });
    const cf = cloudflareEnv();
    await deliverMail(cf.env, db(), mail!.id);
    const message = cf.send.mock.calls[0]![0] as Json;
    expect(message.subject).toBe(`Your order: ${o.code}`);
    expect(message.attachments).toBeUndefined();
    expect((await mailsTo("without@example.org"))[0]).toMatchObject({ state: "sent", attachments: null });
  });

  it('invoice_generate "paid": the paid mail carries the invoice the payment created, the placed mail none', async () => {
    const w = await world({ invoice_generate: "paid", invoice_email_attachment: true });
    const o = await order(w, "payer@example.org");
    expect(await invoicesOf(w)).toEqual([]);
    expect((await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_paid/`, { send_email: true })).status).toBe(200);
    const [inv] = await invoicesOf(w);
    const [placed, paid] = await mailsTo("payer@example.org");
    expect(placed).toMatchObject({ kind: "order_placed", attachments: null });
    expect(paid).toMatchObject({ kind: "order_paid", attachments: [{ kind: "order_invoice", order: o.code }] });
    // the documents queue rendered the PDF first this time
    await deliverDocuments(documents.splice(0));
    await deliverMail(groupTestEnv(), db(), paid!.id);
    const [, after] = await mailsTo("payer@example.org");
    expect(after!.state).toBe("sent");
    expect(after!.attachments).toEqual([
      {
        kind: "file",
        key: expect.stringMatching(/^invoices\/\d+\/\d+\/v1\.pdf$/),
        filename: `${inv.number}.pdf`,
        contentType: "application/pdf",
      },
    ]);
    const file = after!.attachments![0] as { key: string };
    expect(startsWithPdf(await objectBytes(file.key))).toBe(true);
  });

  it('invoice_generate "True": paying later sends no invoice again (pretix attaches the one the change generated)', async () => {
    const w = await world({ invoice_generate: "True", invoice_email_attachment: true });
    const o = await order(w, "twice@example.org");
    expect((await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_paid/`, { send_email: true })).status).toBe(200);
    const mails = await mailsTo("twice@example.org");
    expect(mails.map((m) => [m.kind, m.attachments])).toEqual([
      ["order_placed", [{ kind: "order_invoice", order: o.code }]],
      ["order_paid", null],
    ]);
  });

  it("a mail delivered before the order's invoice exists brings the invoices up to date and carries the new one", async () => {
    const w = await world({ invoice_generate: "False", invoice_email_attachment: true });
    const o = await order(w, "early@example.org");
    expect(await invoicesOf(w)).toEqual([]);
    // as if the order's hook had not run yet: invoicing is due, the mail names the invoice, none exists
    expect((await w.s.client.patch(`${w.s.path}/settings/`, { invoice_generate: "True" })).status).toBe(200);
    const ev = await db().query.events.findFirst({ where: (e, { eq: q }) => q(e.slug, w.s.eventSlug) });
    const [row] = await mailInsertStatement(
      db(),
      composeMail({
        kind: "order_placed",
        organizerId: ev!.organizerId,
        eventId: ev!.id,
        to: "early2@example.org",
        subject: "Your order",
        text: "Hello",
        attachments: [{ kind: "order_invoice", order: o.code }],
        now: Date.now(),
      }),
    );
    await deliverMail(groupTestEnv(), db(), row!.id);
    const [inv] = await invoicesOf(w);
    expect(inv.order).toBe(o.code);
    const [mail] = await mailsTo("early2@example.org");
    expect(mail).toMatchObject({
      state: "sent",
      attachments: [{ kind: "file", filename: `${inv.number}.pdf`, contentType: "application/pdf" }],
    });
    expect(startsWithPdf(await objectBytes((mail!.attachments![0] as { key: string }).key))).toBe(true);
  });
});

describe("the order page's invoices", () => {
  it("lists the order's invoices and answers their PDFs to the secret link's holder only", async () => {
    const w = await world({ invoice_generate: "True" });
    const o = await order(w, "page@example.org");
    const other = await order(w, "other@example.org");
    expect((await w.s.client.post(`${w.s.path}/orders/${o.code}/mark_canceled/`, {})).status).toBe(200);
    const [inv, otherInv, cancellation] = await invoicesOf(w);
    expect([inv.order, otherInv.order, cancellation.order, cancellation.refers]).toEqual([
      o.code,
      other.code,
      o.code,
      inv.number,
    ]);
    const rows = await db()
      .select({ id: invoices.id, number: invoices.number })
      .from(invoices)
      .where(eq(invoices.orderId, (await orderRowId(w, o.code))!));
    const idOf = (n: string) => rows.find((r) => r.number === n)!.id;

    const pageRes = await getPage(o.url);
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).toContain("<h2>Invoices</h2>");
    expect(pageRes.text).toContain(`<a href="${o.url}invoice/${idOf(inv.number)}">Invoice ${inv.number}</a>`);
    expect(pageRes.text).toContain(
      `<a href="${o.url}invoice/${idOf(cancellation.number)}">Cancellation ${cancellation.number}</a>`,
    );
    expect(pageRes.text).not.toContain(otherInv.number);

    // not rendered yet: a page that reloads itself, and the rendering is queued
    documents.length = 0;
    const waiting = await getPage(`${o.url}invoice/${idOf(inv.number)}`);
    expect(waiting.status).toBe(409);
    expect(waiting.headers.get("Refresh")).toBe("2");
    expect(waiting.text).toContain("Your invoice is being prepared.");
    expect(documents).toEqual([{ kind: "invoice-pdf", invoiceId: idOf(inv.number), version: 1, group: HARNESS_GROUP }]);
    await deliverDocuments(documents.splice(0));
    const { exports } = await import("cloudflare:workers");
    const pdf = await exports.default.fetch(new Request(`${o.url}invoice/${idOf(inv.number)}`));
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get("Content-Type")).toBe("application/pdf");
    expect(pdf.headers.get("Content-Disposition")).toBe(`attachment; filename="${inv.number}.pdf"`);
    expect(pdf.headers.get("Cache-Control")).toBe("private, no-store");
    const bytes = new Uint8Array(await pdf.arrayBuffer());
    expect(startsWithPdf(bytes)).toBe(true);
    expect((await pdfText(bytes)).text).toContain(inv.number);

    // another order's invoice through this order's link, a wrong secret, an unknown invoice: not found
    const otherRow = await db()
      .select({ id: invoices.id })
      .from(invoices)
      .where(eq(invoices.number, otherInv.number))
      .get();
    expect((await getPage(`${o.url}invoice/${otherRow!.id}`)).status).toBe(404);
    const wrongSecret = o.url.replace(/\/([^/]+)\/$/, "/wrongsecret0000/");
    expect(wrongSecret).not.toBe(o.url);
    expect((await getPage(`${wrongSecret}invoice/${idOf(inv.number)}`)).status).toBe(404);
    expect((await getPage(`${o.url}invoice/99999999`)).status).toBe(404);
  });

  it("shows no invoice section for an order without invoices", async () => {
    const w = await world({ invoice_generate: "False" });
    const o = await order(w, "none@example.org");
    const pageRes = await getPage(o.url);
    expect(pageRes.status).toBe(200);
    expect(pageRes.text).not.toContain("<h2>Invoices</h2>");
  });
});

async function orderRowId(w: World, code: string): Promise<number | undefined> {
  const { orders, events } = await import("../../src/db/schema");
  const row = await db()
    .select({ id: orders.id })
    .from(orders)
    .innerJoin(events, eq(events.id, orders.eventId))
    .where(and(eq(orders.code, code), eq(events.slug, w.s.eventSlug)))
    .get();
  return row?.id;
}
