/**
 * On-sale queues of an event (docs/onsale-queue.md "Configuring a queue"): the request bodies, their
 * checks, and the services that create, change and delete a queue. An active queue needs the
 * deployment secret its tokens are signed with; without it, making one active is refused as
 * choosing signed ticket secrets is (a field error).
 */
import { z } from "zod";
import { isUniqueError } from "../../db/constraints";
import {
  deleteOnsaleQueue,
  findOnsaleQueue,
  insertOnsaleQueue,
  type OnsaleQueueRow,
  type OnsaleQueueValues,
  queueReferences,
  updateOnsaleQueue,
} from "../../db/onsale-queues";
import { ARRIVAL_ORDERS } from "../../db/schema/index";
import { Failure, invalidPk, notFound, Problems } from "../../lib/failure";
import { log } from "../../lib/log";
import type { QueueCounters } from "../../objects/waiting-room/types";
import { SALES_CHANNELS } from "../../rules/events";
import { dateTime } from "../../rules/fields";
import { idList, salesChannel } from "../catalog/catalog-fields";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { NO_QUEUE_SECRET, queueChanged, queueCounters } from "./visitors";
import { deploymentSecret } from "../tickets/ticket-secrets";

const queueFields = z.object({
  subevent: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).nullable(),
  active: z.boolean(),
  opens_at: dateTime(),
  arrival_order: z.enum(ARRIVAL_ORDERS),
  admissions_per_minute: z.number().int().min(1).max(100_000),
  admission_minutes: z.number().int().min(1).max(1440),
  orders_per_admission: z.number().int().min(1).max(100),
  bypass_sales_channels: z
    .array(salesChannel())
    .max(100)
    .transform((v) => [...new Set(v)]),
  bypass_devices: z.boolean(),
  bypass_teams: idList()
    .max(100)
    .transform((v) => [...new Set(v)]),
});

/** The body of POST and PUT: `opens_at` and `admissions_per_minute` required, the rest defaults. */
export const onsaleQueueInput = queueFields.partial().required({ opens_at: true, admissions_per_minute: true });
/** The body of PATCH: any field. */
export const onsaleQueuePatch = queueFields.partial();
export type OnsaleQueueInput = z.output<typeof onsaleQueuePatch>;

/** Column values; omitted fields take their defaults unless the mode is `patch`. */
function queueValues(input: OnsaleQueueInput, mode: WriteMode): Partial<OnsaleQueueValues> {
  const v: Partial<OnsaleQueueValues> = {};
  const set = <K extends keyof OnsaleQueueValues>(
    key: K,
    value: OnsaleQueueValues[K] | undefined,
    fallback: OnsaleQueueValues[K],
  ) => {
    if (value !== undefined) v[key] = value;
    else if (mode !== "patch") v[key] = fallback;
  };
  if (input.opens_at !== undefined) v.opensAt = input.opens_at;
  if (input.admissions_per_minute !== undefined) v.admissionsPerMinute = input.admissions_per_minute;
  set("subeventId", input.subevent, null);
  set("active", input.active, true);
  set("arrivalOrder", input.arrival_order, "shuffle");
  set("admissionMinutes", input.admission_minutes, 15);
  set("ordersPerAdmission", input.orders_per_admission, 1);
  set("bypassSalesChannels", input.bypass_sales_channels, []);
  set("bypassDevices", input.bypass_devices, true);
  set("bypassTeams", input.bypass_teams, []);
  return v;
}

const SECOND_QUEUE = "This event already has an on-sale queue for this date (or for the whole event).";

/** The queue's state after the change, checked whole: its date, its bypasses, one queue per date, the secret. */
async function checkQueue(ctx: EventContext, q: OnsaleQueueValues, exceptId: number | null): Promise<void> {
  const { db, event, organizer } = ctx;
  const subevent = q.subeventId ?? null;
  const refs = await queueReferences(db, organizer.id, event.id, subevent, q.bypassTeams, exceptId);
  const errors = new Problems();
  if (subevent !== null) {
    if (!event.hasSubevents) errors.add("subevent", "You cannot set a subevent if the event is not an event series.");
    else if (refs.subeventEventId === undefined) errors.add("subevent", invalidPk(subevent));
    else if (refs.subeventEventId !== event.id) errors.add("subevent", "The subevent does not belong to this event.");
  }
  for (const channel of q.bypassSalesChannels) {
    if (!Object.hasOwn(SALES_CHANNELS, channel))
      errors.add("bypass_sales_channels", `Object with identifier=${channel} does not exist.`);
  }
  for (const team of q.bypassTeams) if (!refs.teamIds.has(team)) errors.add("bypass_teams", invalidPk(team));
  if (!errors.has("subevent") && refs.otherQueue !== null) errors.add("subevent", SECOND_QUEUE);
  if (q.active && !deploymentSecret(ctx.env)) errors.add("active", NO_QUEUE_SECRET);
  errors.throwIfAny();
}

/** The second queue for a date that a concurrent request created between the check and the write. */
function secondQueue(e: unknown): never {
  if (isUniqueError(e, "onsale_queues.event_id")) {
    const errors = new Problems();
    errors.add("subevent", SECOND_QUEUE);
    errors.throwIfAny();
  }
  throw e;
}

/** A queue of the event; not found otherwise. */
export async function loadOnsaleQueue(ctx: EventContext, id: number): Promise<OnsaleQueueRow> {
  const row = await findOnsaleQueue(ctx.db, ctx.event.id, id);
  if (!row) throw notFound();
  return row;
}

export async function createOnsaleQueue(ctx: EventContext, input: OnsaleQueueInput): Promise<OnsaleQueueRow> {
  const values = {
    ...queueValues(input, "create"),
    secretVersion: 1,
    createdAt: ctx.now,
    updatedAt: ctx.now,
  } as OnsaleQueueValues;
  await checkQueue(ctx, values, null);
  return insertOnsaleQueue(ctx.db, ctx.organizer.id, ctx.event.id, values).catch(secondQueue);
}

/** PUT (`put`) or PATCH (`patch`), checked on the merged state. */
export async function updateOnsaleQueueOf(
  ctx: EventContext,
  id: number,
  input: OnsaleQueueInput,
  mode: ChangeMode,
): Promise<OnsaleQueueRow> {
  const current = await loadOnsaleQueue(ctx, id);
  const values = { ...queueValues(input, mode), updatedAt: ctx.now };
  await checkQueue(ctx, { ...current, ...values }, current.id);
  const row = await updateOnsaleQueue(ctx.db, ctx.event.id, current.id, values).catch(secondQueue);
  if (!row) throw notFound();
  await tellCoordinator(ctx, row);
  return row;
}

export async function removeOnsaleQueue(ctx: EventContext, id: number): Promise<void> {
  const row = await loadOnsaleQueue(ctx, id);
  if (!(await deleteOnsaleQueue(ctx.db, ctx.event.id, id))) throw notFound();
  await tellCoordinator(ctx, row);
}

/**
 * The queue's coordinator steps now: a deactivated or deleted queue is closed for its visitors at
 * once, a new opening or rate takes effect at once. The change is in D1 already; should the call
 * fail, a running coordinator reads the row at its next step and a sleeping one at the next join.
 */
async function tellCoordinator(ctx: EventContext, row: OnsaleQueueRow): Promise<void> {
  await queueChanged(ctx.env, row).catch((error: unknown) =>
    log.error("the queue's coordinator was not told of a change", { queue_id: row.id, error }),
  );
}

/** A queue with its counters: visitors who joined and who were admitted, as of its coordinator's last step. */
export type CountedQueue = OnsaleQueueRow & QueueCounters;

/** The counters of each queue, from its coordinator (all at once). */
export async function withCounters(ctx: EventContext, rows: OnsaleQueueRow[]): Promise<CountedQueue[]> {
  const counters = await Promise.all(rows.map((r) => queueCounters(ctx.env, r))).catch((error: unknown) => {
    log.error("a queue's counters could not be read", { event_id: ctx.event.id, error });
    throw new Failure("unavailable", "The queue's counters cannot be read right now; try again.");
  });
  return rows.map((r, i) => ({ ...r, ...counters[i]! }));
}
