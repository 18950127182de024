/**
 * Waiting list entries through the API (pretix docs waitinglist.rst): create, change (PUT and
 * PATCH) and delete, with pretix's checks: the product (and variation, and date) of the event,
 * one waiting entry per address, and no entry for a product that is available. An entry that
 * was sent a voucher can be neither changed nor deleted. Vouchers: waitinglist-assign.ts.
 */
import { z } from "zod";
import { isUniqueError } from "../../db/constraints";
import { WAITING_ENTRY_INDEX } from "../../db/schema/index";
import {
  deleteWaitingEntry,
  findWaitingEntry,
  insertWaitingEntry,
  updateWaitingEntry,
  type WaitingEntryRow,
  type WaitingEntryValues,
  waitingEntryFacts,
} from "../../db/waitinglist";
import { forbidden, invalidPk, nonFieldError, notFound, Problems, validationError } from "../../lib/failure";
import { withEventObject } from "../../objects/client";
import type { ProductRoom } from "../../objects/event/waitinglist";
import { email, id } from "../../rules/fields";
import { buildName, type NameParts, withScheme } from "../../rules/person-names";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { namePartsField } from "../organizers/customers";
import { survivingD1Faults } from "../faults";
import { eventSettingsFor } from "../events/settings";

const LOCALE = /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i;

const entryFields = z.object({
  name: z.string().trim().max(255).nullable(),
  name_parts: namePartsField().nullable(),
  email: email(),
  phone: z.string().trim().max(190).nullable(),
  item: id(),
  variation: id().nullable(),
  locale: z.string().trim().max(190).regex(LOCALE, { message: 'Enter a language code such as "en" or "de".' }),
  subevent: id().nullable(),
  priority: z.number().int().min(-2_147_483_648).max(2_147_483_647),
});

/** POST and PUT: `email` and `item` required; other fields take their defaults when omitted. */
export const waitingEntryInput = entryFields.partial().required({ email: true, item: true });
/** PATCH: only the sent fields change. */
export const waitingEntryPatch = entryFields.partial();
export type WaitingEntryInput = z.output<typeof waitingEntryPatch>;

const DUPLICATE =
  "You are already on this waiting list! We will notify you as soon as we have a ticket available for you.";
const PICK_VARIATION = "Please select a specific variation of this product.";
const SUBEVENT_REQUIRED = "Subevent cannot be null for event series.";
const SUBEVENT_FOREIGN = "The subevent does not belong to this event.";
const AVAILABLE = "This product is currently available.";
const HAS_VOUCHER_CHANGE = "This entry can not be changed as it has already been assigned a voucher.";
const HAS_VOUCHER_DELETE = "This entry can not be deleted as it has already been assigned a voucher.";

export async function loadWaitingEntry(ctx: EventContext, entryId: number): Promise<WaitingEntryRow> {
  const row = await findWaitingEntry(ctx.db, ctx.event.id, entryId);
  if (!row) throw notFound();
  return row;
}

/** The columns a POST / PUT (omitted fields reset) or PATCH sets. */
function entryValues(input: WaitingEntryInput, mode: WriteMode, defaultLocale: string): Partial<WaitingEntryValues> {
  const full = mode !== "patch";
  const v: Partial<WaitingEntryValues> = {};
  if (input.email !== undefined) v.email = input.email;
  if (input.item !== undefined) v.itemId = input.item;
  if (input.variation !== undefined || full) v.variationId = input.variation ?? null;
  if (input.subevent !== undefined || full) v.subeventId = input.subevent ?? null;
  if (input.phone !== undefined || full) v.phone = input.phone || null;
  if (input.locale !== undefined || full) v.locale = input.locale ?? defaultLocale;
  if (input.priority !== undefined || full) v.priority = input.priority ?? 0;
  if (input.name !== undefined || input.name_parts !== undefined || full) {
    // a plain name is kept as pretix keeps names without parts (`_legacy`)
    const parts: NameParts = input.name_parts
      ? withScheme(input.name_parts)
      : input.name
        ? { _legacy: input.name }
        : {};
    v.nameParts = parts;
    v.nameCached = buildName(parts);
  }
  return v;
}

type Full = { itemId: number; variationId: number | null; subeventId: number | null; email: string };

/**
 * pretix's checks, on the entry as it would be: the first that fails is the answer (one
 * message, as pretix's). The availability is asked of the event object when the product is
 * new to the entry: it is available when a unit is left beyond those the entries waiting for
 * it would take (pretix counts the waiting list there).
 */
async function checkEntry(ctx: EventContext, e: Full, productTouched: boolean, exceptId: number | null) {
  const f = await waitingEntryFacts(ctx.db, ctx.event.id, e, exceptId);
  if (!f.item) throw validationError({ item: [invalidPk(e.itemId)] });
  if (e.variationId !== null && !f.variation) throw validationError({ variation: [invalidPk(e.variationId)] });
  if (f.duplicate) throw nonFieldError(DUPLICATE);
  const variationOk = f.variation ? f.variation.itemId === e.itemId : !f.item.hasVariations;
  if (!variationOk || (f.item.hasVariations && !f.variation)) throw nonFieldError(PICK_VARIATION);
  if (ctx.event.hasSubevents) {
    if (e.subeventId === null) throw nonFieldError(SUBEVENT_REQUIRED);
    if (!f.subevent) throw nonFieldError(SUBEVENT_FOREIGN);
  } else if (e.subeventId !== null) throw nonFieldError(SUBEVENT_FOREIGN);
  if (!productTouched) return;
  const [room] = await withEventObject<ProductRoom[]>(ctx.env, ctx.event.id, (s, call) =>
    s.productRooms(call, f.stamp, [{ itemId: e.itemId, variationId: e.variationId, subeventId: e.subeventId }]),
  );
  if (room && room.state === 100 && (room.left === null || room.left > f.waiting)) throw nonFieldError(AVAILABLE);
}

function checkName(input: WaitingEntryInput): void {
  const p = new Problems();
  if (input.name && input.name_parts && Object.keys(input.name_parts).length)
    p.add("name", "Do not specify name if you specified name_parts.");
  p.throwIfAny();
}

async function defaultLocale(ctx: EventContext): Promise<string> {
  const settings = await eventSettingsFor(ctx.db, ctx.organizer.id, ctx.event.id);
  return (settings.locale as string | undefined) ?? "en";
}

/** A unique-index refusal: an entry of the same address and product was created beside this one. */
async function orDuplicate<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (e) {
    if (isUniqueError(e, WAITING_ENTRY_INDEX)) throw nonFieldError(DUPLICATE);
    throw e;
  }
}

export const createWaitingEntry = survivingD1Faults(async function createWaitingEntry(
  ctx: EventContext,
  input: z.output<typeof waitingEntryInput>,
): Promise<WaitingEntryRow> {
  checkName(input);
  const values = entryValues(input, "create", await defaultLocale(ctx)) as WaitingEntryValues;
  await checkEntry(ctx, values as Full, true, null);
  return orDuplicate(() => insertWaitingEntry(ctx.db, ctx.event.id, values, ctx.now));
});

export const changeWaitingEntry = survivingD1Faults(async function changeWaitingEntry(
  ctx: EventContext,
  entryId: number,
  input: WaitingEntryInput,
  mode: ChangeMode,
): Promise<WaitingEntryRow> {
  const current = await loadWaitingEntry(ctx, entryId);
  if (current.voucherId !== null) throw forbidden(HAS_VOUCHER_CHANGE);
  checkName(input);
  const values = entryValues(input, mode, await defaultLocale(ctx));
  const next = { ...current, ...values };
  const productTouched = input.item !== undefined || input.variation !== undefined;
  await checkEntry(ctx, next, productTouched, current.id);
  // an empty PATCH changes nothing: the entry as it is
  if (Object.values(values).every((v) => v === undefined)) return current;
  const row = await orDuplicate(() => updateWaitingEntry(ctx.db, ctx.event.id, current.id, values));
  if (!row) throw forbidden(HAS_VOUCHER_CHANGE);
  return row;
});

export const removeWaitingEntry = survivingD1Faults(async function removeWaitingEntry(
  ctx: EventContext,
  entryId: number,
): Promise<void> {
  const current = await loadWaitingEntry(ctx, entryId);
  if (current.voucherId !== null) throw forbidden(HAS_VOUCHER_DELETE);
  if (!(await deleteWaitingEntry(ctx.db, ctx.event.id, current.id))) throw forbidden(HAS_VOUCHER_DELETE);
});
