import { and, eq, inArray } from "drizzle-orm";
import { events, exportJobs } from "../../src/db/schema";
import { db } from "../harness";
import type { SetupWorld } from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

const org = "/api/v1/organizers/:organizer";
const ev = `${org}/events/:event`;

/**
 * An export of the organizer (of the row's event, or organizer-level) still waiting for the
 * queue: its download answers 409 `{"status": "waiting"}` to whoever may run the exporter. Seeded
 * in D1, so that no queue message races the call.
 */
async function waitingExport(w: SetupWorld, level: "event" | "organizer", identifier = "orderlist"): Promise<RowSetup> {
  const id = crypto.randomUUID();
  const event = await db().select({ id: events.id }).from(events).where(eq(events.slug, w.eventSlug)).get();
  const now = Date.now();
  await db()
    .insert(exportJobs)
    .values({
      id,
      organizerId: w.orgId,
      eventId: level === "event" ? event!.id : null,
      owner: "team:setup",
      identifier,
      params: { _format: identifier === "orderlist" ? "orders:default" : "invoices:default" },
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 86_400_000,
    });
  return { params: { identifier, id } };
}

const runBody = async (): Promise<RowSetup> => ({
  params: { identifier: "orderlist" },
  body: { _format: "orders:default" },
});
/**
 * A valid invoicedata run. The matrix's callers have run orderlist exports already (which may
 * still wait for the queue): those are ended first, so that the limit of two running exports
 * per caller does not refuse this one.
 */
async function runInvoiceData(w: SetupWorld): Promise<RowSetup> {
  await db()
    .update(exportJobs)
    .set({ state: "failed", message: "ended by the test setup" })
    .where(and(eq(exportJobs.organizerId, w.orgId), inArray(exportJobs.state, ["waiting", "running"])));
  return { params: { identifier: "invoicedata" }, body: { _format: "invoices:default" } };
}
const INVOICEDATA = { identifier: "invoicedata", id: "00000000-0000-4000-8000-000000000000" };

/**
 * Exporters (pretix: event level can_view_orders; organizer level any team, each exporter
 * then by its own permission). Allowed runs start a real export (202); allowed downloads read
 * one that is still waiting (409, the answer a client polls for).
 */
export const rows: MatrixRow[] = [
  { route: `GET ${ev}/exporters`, permission: "can_view_orders" },
  {
    route: `POST ${ev}/exporters/:identifier/run`,
    permission: "can_view_orders",
    params: { identifier: "orderlist" },
    setup: runBody,
    status: 202,
  },
  {
    route: `GET ${ev}/exporters/:identifier/download/:id`,
    permission: "can_view_orders",
    params: { identifier: "orderlist", id: "00000000-0000-4000-8000-000000000000" },
    setup: (w) => waitingExport(w, "event"),
    status: 409,
  },
  { route: `GET ${org}/exporters`, permission: null },
  {
    route: `POST ${org}/exporters/:identifier/run`,
    permission: null,
    params: { identifier: "orderlist" },
    setup: runBody,
    status: 202,
  },
  {
    route: `GET ${org}/exporters/:identifier/download/:id`,
    permission: null,
    params: { identifier: "orderlist", id: "00000000-0000-4000-8000-000000000000" },
    setup: (w) => waitingExport(w, "organizer"),
    status: 409,
  },
  // invoicedata: the same routes, pretix's permissions (event level can_view_orders; organizer level any team, its events by can_view_orders)
  {
    route: `POST ${ev}/exporters/:identifier/run`,
    permission: "can_view_orders",
    params: INVOICEDATA,
    setup: runInvoiceData,
    status: 202,
  },
  {
    route: `GET ${ev}/exporters/:identifier/download/:id`,
    permission: "can_view_orders",
    params: INVOICEDATA,
    setup: (w) => waitingExport(w, "event", "invoicedata"),
    status: 409,
  },
  {
    route: `POST ${org}/exporters/:identifier/run`,
    permission: null,
    params: INVOICEDATA,
    setup: runInvoiceData,
    status: 202,
  },
  {
    route: `GET ${org}/exporters/:identifier/download/:id`,
    permission: null,
    params: INVOICEDATA,
    setup: (w) => waitingExport(w, "organizer", "invoicedata"),
    status: 409,
  },
];
