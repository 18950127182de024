import { onsaleQueues } from "../../src/db/schema";
import { anonymous, db, seedEventRow } from "../harness";
import type { MatrixRow, RowSetup, SetupWorld } from "./types";

const queuePath = "/api/v1/organizers/:organizer/events/:event/queue";

/** A throwaway event with an open queue (the matrix's own event stays without one: its sales need no admission). */
async function queued(w: SetupWorld): Promise<RowSetup> {
  const event = await seedEventRow(w.orgId);
  const now = Date.now();
  await db()
    .insert(onsaleQueues)
    .values({
      organizerId: w.orgId,
      eventId: event.id,
      opensAt: now + 3_600_000,
      admissionsPerMinute: 10,
      bypassSalesChannels: [],
      bypassTeams: [],
      createdAt: now,
      updatedAt: now,
    });
  return { event: event.slug };
}

async function withTicket(w: SetupWorld): Promise<RowSetup> {
  const setup = await queued(w);
  const joined = await anonymous.post(`/api/v1/organizers/${w.orgSlug}/events/${setup.event}/queue/join/`, {});
  return { ...setup, headers: { "X-Queue-Ticket": joined.body.ticket } };
}

// The on-sale queue's visitors: no credentials, the queue ticket is the visitor's identity
export const rows: MatrixRow[] = [
  { route: `POST ${queuePath}/join`, permission: null, auth: "none", device: "allow", setup: queued },
  { route: `GET ${queuePath}/status`, permission: null, auth: "none", device: "allow", setup: withTicket },
  // a plain GET is refused: the route answers a WebSocket upgrade only (test/api/waiting-room.test.ts)
  { route: `GET ${queuePath}/live`, permission: null, auth: "none", device: "allow", setup: withTicket, status: 400 },
];
