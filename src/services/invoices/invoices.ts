/**
 * When invoices come to exist, as pretix makes them (pretix docs invoices.rst, orders.rst
 * `create_invoice`; docs/open-points.md row 26; docs/documents.md "Invoices and ticket PDFs"). Creation is
 * idempotent: an invoice only while the order has none that is not canceled, a cancellation only
 * while its invoice has none. The order services call the hooks after an order is placed or changes
 * status; the cron (`sweepInvoices`) catches what a failed hook missed; PDFs: ./invoice-files.ts.
 */
import type { DB } from "../../db/client";
import {
  eventById,
  type InvoiceFacts,
  type InvoiceInsert,
  type InvoiceRecord,
  insertInvoices,
  invoiceConditions as when,
  invoiceFacts,
  invoicesWithoutFile,
  ordersForInvoiceSweep,
  setSweepMark,
  type SweepCursor,
  sweepMark,
} from "../../db/invoices";
import { findOrder, type InvoicingFacts, type OrderRecord } from "../../db/orders";
import type { OrderStatus } from "../../db/schema/index";
import type { EventRow } from "../../db/tenancy";
import type { Env } from "../../lib/env";
import { log } from "../../lib/log";
import { dispatchDocuments } from "../../lib/queues";
import { buildInvoiceContent, cancellationContent } from "./invoice-content";
import { type InvoiceScope, insertOf } from "./invoice-numbers";
import { effectiveSettings } from "../events/settings";
import { EVENT_SETTINGS } from "../events/settings-keys";

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
export function wantsAutomaticInvoice(status: OrderStatus, settings: Record<string, unknown>): boolean {
  const mode = settings.invoice_generate;
  return (mode === "True" && (status === "n" || status === "p")) || (mode === "paid" && status === "p");
}

/** Queues the PDFs of new or regenerated invoices. */
export async function renderLater(env: Env, records: InvoiceRecord[]): Promise<void> {
  await dispatchDocuments(
    env,
    records.map((x) => ({ kind: "invoice-pdf" as const, invoiceId: x.invoice.id, version: x.invoice.version })),
  );
}

/** The live (not canceled) invoices of an order among its invoices. */
export function liveInvoices(all: InvoiceRecord["invoice"][]) {
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

/**
 * An order's contents changed and its invoice is reissued (pretix's order change with
 * `reissue_invoice`): every live invoice gets its cancellation and the order a new invoice, in
 * one transaction (each only while its condition holds). Returns the invoices created.
 */
export async function reissueInvoices(scope: InvoiceScope, r: OrderRecord): Promise<InvoiceRecord[]> {
  try {
    const facts = await invoiceFacts(scope.db, scope.event.organizerId, scope.event.id, r.order.id, subeventsOf(r));
    const settings = invoiceSettings(facts);
    const live = liveInvoices(facts.orderInvoices);
    if (live.length === 0) return [];
    const writes: InvoiceInsert[] = live.map((inv) =>
      insertOf(scope, r, settings, cancellationContent(inv), {
        isCancellation: true,
        refers: inv.id,
        when: when.notCanceled(inv.id),
      }),
    );
    writes.push(
      insertOf(scope, r, settings, buildInvoiceContent(scope.event, r, facts, settings), {
        isCancellation: false,
        refers: null,
        when: when.all(when.noLiveInvoice(r.order.id), when.orderStatusIn(r.order.id, ["n", "p"])),
      }),
    );
    const created = await insertInvoices(scope.db, writes);
    await renderLater(scope.env, created);
    return created;
  } catch (e) {
    log.error("invoices of a changed order could not be reissued", { order: r.order.code, error: e });
    return [];
  }
}

/** The dates of an order's positions (`invoiceFacts` reads their names and times). */
export function subeventsOf(r: OrderRecord): number[] {
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
