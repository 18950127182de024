/**
 * Check-in lists (docs/api.md; pretix docs checkinlists.rst): the input and the
 * services that create, change and delete a list. The event's object decides admission with
 * the lists' configuration, so every change tells it (the one-door invariant, docs/event-object.md).
 */
import { z } from "zod";
import {
  type CheckinListRecord,
  type CheckinListValues,
  createCheckinList,
  createdCheckinList,
  deleteCheckinList,
  findCheckinList,
  listTargetEvents,
  updateCheckinList,
} from "../../db/checkin/lists";
import { withEventObject } from "../../objects/client";
import { idList, name, salesChannel } from "../catalog/catalog-fields";
import type { ChangeMode, EventContext } from "../context";
import { SALES_CHANNELS } from "../../rules/events";
import { invalidPk, nonFieldError, notFound, Problems } from "../../lib/failure";
import { confirmedWrite, survivingD1Faults } from "../faults";
import { dateTime } from "../../rules/fields";
import { log } from "../../lib/log";

const fields = {
  name: name(190),
  all_products: z.boolean(),
  limit_products: idList(),
  subevent: z.number().int().nullable(),
  include_pending: z.boolean(),
  allow_multiple_entries: z.boolean(),
  allow_entry_after_exit: z.boolean(),
  addon_match: z.boolean(),
  /** Opaque: validated as an object and returned exactly as sent (docs/open-points.md row 9). */
  rules: z.record(z.string(), z.unknown()),
  exit_all_at: dateTime().nullable(),
  auto_checkin_sales_channels: z.array(salesChannel()).max(100),
};

/** POST and PUT: every field (PUT resets the omitted ones to their defaults); `name` is required. */
export const checkinListFull = z.object({
  name: fields.name,
  all_products: fields.all_products.optional(),
  limit_products: fields.limit_products.optional(),
  subevent: fields.subevent.optional(),
  include_pending: fields.include_pending.optional(),
  allow_multiple_entries: fields.allow_multiple_entries.optional(),
  allow_entry_after_exit: fields.allow_entry_after_exit.optional(),
  addon_match: fields.addon_match.optional(),
  rules: fields.rules.optional(),
  exit_all_at: fields.exit_all_at.optional(),
  auto_checkin_sales_channels: fields.auto_checkin_sales_channels.optional(),
});

/** PATCH: only the fields sent. */
export const checkinListPatch = checkinListFull.partial();

export type CheckinListInput = z.output<typeof checkinListPatch>;

/** pretix's defaults of a new list. */
const DEFAULTS: CheckinListValues = {
  name: "",
  allProducts: false,
  subeventId: null,
  includePending: false,
  allowMultipleEntries: false,
  allowEntryAfterExit: true,
  addonMatch: false,
  rules: {},
  exitAllAt: null,
  autoCheckinSalesChannels: [],
};

function valuesOf(input: CheckinListInput): Partial<CheckinListValues> {
  const v: Partial<CheckinListValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.all_products !== undefined) v.allProducts = input.all_products;
  if (input.subevent !== undefined) v.subeventId = input.subevent;
  if (input.include_pending !== undefined) v.includePending = input.include_pending;
  if (input.allow_multiple_entries !== undefined) v.allowMultipleEntries = input.allow_multiple_entries;
  if (input.allow_entry_after_exit !== undefined) v.allowEntryAfterExit = input.allow_entry_after_exit;
  if (input.addon_match !== undefined) v.addonMatch = input.addon_match;
  if (input.rules !== undefined) v.rules = input.rules;
  if (input.exit_all_at !== undefined) v.exitAllAt = input.exit_all_at;
  if (input.auto_checkin_sales_channels !== undefined)
    v.autoCheckinSalesChannels = [...new Set(input.auto_checkin_sales_channels)];
  return v;
}

/**
 * pretix's checks against the event: products and date the organizer has (else `Invalid pk`
 * on the field), of this event (else a message about the list as a whole), known sales
 * channels.
 */
async function check(ctx: EventContext, input: CheckinListInput): Promise<void> {
  const errors = new Problems();
  const { db, event } = ctx;
  const products = [...new Set(input.limit_products ?? [])];
  const subevent = input.subevent ?? null;
  const targets = await listTargetEvents(db, ctx.organizer.id, products, subevent);
  for (const id of products) if (!targets.items.has(id)) errors.add("limit_products", invalidPk(id));
  for (const channel of input.auto_checkin_sales_channels ?? []) {
    if (!Object.hasOwn(SALES_CHANNELS, channel))
      errors.add("auto_checkin_sales_channels", `"${channel}" is not a valid choice.`);
  }
  if (subevent !== null && targets.subeventEvent === undefined) errors.add("subevent", invalidPk(subevent));
  errors.throwIfAny();
  if (products.some((id) => targets.items.get(id) !== event.id))
    throw nonFieldError("One or more items do not belong to this event.");
  if (subevent !== null && targets.subeventEvent !== event.id)
    throw nonFieldError("The subevent does not belong to this event.");
}

/**
 * Tells the event's object that what its scans decide on changed in D1 besides a list (a question
 * asked at check-in): it reads the check-in configuration again, so the next scan it answers from
 * its storage decides on the new one. A failure is left to the object's own check: the stamps its
 * next write batch reads.
 */
export async function checkinConfigChanged(ctx: EventContext): Promise<void> {
  try {
    await withEventObject(ctx.env, ctx.event, (s, call) => s.checkinConfigChanged(call));
  } catch (e) {
    log.error("the event object did not take a change of its check-in configuration", {
      event_id: ctx.event.id,
      error: e,
    });
  }
}

/** Tells the event's object that a list changed; the D1 write is done, so a failure here is left to the object's own checks. */
async function tellObject(ctx: EventContext, listId: number, deleted: boolean): Promise<void> {
  try {
    await withEventObject(ctx.env, ctx.event, (s, call) => s.checkinListChanged(call, listId, deleted));
  } catch (e) {
    // The object reads the configuration again when a scan names a list it does not know, and
    // when the change stamp its next write batch reads has moved.
    log.error("the event object did not take the change of a check-in list", {
      event_id: ctx.event.id,
      list_id: listId,
      error: e,
    });
  }
}

/** A list of the event (404 otherwise); `withCounts` false: without its ticket counts (reading them visits every ticket). */
export async function loadCheckinList(
  ctx: Pick<EventContext, "db" | "event">,
  id: number,
  withCounts = true,
): Promise<CheckinListRecord> {
  const list = await findCheckinList(ctx.db, ctx.event.id, id, withCounts);
  if (!list) throw notFound();
  return list;
}

export const createList = survivingD1Faults(async function createList(
  ctx: EventContext,
  input: z.output<typeof checkinListFull>,
): Promise<CheckinListRecord> {
  await check(ctx, input);
  const values = { ...DEFAULTS, ...valuesOf(input) };
  const created = await confirmedWrite(
    () => createCheckinList(ctx.db, ctx.event.id, values, [...new Set(input.limit_products ?? [])], ctx.now),
    () => createdCheckinList(ctx.db, ctx.event.id, values.name, ctx.now),
  );
  await tellObject(ctx, created.list.id, false);
  return created;
});

/** PUT (`put`: omitted fields return to their defaults) or PATCH; a repeat changes nothing more. */
export const changeList = survivingD1Faults(async function changeList(
  ctx: EventContext,
  id: number,
  input: CheckinListInput,
  mode: ChangeMode,
): Promise<CheckinListRecord> {
  const full = mode === "put";
  await loadCheckinList(ctx, id);
  await check(ctx, input);
  const values = full ? { ...DEFAULTS, ...valuesOf(input) } : valuesOf(input);
  const products = input.limit_products !== undefined ? [...new Set(input.limit_products)] : full ? [] : undefined;
  const changed = await updateCheckinList(ctx.db, ctx.event.id, id, values, products, ctx.now);
  if (!changed) throw notFound();
  await tellObject(ctx, id, false);
  return changed;
});

/** Deletes a list and every check-in made on it. */
export const deleteList = survivingD1Faults(async function deleteList(ctx: EventContext, id: number): Promise<void> {
  await loadCheckinList(ctx, id);
  // after a lost answer: gone from D1 means deleted
  const deleted = await confirmedWrite(
    () => deleteCheckinList(ctx.db, ctx.event.id, id, ctx.now),
    async () => ((await findCheckinList(ctx.db, ctx.event.id, id)) ? null : true),
  );
  if (!deleted) throw notFound();
  await tellObject(ctx, id, true);
});
