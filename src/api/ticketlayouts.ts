/**
 * Ticket layouts (spec "Ticket layout"; pretix docs ticketoutputpdf.rst) and their
 * layout-item assignments. Reading needs access to the event; layouts are written with
 * can_change_event_settings (pretix's ticket design settings). `layout` is stored as sent
 * and only checked to be a list of objects (open point 12). `item_assignments` is read-only
 * on the layout; assignments are made at `.../ticketlayoutitems/`: pretix documents that
 * resource (id, layout, item, sales_channel) but assigns through its product form, which
 * this service does not have, so the resource also takes POST and DELETE (with
 * can_change_items, the permission of pretix's product form). One layout per item and
 * sales channel.
 */
import { Hono } from "hono";
import { z } from "zod";
import { isUniqueError } from "../db/constraints";
import {
  createLayoutItem,
  createTicketLayout,
  deleteLayoutItem,
  deleteTicketLayout,
  findLayoutItem,
  findTicketLayout,
  itemChannelAssigned,
  layoutItemCount,
  layoutItemPage,
  otherDefaultLayout,
  type TicketLayoutRecord,
  type TicketLayoutValues,
  ticketLayoutCount,
  ticketLayoutPage,
  updateTicketLayout,
} from "../db/ticketlayouts";
import type { AppContext, AppEnv } from "../http/context";
import { Problems, fieldError, notFound } from "../domain/failure";
import { resolveFileField } from "../http/files";
import { envelope, pageRequest } from "../http/pagination";
import { eventScope } from "../http/tenancy";
import { mediaUrl } from "../domain/urls";
import { publicBase } from "../http/urls";
import { jsonBody, pathId } from "../http/validation";
import { checkEventItems, name, salesChannel } from "../domain/catalog-fields";

export function serializeTicketLayout(c: AppContext, { layout: l, assignments }: TicketLayoutRecord) {
  return {
    id: l.id,
    name: l.name,
    default: l.isDefault,
    layout: l.layout,
    background: mediaUrl(publicBase(c), l.background),
    item_assignments: JSON.parse(assignments) as { sales_channel: string; item: number }[],
  };
}

export function serializeLayoutItem(a: { id: number; layoutId: number; itemId: number; salesChannel: string }) {
  return { id: a.id, layout: a.layoutId, item: a.itemId, sales_channel: a.salesChannel };
}

const layoutFields = z.object({
  name: name(190),
  default: z.boolean(),
  /** Dynamic elements, stored exactly as sent. */
  layout: z.array(z.record(z.string(), z.unknown())).max(2000),
  /** `file:<id>` of an uploaded PDF, the current URL (unchanged), or null. */
  background: z.string().max(2000).nullable(),
});
type LayoutInput = z.output<typeof layoutFields>;

const layoutFull = layoutFields.partial().required({ name: true });
const layoutPatch = layoutFields.partial();

const TWO_DEFAULTS = "You cannot have two layouts with default = True.";

async function loadLayout(c: AppContext): Promise<TicketLayoutRecord> {
  const record = await findTicketLayout(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!record) throw notFound();
  return record;
}

async function reload(c: AppContext, id: number) {
  const record = await findTicketLayout(c.var.db, c.var.event.id, id);
  if (!record) throw notFound();
  return serializeTicketLayout(c, record);
}

/**
 * Column values; with `full` omitted fields take their defaults (no default flag, empty
 * layout, no background). The background file is stored last, after every check passed.
 */
async function layoutValues(c: AppContext, input: Partial<LayoutInput>, full: boolean, current?: TicketLayoutRecord): Promise<Partial<TicketLayoutValues>> {
  const v: Partial<TicketLayoutValues> = {};
  if (input.name !== undefined) v.name = input.name;
  if (input.default !== undefined || full) v.isDefault = input.default ?? false;
  if (input.layout !== undefined || full) v.layout = input.layout ?? [];
  if (v.isDefault) {
    const other = await otherDefaultLayout(c.var.db, c.var.event.id, current?.layout.id);
    if (other !== undefined) throw fieldError("default", TWO_DEFAULTS);
  }
  const bg = input.background;
  if (bg === null || (bg === undefined && full)) {
    v.background = null;
  } else if (bg !== undefined) {
    const unchanged = current && current.layout.background !== null && bg === mediaUrl(publicBase(c), current.layout.background);
    if (!unchanged) {
      v.background = await resolveFileField(c, "background", bg, {
        allowedTypes: ["application/pdf"],
        scope: `events/${c.var.event.id}/ticketlayouts`,
      });
    }
  }
  return v;
}

export const ticketLayoutRoutes = new Hono<AppEnv>();
const read = eventScope(null);
const write = eventScope("can_change_event_settings");
const base = "/organizers/:organizer/events/:event/ticketlayouts";

ticketLayoutRoutes.get(base, read, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [[total], rows] = await db.batch([ticketLayoutCount(db, eventId), ticketLayoutPage(db, eventId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map((r) => serializeTicketLayout(c, r))));
});

ticketLayoutRoutes.get(`${base}/:id`, read, async (c) => c.json(serializeTicketLayout(c, await loadLayout(c))));

ticketLayoutRoutes.post(base, write, jsonBody(layoutFull), async (c) => {
  const values = await layoutValues(c, c.req.valid("json"), true);
  let id: number;
  try {
    id = await createTicketLayout(c.var.db, c.var.event.id, values as TicketLayoutValues);
  } catch (e) {
    if (isUniqueError(e)) throw fieldError("default", TWO_DEFAULTS);
    throw e;
  }
  return c.json(await reload(c, id), 201);
});

async function changeLayout(c: AppContext, input: Partial<LayoutInput>, full: boolean) {
  const current = await loadLayout(c);
  const values = await layoutValues(c, input, full, current);
  try {
    await updateTicketLayout(c.var.db, c.var.event.id, current.layout.id, values);
  } catch (e) {
    if (isUniqueError(e)) throw fieldError("default", TWO_DEFAULTS);
    throw e;
  }
  return c.json(await reload(c, current.layout.id));
}

ticketLayoutRoutes.put(`${base}/:id`, write, jsonBody(layoutFull), (c) => changeLayout(c, c.req.valid("json"), true));
ticketLayoutRoutes.patch(`${base}/:id`, write, jsonBody(layoutPatch), (c) => changeLayout(c, c.req.valid("json"), false));

ticketLayoutRoutes.delete(`${base}/:id`, write, async (c) => {
  const { layout } = await loadLayout(c);
  await deleteTicketLayout(c.var.db, c.var.event.id, layout.id);
  return c.body(null, 204);
});

// ---- layout-item assignments ----

const itemsBase = "/organizers/:organizer/events/:event/ticketlayoutitems";
const assign = eventScope("can_change_items");

const assignmentInput = z.object({
  layout: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  item: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  sales_channel: salesChannel().optional(),
});

ticketLayoutRoutes.get(itemsBase, read, async (c) => {
  const page = pageRequest(c);
  const db = c.var.db;
  const eventId = c.var.event.id;
  const [[total], rows] = await db.batch([layoutItemCount(db, eventId), layoutItemPage(db, eventId, page.limit, page.offset)]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map(serializeLayoutItem)));
});

ticketLayoutRoutes.get(`${itemsBase}/:id`, read, async (c) => {
  const row = await findLayoutItem(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!row) throw notFound();
  return c.json(serializeLayoutItem(row));
});

const ALREADY_ASSIGNED = "This product already has a ticket layout for this sales channel.";

ticketLayoutRoutes.post(itemsBase, assign, jsonBody(assignmentInput), async (c) => {
  const input = c.req.valid("json");
  const channel = input.sales_channel ?? "web";
  const db = c.var.db;
  const errors = new Problems();
  if (!(await findTicketLayout(db, c.var.event.id, input.layout))) errors.add("layout", `Invalid pk "${input.layout}" - object does not exist.`);
  await checkEventItems(c.var.db, c.var.event.id, errors, "item", [input.item]);
  errors.throwIfAny();
  if (await itemChannelAssigned(db, input.item, channel)) throw fieldError("non_field_errors", ALREADY_ASSIGNED);
  try {
    const row = await createLayoutItem(db, c.var.event.id, input.layout, input.item, channel);
    if (!row) throw fieldError("layout", `Invalid pk "${input.layout}" - object does not exist.`);
    return c.json(serializeLayoutItem(row), 201);
  } catch (e) {
    if (isUniqueError(e)) throw fieldError("non_field_errors", ALREADY_ASSIGNED);
    throw e;
  }
});

ticketLayoutRoutes.delete(`${itemsBase}/:id`, assign, async (c) => {
  const row = await findLayoutItem(c.var.db, c.var.event.id, pathId(c, "id"));
  if (!row) throw notFound();
  await deleteLayoutItem(c.var.db, c.var.event.id, row.id);
  return c.body(null, 204);
});
