/**
 * Quotas (docs/open-points.md row 14: pretix docs quotas.rst): the input, the coverage rules, the
 * services that create, change and delete quotas (each tells the event object that its catalog
 * changed), and availability as the event object computes it.
 */
import { z } from "zod";
import {
  coverageRefs,
  deleteQuotaRow,
  findQuota,
  insertQuota,
  type QuotaRecord,
  type QuotaValues,
  updateQuota,
} from "../../db/quotas";
import { inventoryStamp, withEventObject } from "../../objects/client";
import { offerFreedCapacity } from "../waitinglist/waitinglist-assign";
import { waitingPerQuota } from "../../db/waitinglist";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { invalidPk, notFound, Problems } from "../../lib/failure";
import type { Availability } from "../../rules/inventory/index";

const quotaFields = z.object({
  name: z.string().trim().min(1).max(200),
  size: z.number().int().min(0).nullable(),
  items: z.array(z.number().int()),
  variations: z.array(z.number().int()),
  subevent: z.number().int().nullable(),
  close_when_sold_out: z.boolean(),
  closed: z.boolean(),
  release_after_exit: z.boolean(),
  ignore_for_event_availability: z.boolean(),
});

/** POST and PUT: `name` required, every other field reset to its default when omitted. */
export const quotaInput = quotaFields.partial().required({ name: true });
/** PATCH: only the sent fields change. */
export const quotaPatch = quotaFields.partial();
export type QuotaInput = z.output<typeof quotaInput>;
export type QuotaPatch = z.output<typeof quotaPatch>;

type Coverage = { itemIds: number[]; variations: { id: number; itemId: number }[] };

/** Validates items, variations and the date against the event (one batch); returns the coverage. */
async function checkCoverage(
  ctx: EventContext,
  input: { items: number[]; variations: number[]; subevent: number | null },
): Promise<Coverage> {
  const { event, db } = ctx;
  const errors = new Problems();
  const refs = await coverageRefs(
    db,
    event.id,
    input.items,
    input.variations,
    event.hasSubevents ? input.subevent : null,
  );
  const found = refs.items;
  const itemIds = new Set(found.map((i) => i.id));
  for (const id of input.items) if (!itemIds.has(id)) errors.add("items", invalidPk(id));
  const variations = refs.variations;
  const varIds = new Set(variations.map((v) => v.id));
  for (const id of input.variations) if (!varIds.has(id)) errors.add("variations", invalidPk(id));
  for (const v of variations) {
    if (!itemIds.has(v.itemId))
      errors.add("variations", `Variation ${v.id} does not belong to one of the items of this quota.`);
  }
  for (const i of found) {
    if (i.hasVariations && !variations.some((v) => v.itemId === i.id)) {
      errors.add("variations", `Item ${i.id} has variations, but none of them is in the variations list.`);
    }
  }
  if (event.hasSubevents) {
    if (input.subevent === null) errors.add("subevent", "Subevent cannot be null for event series.");
    else if (!refs.subeventExists) errors.add("subevent", invalidPk(input.subevent));
  } else if (input.subevent !== null) {
    errors.add("subevent", "You cannot set a subevent if the event is not an event series.");
  }
  errors.throwIfAny();
  // items with variations are covered through their variations only
  const withVariations = new Set(found.filter((i) => i.hasVariations).map((i) => i.id));
  return { itemIds: [...itemIds].filter((id) => !withVariations.has(id)), variations };
}

/** The columns a POST / PUT (omitted fields reset) or PATCH sets. */
function quotaValues(input: QuotaPatch, mode: WriteMode): Partial<QuotaValues> {
  const full = mode !== "patch";
  const v: Partial<QuotaValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.size !== undefined || full) v.size = input.size ?? null;
  if (input.subevent !== undefined || full) v.subeventId = input.subevent ?? null;
  if (input.close_when_sold_out !== undefined || full) v.closeWhenSoldOut = input.close_when_sold_out ?? false;
  if (input.closed !== undefined || full) v.closed = input.closed ?? false;
  if (input.release_after_exit !== undefined || full) v.releaseAfterExit = input.release_after_exit ?? false;
  if (input.ignore_for_event_availability !== undefined || full)
    v.ignoreForEventAvailability = input.ignore_for_event_availability ?? false;
  return v;
}

/**
 * Tells the event object that its catalog changed. Best effort: its next decision reloads anyway
 * on the newer stamp. Capacity may have become free: the waiting list's next entries may get vouchers.
 */
async function notifyCatalog(ctx: EventContext): Promise<void> {
  try {
    await withEventObject(ctx.env, ctx.event.id, (s, call) => s.catalogChanged(call, ctx.now));
  } catch {
    /* reloaded on the next call */
  }
  await offerFreedCapacity(ctx);
}

async function loadQuota(ctx: EventContext, id: number): Promise<QuotaRecord> {
  const q = await findQuota(ctx.db, ctx.event.id, id);
  if (!q) throw notFound();
  return q;
}

export async function createQuota(ctx: EventContext, input: QuotaInput): Promise<QuotaRecord> {
  const coverage = await checkCoverage(ctx, {
    items: input.items ?? [],
    variations: input.variations ?? [],
    subevent: input.subevent ?? null,
  });
  const id = await insertQuota(
    ctx.db,
    ctx.event.id,
    { ...quotaValues(input, "create"), name: input.name },
    coverage.itemIds,
    coverage.variations,
    ctx.now,
  );
  await notifyCatalog(ctx);
  return (await findQuota(ctx.db, ctx.event.id, id))!;
}

/** PUT (`put`: omitted fields reset) or PATCH of a quota; the coverage is checked again when it is touched. */
export async function changeQuota(
  ctx: EventContext,
  id: number,
  input: QuotaPatch,
  mode: ChangeMode,
): Promise<QuotaRecord> {
  const full = mode === "put";
  const q = await loadQuota(ctx, id);
  const merged = {
    items: input.items ?? (full ? [] : q.items),
    variations: input.variations ?? (full ? [] : q.variations),
    subevent: input.subevent !== undefined ? input.subevent : full ? null : q.subeventId,
  };
  const touchesCoverage =
    full || input.items !== undefined || input.variations !== undefined || input.subevent !== undefined;
  const coverage = touchesCoverage ? await checkCoverage(ctx, merged) : null;
  await updateQuota(ctx.db, ctx.event.id, q.id, quotaValues(input, mode), coverage, ctx.now);
  await notifyCatalog(ctx);
  return (await findQuota(ctx.db, ctx.event.id, q.id))!;
}

export async function deleteQuota(ctx: EventContext, id: number): Promise<void> {
  const q = await loadQuota(ctx, id);
  await deleteQuotaRow(ctx.db, ctx.event.id, q.id, ctx.now);
  await notifyCatalog(ctx);
}

/** Availability of the event's quotas `ids` as the event object counts it (none asked: no call). */
export async function quotaAvailability(ctx: EventContext, ids: number[]): Promise<Record<number, Availability>> {
  if (ids.length === 0) return {};
  const stamp = await inventoryStamp(ctx.db, ctx.event.id);
  const [counted, waiting] = await Promise.all([
    withEventObject<Record<number, Availability>>(ctx.env, ctx.event.id, (s, call) =>
      s.quotaAvailability(call, stamp, ids),
    ),
    waitingPerQuota(ctx.db, ctx.event.id, ids),
  ]);
  // pretix's `waiting_list`: the entries still waiting for what the quota covers
  for (const [id, a] of Object.entries(counted)) a.waiting_list = waiting.get(Number(id)) ?? 0;
  return counted;
}
