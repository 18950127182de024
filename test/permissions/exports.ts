import { eq } from "drizzle-orm";
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
async function waitingExport(w: SetupWorld, level: "event" | "organizer"): Promise<RowSetup> {
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
      identifier: "orderlist",
      params: { _format: "orders:default" },
      createdAt: now,
      updatedAt: now,
      expiresAt: now + 86_400_000,
    });
  return { params: { identifier: "orderlist", id } };
}

const runBody = async (): Promise<RowSetup> => ({ params: { identifier: "orderlist" }, body: { _format: "orders:default" } });

/**
 * Exporters (pretix: event level can_view_orders; organizer level any team, each exporter
 * then by its own permission). Allowed runs start a real export (202); allowed downloads read
 * one that is still waiting (409, the answer a client polls for).
 */
export const rows: MatrixRow[] = [
  { route: `GET ${ev}/exporters`, permission: "can_view_orders" },
  { route: `POST ${ev}/exporters/:identifier/run`, permission: "can_view_orders", params: { identifier: "orderlist" }, setup: runBody, status: 202 },
  {
    route: `GET ${ev}/exporters/:identifier/download/:id`,
    permission: "can_view_orders",
    params: { identifier: "orderlist", id: "00000000-0000-4000-8000-000000000000" },
    setup: (w) => waitingExport(w, "event"),
    status: 409,
  },
  { route: `GET ${org}/exporters`, permission: null },
  { route: `POST ${org}/exporters/:identifier/run`, permission: null, params: { identifier: "orderlist" }, setup: runBody, status: 202 },
  {
    route: `GET ${org}/exporters/:identifier/download/:id`,
    permission: null,
    params: { identifier: "orderlist", id: "00000000-0000-4000-8000-000000000000" },
    setup: (w) => waitingExport(w, "organizer"),
    status: 409,
  },
];
