import { and, eq } from "drizzle-orm";
import { events, webhookCalls } from "../../src/db/schema";
import { db } from "../harness";
import { create, id, type SetupWorld } from "./fixtures";
import type { MatrixRow, RowSetup } from "./types";

/**
 * Webhooks: everything needs can_change_organizer_settings, reading too (pretix's
 * WebHookViewSet); devices never reach them. The matrix's webhooks listen to nothing, so its
 * orders elsewhere never make them send.
 */
const hooks = "/api/v1/organizers/:organizer/webhooks";
const perm = "can_change_organizer_settings";

const hookBody = () => ({ target_url: "https://hooks.example.org/matrix", action_types: [], enabled: false });
const hook = async (w: SetupWorld): Promise<RowSetup> => ({
  params: { id: id(await create(w, `${w.org}/webhooks`, hookBody())) },
});

/** A webhook with one recorded call (written straight into D1: the matrix's webhooks never send). */
async function call(w: SetupWorld): Promise<RowSetup> {
  const setup = await hook(w);
  const [event] = await db()
    .select({ id: events.id })
    .from(events)
    .where(and(eq(events.organizerId, w.orgId), eq(events.slug, w.eventSlug)));
  const payload = JSON.stringify({
    organizer: w.orgSlug,
    event: w.eventSlug,
    code: "ABC23",
    action: "pretix.event.order.placed",
  });
  const [row] = await db()
    .insert(webhookCalls)
    .values({
      webhookId: Number(setup.params!.id),
      organizerId: w.orgId,
      eventId: event!.id,
      code: "ABC23",
      actionType: "pretix.event.order.placed",
      payload,
      state: "canceled",
      createdAt: Date.now(),
    })
    .returning({ id: webhookCalls.id });
  return { params: { ...setup.params, call_id: String(row!.id) } };
}

export const rows: MatrixRow[] = [
  { route: `GET ${hooks}`, permission: perm, setup: hook },
  { route: `POST ${hooks}`, permission: perm, setup: async () => ({ body: hookBody() }) },
  { route: `GET ${hooks}/:id`, permission: perm, setup: hook },
  {
    route: `PUT ${hooks}/:id`,
    permission: perm,
    setup: async (w) => ({ ...(await hook(w)), body: { ...hookBody(), comment: "Replaced" } }),
  },
  {
    route: `PATCH ${hooks}/:id`,
    permission: perm,
    setup: async (w) => ({ ...(await hook(w)), body: { comment: "Changed" } }),
  },
  { route: `DELETE ${hooks}/:id`, permission: perm, setup: hook },
  { route: `POST ${hooks}/:id/rotate_secret`, permission: perm, setup: hook, status: 200 },
  { route: `GET ${hooks}/:id/calls`, permission: perm, setup: call },
  { route: `GET ${hooks}/:id/calls/:call_id`, permission: perm, setup: call },
];
