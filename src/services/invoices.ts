/**
 * Invoices as pretix makes them (pretix docs invoices.rst, orders.rst `create_invoice`; open
 * point 26): the event setting `invoice_generate` says when they come to exist — "True" when an
 * order is placed, "paid" when it is paid, "admin" / "user" only through the order action
 * `create_invoice` ("False": never). Free orders, orders awaiting approval and orders of sales
 * channels outside `invoice_generate_sales_channels` get none automatically. Canceling or
 * expiring an order cancels its invoices with cancellation invoices (`is_cancellation`,
 * `refers`). Numbers: the prefix (`invoice_numbers_prefix`, for cancellations
 * `invoice_numbers_prefix_cancellations`; default the event slug in capitals and a dash; %Y %y
 * %m %d) and a counter per organizer and prefix, drawn in the transaction that creates the
 * invoice, so numbers are unique and without gaps however many orders are paid at once.
 *
 * Creation is idempotent: an invoice is only written while the order has none that is not
 * canceled, a cancellation only while its invoice has none. The order services call the hooks
 * right after an order is placed or changes status; the cron sweep (`sweepInvoices`) catches
 * any order a failed hook missed. The PDF is rendered on the documents queue.
 */
import { dispatchDocuments } from "../lib/queues";
import { log } from "../lib/log";
import type { DB } from "../db/client";
import {
  findInvoice,
  findInvoiceById,
  type InvoiceFacts,
  invoiceConditions as when,
  invoiceFacts,
  type InvoiceInsert,
  type InvoiceRecord,
  insertInvoices,
  invoicesWithoutFile,
  orderInvoices,
  ordersForInvoiceSweep,
  replaceInvoiceContent,
  setSweepMark,
  type SweepCursor,
  sweepMark,
  eventById,
  setInvoiceFile,
  setInvoiceFileError,
} from "../db/invoices";
import { findOrder, type InvoicingFacts, type OrderRecord } from "../db/orders";
import type { InvoiceLine, InvoiceTexts, OrderStatus } from "../db/schema";
import type { EventRow } from "../db/tenancy";
import type { Env } from "../lib/env";
import { zonedDate, formatDate } from "../lib/datetime";
import { countryName, formatRangeFor } from "../lib/format";
import { i18nText } from "../lib/i18n";
import { randomString } from "../lib/crypto";
import type { EventContext } from "./context";
import { loadFont, notReady } from "./documents";
import { badRequest, Failure, isFailure, notFound } from "../lib/failure";
import { renderInvoicePdf } from "./invoice-render";
import { buildName } from "../rules/person-names";
import { effectiveSettings } from "./settings";
import { EVENT_SETTINGS } from "./settings-keys";

/** What invoice services need: bindings, database, the event (its organizer by id), the time. */
export type InvoiceScope = { env: Env; db: DB; event: EventRow; now: number };

const FEE_NAMES: Record<string, string> = {
  payment: "Payment fee",
  shipping: "Shipping fee",
  service: "Service fee",
  cancellation: "Cancellation fee",
  insurance: "Insurance fee",
  late: "Late fee",
  other: "Other fees",
  giftcard: "Gift card",
};

const ALREADY_CANCELED = "The invoice has already been canceled.";

/** The event's effective settings from the stored rows read with the facts. */
export function invoiceSettings(
  facts: Pick<InvoiceFacts, "eventSettings" | "organizerSettings">,
): Record<string, unknown> {
  return effectiveSettings(facts.eventSettings, EVENT_SETTINGS, effectiveSettings(facts.organizerSettings));
}

/** pretix's `invoice_qualified`: not free, not awaiting approval, of a sales channel that gets invoices. */
export function invoiceQualified(
  order: Pick<OrderRecord["order"], "total" | "requireApproval" | "salesChannel">,
  settings: Record<string, unknown>,
): boolean {
  const channels = (settings.invoice_generate_sales_channels as string[] | undefined) ?? ["web"];
  return order.total !== 0 && !order.requireApproval && channels.includes(order.salesChannel);
}

/**
 * Whether a mail about an order that was just placed or paid carries an invoice (pretix's
 * `invoice_email_attachment`: the mail attaches the invoice the change generated). True when
 * the setting is on and the change makes the automatic modes create one: the order qualifies,
 * the mode wants an invoice in the new status, and the order had no live invoice before it
 * (`liveBefore`). The invoice itself is looked up when the mail is delivered.
 */
export function mailCarriesInvoice(
  settings: Record<string, unknown>,
  order: Pick<OrderRecord["order"], "total" | "requireApproval" | "salesChannel">,
  status: OrderStatus,
  liveBefore: number,
): boolean {
  return (
    settings.invoice_email_attachment === true &&
    liveBefore === 0 &&
    wantsAutomaticInvoice(status, settings) &&
    invoiceQualified(order, settings)
  );
}

/** Whether an invoice should exist now without anyone asking (the automatic modes). */
function wantsAutomaticInvoice(status: OrderStatus, settings: Record<string, unknown>): boolean {
  const mode = settings.invoice_generate;
  return (mode === "True" && (status === "n" || status === "p")) || (mode === "paid" && status === "p");
}

/** The invoice date: today in the event's timezone. */
function invoiceDate(event: EventRow, now: number): string {
  return formatDate(zonedDate(now, event.timezone));
}

/** The number prefix for an invoice of this date (strftime's %Y %y %m %d %% as pretix applies them). */
export function invoicePrefix(
  event: EventRow,
  settings: Record<string, unknown>,
  date: string,
  isCancellation: boolean,
): string {
  const regular = (settings.invoice_numbers_prefix as string) || `${event.slug.toUpperCase()}-`;
  const raw = isCancellation ? (settings.invoice_numbers_prefix_cancellations as string) || regular : regular;
  const [y, m, d] = date.split("-") as [string, string, string];
  return raw.replace(/%([Yymd%])/g, (_, c: string) => ({ Y: y, y: y.slice(2), m, d, "%": "%" })[c]!);
}

/** The texts and lines of an invoice for the order as it is now (pretix's build_invoice). */
export function buildInvoiceContent(
  event: EventRow,
  r: OrderRecord,
  facts: InvoiceFacts,
  settings: Record<string, unknown>,
): { locale: string; texts: InvoiceTexts; lines: InvoiceLine[] } {
  const locale = r.order.locale;
  const text = (key: string) => i18nText(settings[key] as Record<string, string> | null, locale);
  const ia = r.order.invoiceAddress;
  const name = ia ? (buildName(ia.name_parts) ?? "") : "";
  const country = ia ? countryName(ia.country, locale) : "";
  const toLines = ia
    ? [ia.company, name, ia.street, `${ia.zipcode} ${ia.city} ${ia.state}`, country]
        .map((l) => l.trim().replace(/\s+/g, " "))
        .filter(Boolean)
    : [];
  if (ia?.vat_id) toLines.push(`VAT-ID: ${ia.vat_id}`);
  const paid = r.order.status === "p";
  const texts: InvoiceTexts = {
    invoice_from_name: (settings.invoice_address_from_name as string) ?? "",
    invoice_from: (settings.invoice_address_from as string) ?? "",
    invoice_from_zipcode: (settings.invoice_address_from_zipcode as string) ?? "",
    invoice_from_city: (settings.invoice_address_from_city as string) ?? "",
    invoice_from_country: (settings.invoice_address_from_country as string) ?? "",
    invoice_from_tax_id: (settings.invoice_address_from_tax_id as string) ?? "",
    invoice_from_vat_id: (settings.invoice_address_from_vat_id as string) ?? "",
    invoice_to: toLines.join("\n"),
    invoice_to_company: ia?.company ?? "",
    invoice_to_name: name,
    invoice_to_street: ia?.street ?? "",
    invoice_to_zipcode: ia?.zipcode ?? "",
    invoice_to_city: ia?.city ?? "",
    invoice_to_state: ia?.state ?? "",
    invoice_to_country: ia?.country ?? "",
    invoice_to_vat_id: ia?.vat_id ?? "",
    invoice_to_beneficiary: "",
    custom_field: null,
    introductory_text: text("invoice_introductory_text"),
    additional_text: text("invoice_additional_text"),
    payment_provider_text: paid && r.payments.length ? "The payment for this invoice has already been received." : "",
    payment_provider_stamp: paid && r.payments.length ? "paid" : null,
    footer_text: text("invoice_footer_text"),
    internal_reference: ia?.internal_reference ?? "",
  };

  const positions = r.positions.filter((p) => p.canceled !== 1).sort((a, b) => a.positionid - b.positionid);
  const hasAddons = new Set(positions.filter((p) => p.addon_to !== null).map((p) => p.addon_to));
  const eventLocation = i18nText(event.location, locale) || null;
  const lines: InvoiceLine[] = [];
  for (const p of positions) {
    if (settings.invoice_include_free === false && p.price === 0 && !hasAddons.has(p.id)) continue;
    let desc = i18nText(facts.items.get(p.item), locale);
    if (p.variation !== null) desc += ` - ${i18nText(facts.variations.get(p.variation), locale)}`;
    if (p.addon_to !== null) desc = `  + ${desc}`;
    const attendee = settings.invoice_attendee_name !== false ? p.attendee_name : null;
    if (attendee) desc += `\nAttendee: ${attendee}`;
    for (const a of p.answers) {
      const q = facts.printedQuestions.get(a.question);
      if (q && a.answer !== "") desc += `\n${i18nText(q.question, locale)}: ${a.answer}`;
    }
    const sub = p.subevent !== null ? facts.subevents.get(p.subevent) : undefined;
    if (event.hasSubevents && sub)
      desc += `\nDate: ${formatRangeFor(sub.dateFrom, sub.dateTo, event.timezone, locale)}`;
    lines.push({
      position: lines.length + 1,
      description: desc,
      item: p.item,
      variation: p.variation,
      subevent: p.subevent,
      fee_type: null,
      fee_internal_type: null,
      event_date_from: sub ? sub.dateFrom : event.dateFrom,
      event_date_to: sub ? sub.dateTo : event.dateTo,
      event_location: sub ? i18nText(sub.location, locale) || null : eventLocation,
      attendee_name: attendee || null,
      gross_value: p.price,
      tax_value: p.tax_value,
      tax_name: p.tax_rule !== null ? i18nText(facts.taxRules.get(p.tax_rule), locale) : "",
      tax_rate: p.tax_rate,
    });
  }
  for (const f of r.fees.filter((x) => x.canceled !== 1)) {
    const title =
      f.fee_type === "other" && f.description
        ? f.description
        : `${FEE_NAMES[f.fee_type] ?? f.fee_type}${f.description ? ` - ${f.description}` : ""}`;
    lines.push({
      position: lines.length + 1,
      description: title,
      item: null,
      variation: null,
      subevent: null,
      fee_type: f.fee_type,
      fee_internal_type: f.internal_type || null,
      event_date_from: event.hasSubevents ? null : event.dateFrom,
      event_date_to: event.hasSubevents ? null : event.dateTo,
      event_location: event.hasSubevents ? null : eventLocation,
      attendee_name: null,
      gross_value: f.value,
      tax_value: f.tax_value,
      tax_name: f.tax_rule !== null ? i18nText(facts.taxRules.get(f.tax_rule), locale) : "",
      tax_rate: f.tax_rate,
    });
  }
  return { locale, texts, lines };
}

/** The content of a cancellation of `inv`: its texts without payment information, its lines negated. */
function cancellationContent(inv: Pick<InvoiceRecord["invoice"], "locale" | "texts" | "lines">): {
  locale: string;
  texts: InvoiceTexts;
  lines: InvoiceLine[];
} {
  return {
    locale: inv.locale,
    texts: { ...inv.texts, payment_provider_text: "", payment_provider_stamp: null },
    lines: inv.lines.map((l) => ({ ...l, gross_value: -l.gross_value, tax_value: -l.tax_value })),
  };
}

type Content = ReturnType<typeof buildInvoiceContent>;

function insertOf(
  scope: InvoiceScope,
  r: OrderRecord,
  settings: Record<string, unknown>,
  content: Content,
  opts: { isCancellation: boolean; refers: InvoiceInsert["refers"]; when: InvoiceInsert["when"] },
): InvoiceInsert {
  const date = invoiceDate(scope.event, scope.now);
  return {
    organizerId: scope.event.organizerId,
    eventId: scope.event.id,
    orderId: r.order.id,
    orderCode: r.order.code,
    prefix: invoicePrefix(scope.event, settings, date, opts.isCancellation),
    consecutive: settings.invoice_numbers_consecutive !== false,
    counterLength: (settings.invoice_numbers_counter_length as number | undefined) ?? 5,
    isCancellation: opts.isCancellation,
    refers: opts.refers,
    date,
    locale: content.locale,
    texts: content.texts,
    lines: content.lines,
    creationKey: randomString(24),
    createdAt: scope.now,
    when: opts.when,
  };
}

/** Queues the PDFs of new or regenerated invoices. */
async function renderLater(env: Env, records: InvoiceRecord[]): Promise<void> {
  await dispatchDocuments(
    env,
    records.map((x) => ({ kind: "invoice-pdf" as const, invoiceId: x.invoice.id, version: x.invoice.version })),
  );
}

/** The live (not canceled) invoices of an order among its invoices. */
function liveInvoices(all: InvoiceRecord["invoice"][]) {
  const canceled = new Set(all.filter((i) => i.isCancellation && i.refersId !== null).map((i) => i.refersId));
  return all.filter((i) => !i.isCancellation && !canceled.has(i.id));
}

/**
 * Brings an order's invoices in line with its status and the event's automatic mode: creates
 * the invoice an order should have, cancels the invoices of a canceled or expired order.
 * Idempotent; returns the invoices it created.
 */
export async function ensureOrderInvoices(
  scope: InvoiceScope,
  code: string,
  known?: OrderRecord,
): Promise<InvoiceRecord[]> {
  const r = known ?? (await findOrder(scope.db, scope.event.id, code));
  if (!r) return [];
  const facts = await invoiceFacts(scope.db, scope.event.organizerId, scope.event.id, r.order.id, subeventsOf(r));
  const existing = facts.orderInvoices;
  const settings = invoiceSettings(facts);
  const live = liveInvoices(existing);
  const writes: InvoiceInsert[] = [];
  if (r.order.status === "c" || r.order.status === "e") {
    for (const inv of live) {
      writes.push(
        insertOf(scope, r, settings, cancellationContent(inv), {
          isCancellation: true,
          refers: inv.id,
          when: when.notCanceled(inv.id),
        }),
      );
    }
  } else if (
    live.length === 0 &&
    wantsAutomaticInvoice(r.order.status, settings) &&
    invoiceQualified(r.order, settings)
  ) {
    const statuses = settings.invoice_generate === "paid" ? ["p"] : ["n", "p"];
    writes.push(
      insertOf(scope, r, settings, buildInvoiceContent(scope.event, r, facts, settings), {
        isCancellation: false,
        refers: null,
        when: when.all(when.noLiveInvoice(r.order.id), when.orderStatusIn(r.order.id, statuses)),
      }),
    );
  }
  const created = await insertInvoices(scope.db, writes);
  await renderLater(scope.env, created);
  return created;
}

function subeventsOf(r: OrderRecord): number[] {
  return r.positions.map((p) => p.subevent).filter((x): x is number => x !== null);
}

/**
 * Whether a change to `to` may create or cancel invoices, from what the order's read knew
 * (null: nothing known). A stale answer is caught by the sweep, which looks at every order
 * modified since its last run.
 */
export function invoicesMayFollow(to: OrderStatus, invoicing: InvoicingFacts | null): boolean {
  if (!invoicing) return true;
  if (to === "c" || to === "e") return invoicing.live > 0;
  return (
    invoicing.live === 0 &&
    wantsAutomaticInvoice(to, { invoice_generate: invoicing.mode ?? EVENT_SETTINGS.invoice_generate!.default })
  );
}

/**
 * The hook of the order services (after an order was placed or changed its status): invoices
 * follow, and a failure is logged, not raised (the sweep repeats it). `known.invoicing`: what the
 * order's read said about its invoices (the order services have it), so that nothing is read
 * when nothing can be due; `known.record`: the order as it is after the change, when the caller
 * has it (order creation), so that it is not read again.
 */
export async function invoicesAfterOrderChange(
  scope: InvoiceScope,
  code: string,
  to: OrderStatus,
  known: { invoicing: InvoicingFacts | null; record?: OrderRecord } = { invoicing: null },
): Promise<void> {
  if (!invoicesMayFollow(to, known.invoicing)) return;
  try {
    await ensureOrderInvoices(scope, code, known.record);
  } catch (e) {
    log.error("invoices of an order could not be brought up to date; the sweep retries", {
      order: code,
      event_id: scope.event.id,
      error: e,
    });
  }
}

// ---- the API's actions ----

/** POST .../orders/{code}/create_invoice/: 400 when invoicing is off, the order does not qualify, or it has an invoice. */
export async function createInvoiceForOrder(ctx: EventContext, code: string): Promise<InvoiceRecord> {
  const scope: InvoiceScope = { env: ctx.env, db: ctx.db, event: ctx.event, now: ctx.now };
  const r = await findOrder(ctx.db, ctx.event.id, code);
  if (!r) throw notFound();
  const facts = await invoiceFacts(ctx.db, ctx.event.organizerId, ctx.event.id, r.order.id, subeventsOf(r));
  const existing = facts.orderInvoices;
  const settings = invoiceSettings(facts);
  if (
    !["admin", "user", "paid", "True"].includes(settings.invoice_generate as string) ||
    !invoiceQualified(r.order, settings)
  ) {
    throw badRequest("You cannot generate an invoice for this order.");
  }
  if (liveInvoices(existing).length > 0) throw badRequest("An invoice for this order already exists.");
  const invoice = insertOf(scope, r, settings, buildInvoiceContent(ctx.event, r, facts, settings), {
    isCancellation: false,
    refers: null,
    when: when.noLiveInvoice(r.order.id),
  });
  const writes = [invoice];
  // an order that is canceled or expired gets the invoice and its cancellation (pretix's generate_invoice)
  if (r.order.status === "c" || r.order.status === "e") {
    writes.push(
      insertOf(scope, r, settings, cancellationContent(invoice), {
        isCancellation: true,
        refers: { creationKey: invoice.creationKey },
        when: when.created(invoice.creationKey),
      }),
    );
  }
  const created = await insertInvoices(ctx.db, writes);
  if (created.length === 0) throw badRequest("An invoice for this order already exists.");
  await renderLater(ctx.env, created);
  return created[0]!;
}

/** An invoice of the event by number; not found otherwise. */
export async function loadInvoice(ctx: Pick<EventContext, "db" | "event">, number: string): Promise<InvoiceRecord> {
  const inv = await findInvoice(ctx.db, ctx.event.id, number);
  if (!inv) throw notFound();
  return inv;
}

async function assertNotCanceled(db: DB, inv: InvoiceRecord): Promise<void> {
  if (inv.invoice.isCancellation) throw badRequest("A cancellation invoice cannot be canceled.");
  const all = await orderInvoices(db, inv.invoice.orderId);
  if (all.some((c) => c.isCancellation && c.refersId === inv.invoice.id)) throw badRequest(ALREADY_CANCELED);
}

/**
 * POST .../invoices/{number}/reissue/: cancels the invoice and creates a new one from the
 * order as it is now (only the cancellation when the order is canceled or expired), in one
 * transaction. Returns the new invoice (or the cancellation). 400 when already canceled.
 */
export async function reissueInvoice(ctx: EventContext, number: string): Promise<InvoiceRecord> {
  const scope: InvoiceScope = { env: ctx.env, db: ctx.db, event: ctx.event, now: ctx.now };
  const inv = await loadInvoice(ctx, number);
  await assertNotCanceled(ctx.db, inv);
  const r = (await findOrder(ctx.db, ctx.event.id, inv.orderCode))!;
  const facts = await invoiceFacts(ctx.db, ctx.event.organizerId, ctx.event.id, r.order.id, subeventsOf(r));
  const settings = invoiceSettings(facts);
  const cancel = insertOf(scope, r, settings, cancellationContent(inv.invoice), {
    isCancellation: true,
    refers: inv.invoice.id,
    when: when.notCanceled(inv.invoice.id),
  });
  const writes = [cancel];
  if (r.order.status === "n" || r.order.status === "p") {
    writes.push(
      insertOf(scope, r, settings, buildInvoiceContent(ctx.event, r, facts, settings), {
        isCancellation: false,
        refers: null,
        when: when.all(
          when.created(cancel.creationKey),
          when.noLiveInvoice(r.order.id),
          when.orderStatusIn(r.order.id, ["n", "p"]),
        ),
      }),
    );
  }
  const created = await insertInvoices(ctx.db, writes);
  if (created.length === 0) throw badRequest(ALREADY_CANCELED);
  await renderLater(ctx.env, created);
  return created[created.length - 1]!;
}

/**
 * POST .../invoices/{number}/regenerate/: the same invoice (number, date) rebuilt from the
 * order's current data (a cancellation: from the invoice it cancels), and its PDF rendered
 * anew. 400 when already canceled.
 */
export async function regenerateInvoice(ctx: EventContext, number: string): Promise<InvoiceRecord> {
  const inv = await loadInvoice(ctx, number);
  let content: Content;
  if (inv.invoice.isCancellation) {
    const original = inv.invoice.refersId !== null ? await findInvoiceById(ctx.db, inv.invoice.refersId) : undefined;
    content = original
      ? cancellationContent(original.invoice)
      : { locale: inv.invoice.locale, texts: inv.invoice.texts, lines: inv.invoice.lines };
  } else {
    await assertNotCanceled(ctx.db, inv);
    const r = (await findOrder(ctx.db, ctx.event.id, inv.orderCode))!;
    const facts = await invoiceFacts(ctx.db, ctx.event.organizerId, ctx.event.id, r.order.id, subeventsOf(r));
    content = buildInvoiceContent(ctx.event, r, facts, invoiceSettings(facts));
  }
  const after = await replaceInvoiceContent(
    ctx.db,
    inv.invoice.id,
    content,
    inv.invoice.isCancellation ? when.all() : when.notCanceled(inv.invoice.id),
  );
  if (!after) throw badRequest(ALREADY_CANCELED);
  await renderLater(ctx.env, [after]);
  return after;
}

/**
 * The PDF of an invoice: its bytes when rendered; otherwise the rendering is (re)queued and
 * the caller gets `not_ready` (409), or `unavailable` (503) when rendering failed for a reason
 * the deployment must fix (the message says which).
 */
export async function invoicePdf(
  ctx: Pick<EventContext, "env" | "db" | "event">,
  number: string,
): Promise<{ bytes: ReadableStream; filename: string }> {
  return invoiceFile(ctx.env, await loadInvoice(ctx, number));
}

/**
 * The PDF of one invoice of an order (the order page: the holder of the order's secret link
 * gets the order's invoices and no other). Not found unless the invoice belongs to the order;
 * otherwise as `invoicePdf`.
 */
export async function orderInvoicePdf(
  env: Env,
  db: DB,
  order: { id: number; eventId: number },
  invoiceId: number,
): Promise<{ bytes: ReadableStream; filename: string }> {
  const inv = await findInvoiceById(db, invoiceId);
  if (!inv || inv.invoice.orderId !== order.id || inv.invoice.eventId !== order.eventId) throw notFound();
  return invoiceFile(env, inv);
}

async function invoiceFile(env: Env, inv: InvoiceRecord): Promise<{ bytes: ReadableStream; filename: string }> {
  if (inv.invoice.file) {
    const object = await env.FILES.get(inv.invoice.file);
    if (object) return { bytes: object.body, filename: `${inv.invoice.number}.pdf` };
  }
  await renderLater(env, [inv]);
  if (inv.invoice.fileError) throw new Failure("unavailable", inv.invoice.fileError);
  throw notReady("invoice file");
}

/**
 * The invoice a mail about order `code` carries (`order_invoice` attachments): the order's
 * newest invoice that is neither canceled nor a cancellation, with its PDF. Brings the order's
 * invoices up to date first (the mail may be delivered before the order's hook created the
 * invoice; idempotent) and renders a missing PDF on the spot. Null when the order has no such
 * invoice (any more). Throws when the PDF cannot be had now (the mail is retried).
 */
export async function invoiceForMail(
  env: Env,
  db: DB,
  eventId: number,
  code: string,
  now: number,
): Promise<{ key: string; filename: string } | null> {
  const event = await eventById(db, eventId);
  if (!event) return null;
  const r = await findOrder(db, eventId, code);
  if (!r) return null;
  await ensureOrderInvoices({ env, db, event, now }, code, r);
  const live = liveInvoices(await orderInvoices(db, r.order.id));
  const newest = live.at(-1);
  if (!newest) return null;
  let inv = await findInvoiceById(db, newest.id);
  if (inv && !inv.invoice.file) {
    await renderInvoiceFile(env, db, inv.invoice.id, inv.invoice.version, false);
    inv = await findInvoiceById(db, newest.id);
  }
  // not rendered (e.g. the fonts are missing: the reason is on the invoice): the mail is retried, then fails with it
  if (!inv?.invoice.file)
    throw new Error(`invoice ${newest.number}: ${inv?.invoice.fileError ?? "the PDF could not be rendered"}`);
  return { key: inv.invoice.file, filename: `${inv.invoice.number}.pdf` };
}

// ---- the sweep ----

const SWEEP = "invoices";
/** Orders modified this long before the last sweep's mark are looked at again (late replays of the event object's outbox). */
const SWEEP_MARGIN_MS = 60 * 60 * 1000;
const SWEEP_PAGE = 100;
const SWEEP_MAX_ORDERS = 1000;

/**
 * Cron: every order modified since the last run (with a margin) whose invoices do not match
 * its status gets them brought in line (ensureOrderInvoices), and invoices whose PDF is
 * missing for five minutes are queued again. Returns the number of invoices created.
 */
export async function sweepInvoices(env: Env, db: DB, now: number): Promise<number> {
  const mark = await sweepMark(db, SWEEP);
  let cursor: SweepCursor = { lastModified: (mark ?? now - 24 * 60 * 60 * 1000) - SWEEP_MARGIN_MS, id: 0 };
  let created = 0;
  let seen = 0;
  let complete = false;
  const events = new Map<number, EventRow | undefined>();
  for (;;) {
    const page = await ordersForInvoiceSweep(db, cursor, SWEEP_PAGE);
    for (const o of page) {
      if (!events.has(o.eventId)) events.set(o.eventId, await eventById(db, o.eventId));
      const event = events.get(o.eventId);
      if (!event) continue;
      try {
        created += (await ensureOrderInvoices({ env, db, event, now }, o.code)).length;
      } catch (e) {
        log.error("invoice sweep: an order failed; the next run retries", {
          order: o.code,
          event_id: o.eventId,
          error: e,
        });
      }
    }
    seen += page.length;
    if (page.length < SWEEP_PAGE) {
      complete = true;
      break;
    }
    const last = page[page.length - 1]!;
    cursor = { lastModified: last.lastModified, id: last.id };
    if (seen >= SWEEP_MAX_ORDERS) break;
  }
  // complete: everything modified before this run was looked at; otherwise continue from the cursor next time
  await setSweepMark(db, SWEEP, complete ? now : cursor.lastModified + SWEEP_MARGIN_MS);
  const missing = await invoicesWithoutFile(db, now - 5 * 60 * 1000);
  await dispatchDocuments(
    env,
    missing.map((m) => ({ kind: "invoice-pdf" as const, invoiceId: m.id, version: m.version })),
  );
  return created;
}

// ---- rendering (the documents queue) ----

/**
 * Renders the PDF of an invoice's current version into R2 and records it. Idempotent: a
 * version that has its file, or is no longer current, is left alone. Fonts missing, or a last
 * attempt that failed, are recorded on the invoice (downloads then answer 503 with the reason).
 */
export async function renderInvoiceFile(
  env: Env,
  db: DB,
  invoiceId: number,
  version: number,
  lastAttempt: boolean,
): Promise<void> {
  const inv = await findInvoiceById(db, invoiceId);
  if (!inv || inv.invoice.version !== version || inv.invoice.file) return;
  const event = await eventById(db, inv.invoice.eventId);
  if (!event) return;
  try {
    const bytes = await renderInvoicePdf(inv, event, (face) => loadFont(env, face));
    const key = `invoices/${event.id}/${invoiceId}/v${version}.pdf`;
    await env.FILES.put(key, bytes, { httpMetadata: { contentType: "application/pdf" } });
    await setInvoiceFile(db, invoiceId, version, key);
  } catch (e) {
    if (isFailure(e, "unavailable")) {
      await setInvoiceFileError(db, invoiceId, version, e.message);
      return;
    }
    if (lastAttempt)
      await setInvoiceFileError(
        db,
        invoiceId,
        version,
        `The invoice PDF could not be rendered: ${e instanceof Error ? e.message : String(e)}`,
      );
    throw e;
  }
}
