/**
 * Ticket layouts (docs/api.md; pretix docs ticketoutputpdf.rst) and their
 * layout-item assignments: the request bodies and the services. `layout` is stored as sent
 * and only checked to be a list of objects (docs/open-points.md row 12). One layout of the event is the
 * default; one layout per item and sales channel.
 */
import { z } from "zod";
import { isUniqueError } from "../../db/constraints";
import {
  assignmentFacts,
  deleteLayoutItemRow,
  deleteTicketLayoutRow,
  findLayoutItem,
  findTicketLayout,
  findTicketLayoutAndOtherDefault,
  hasOtherDefaultLayout,
  insertLayoutItem,
  insertTicketLayout,
  type LayoutItemRow,
  type TicketLayoutRecord,
  type TicketLayoutValues,
  updateTicketLayoutValues,
} from "../../db/ticketlayouts";
import { name, salesChannel, type StoreUpload } from "../catalog/catalog-fields";
import type { ChangeMode, EventContext, WriteMode } from "../context";
import { fieldError, invalidPk, nonFieldError, notFound, Problems } from "../../lib/failure";
import { mediaUrl } from "../../rules/urls";

const layoutFields = z.object({
  name: name(190),
  default: z.boolean(),
  /** Dynamic elements, stored exactly as sent. */
  layout: z.array(z.record(z.string(), z.unknown())).max(2000),
  /** `file:<id>` of an uploaded PDF, the current URL (unchanged), or null. */
  background: z.string().max(2000).nullable(),
});

/** The body of POST and PUT: `name` required, the rest defaults. */
export const ticketLayoutInput = layoutFields.partial().required({ name: true });
/** The body of PATCH: any field. */
export const ticketLayoutPatch = layoutFields.partial();
export type TicketLayoutInput = z.output<typeof ticketLayoutInput>;
export type TicketLayoutPatch = z.output<typeof ticketLayoutPatch>;

/** The body of an assignment (`.../ticketlayoutitems/`). */
export const layoutItemInput = z.object({
  layout: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  item: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  sales_channel: salesChannel().optional(),
});
export type LayoutItemInput = z.output<typeof layoutItemInput>;

const TWO_DEFAULTS = "You cannot have two layouts with default = True.";
const ALREADY_ASSIGNED = "This product already has a ticket layout for this sales channel.";

/** The family's unique constraints, raced past the checks, as the checks' own failures. */
function constraintFailure(e: unknown): unknown {
  if (isUniqueError(e, "ticket_layouts.event_id")) return fieldError("default", TWO_DEFAULTS);
  if (isUniqueError(e, "ticket_layout_items.item_id")) return nonFieldError(ALREADY_ASSIGNED);
  return e;
}

async function write<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    throw constraintFailure(e);
  }
}

/**
 * Column values; unless the mode is `patch`, omitted fields take their defaults (no default
 * flag, empty layout, no background). The background file is stored last, after every check
 * passed: `null` clears it, the current URL keeps it, anything else must be an upload (a PDF).
 */
async function layoutValues(
  ctx: EventContext,
  input: TicketLayoutPatch,
  mode: WriteMode,
  current: TicketLayoutRecord | undefined,
  otherDefault: () => Promise<boolean>,
  storeUpload: StoreUpload,
): Promise<Partial<TicketLayoutValues>> {
  const full = mode !== "patch";
  const v: Partial<TicketLayoutValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.default !== undefined || full) v.isDefault = input.default ?? false;
  if (input.layout !== undefined || full) v.layout = input.layout ?? [];
  if (v.isDefault && (await otherDefault())) throw fieldError("default", TWO_DEFAULTS);
  const bg = input.background;
  if (bg === null || (bg === undefined && full)) {
    v.background = null;
  } else if (bg !== undefined) {
    const unchanged =
      current !== undefined &&
      current.layout.background !== null &&
      bg === mediaUrl(ctx.baseUrl, current.layout.background);
    if (!unchanged) {
      v.background = await storeUpload(bg, {
        field: "background",
        allowedTypes: ["application/pdf"],
        scope: `events/${ctx.event.id}/ticketlayouts`,
      });
    }
  }
  return v;
}

/** A layout of the event; not found otherwise. */
export async function loadTicketLayout(ctx: EventContext, id: number): Promise<TicketLayoutRecord> {
  const record = await findTicketLayout(ctx.db, ctx.event.id, id);
  if (!record) throw notFound();
  return record;
}

export async function createTicketLayout(
  ctx: EventContext,
  input: TicketLayoutInput,
  storeUpload: StoreUpload,
): Promise<TicketLayoutRecord> {
  const values = await layoutValues(
    ctx,
    input,
    "create",
    undefined,
    () => hasOtherDefaultLayout(ctx.db, ctx.event.id),
    storeUpload,
  );
  return write(() => insertTicketLayout(ctx.db, ctx.event.id, values as TicketLayoutValues));
}

/** PUT (`put`) or PATCH (`patch`). */
export async function updateTicketLayout(
  ctx: EventContext,
  id: number,
  input: TicketLayoutPatch,
  mode: ChangeMode,
  storeUpload: StoreUpload,
): Promise<TicketLayoutRecord> {
  const { record: current, otherDefault } = await findTicketLayoutAndOtherDefault(ctx.db, ctx.event.id, id);
  if (!current) throw notFound();
  const values = await layoutValues(ctx, input, mode, current, async () => otherDefault, storeUpload);
  const record = await write(() => updateTicketLayoutValues(ctx.db, ctx.event.id, current.layout.id, values));
  if (!record) throw notFound();
  return record;
}

/** Deletes a layout (and its assignments); when it was the default, the first remaining layout by name becomes the default. */
export async function deleteTicketLayout(ctx: EventContext, id: number): Promise<void> {
  const { layout } = await loadTicketLayout(ctx, id);
  await deleteTicketLayoutRow(ctx.db, ctx.event.id, layout.id);
}

// ---- layout-item assignments ----

/** An assignment of the event's layouts; not found otherwise. */
export async function loadLayoutItem(ctx: EventContext, id: number): Promise<LayoutItemRow> {
  const row = await findLayoutItem(ctx.db, ctx.event.id, id);
  if (!row) throw notFound();
  return row;
}

/** Assigns a layout of the event to an item of the event on a sales channel (default `web`): one layout per item and channel. */
export async function assignLayoutItem(ctx: EventContext, input: LayoutItemInput): Promise<LayoutItemRow> {
  const channel = input.sales_channel ?? "web";
  const facts = await assignmentFacts(ctx.db, ctx.event.id, input.layout, input.item, channel);
  const errors = new Problems();
  if (!facts.layoutExists) errors.add("layout", invalidPk(input.layout));
  if (!facts.itemExists) errors.add("item", invalidPk(input.item));
  errors.throwIfAny();
  if (facts.assigned) throw nonFieldError(ALREADY_ASSIGNED);
  const row = await write(() => insertLayoutItem(ctx.db, ctx.event.id, input.layout, input.item, channel));
  // the layout or the item was deleted meanwhile
  if (!row) throw fieldError("layout", invalidPk(input.layout));
  return row;
}

export async function unassignLayoutItem(ctx: EventContext, id: number): Promise<void> {
  if (!(await deleteLayoutItemRow(ctx.db, ctx.event.id, id))) throw notFound();
}
