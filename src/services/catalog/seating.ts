/**
 * Seating plan layouts: stored and returned as sent (the schema is an open point (docs/open-points.md)); only
 * what selling needs is read, as pretix's `seating-plan.schema.json` defines it: `categories` and
 * `zones` → `rows` → `seats` (`seat_guid` unique in the plan, `seat_number`, `category`; a row's
 * `row_number` and `row_label` / `seat_label` templates with "%s"; `{x, y}` relative to zone and row).
 * Everything else (size, areas, colours, uuids, ...) is left alone.
 */
import { z } from "zod";
import {
  deleteSeatingPlanIfUnused,
  findSeatingPlan,
  insertSeatingPlan,
  type PlanSeat,
  type SeatingPlanRow,
  updateSeatingPlanIfUnused,
} from "../../db/seatingplans";
import { name } from "./catalog-fields";
import type { OrganizerContext } from "../context";
import { inUse, notFound, Problems } from "../../lib/failure";

export type { PlanSeat };

/** What selling needs of a layout: its seats and the names of its categories. */
export type SeatingLayout = { seats: PlanSeat[]; categories: string[] };

const MAX_ERRORS = 20;

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Rank part from a numeric row or seat number below 10,000, else the index (as pretix ranks). */
function rankPart(value: string, index: number): number {
  if (/^\s*\d+\s*$/.test(value)) {
    const n = Number(value);
    if (n < 10_000) return n;
  }
  return Math.min(index, 9_999);
}

/** The names of the layout's seat categories. */
function readCategories(list: unknown, fail: (path: string, message: string) => void): string[] {
  const categories: string[] = [];
  if (!Array.isArray(list)) {
    fail("categories", "This field is required and must be a list.");
  } else {
    list.forEach((cat, i) => {
      if (!isObject(cat) || typeof cat.name !== "string")
        fail(`categories[${i}]`, "Each category must be an object with a string name.");
      else categories.push(cat.name);
    });
  }
  return categories;
}

/**
 * Reads the seats of a layout; what cannot be read is added to `problems` under `field` (at
 * most MAX_ERRORS messages, each naming its place in the layout).
 */
export function readSeatingLayout(layout: unknown, problems: Problems, field = "layout"): SeatingLayout {
  let count = 0;
  const fail: Fail = (path, message) => {
    if (count++ < MAX_ERRORS) problems.add(field, path ? `${path}: ${message}` : message);
  };
  if (!isObject(layout)) {
    fail("", "The layout must be a JSON object.");
    return { seats: [], categories: [] };
  }
  const categories = readCategories(layout.categories, fail);
  const r = new SeatReader(fail);
  if (!Array.isArray(layout.zones)) fail("zones", "This field is required and must be a list.");
  else layout.zones.forEach((zone, zi) => r.zone(zone, zi));
  return { seats: r.seats, categories };
}

type Fail = (path: string, message: string) => void;
type Offset = { x: number; y: number } | null | undefined;

/** Zones, their rows and the rows' seats, in order; each seat placed by the sum of the three positions. */
class SeatReader {
  readonly seats: PlanSeat[] = [];
  private readonly guids = new Set<string>();

  constructor(private readonly fail: Fail) {}

  zone(zone: unknown, zi: number) {
    const zp = `zones[${zi}]`;
    if (!isObject(zone)) return this.fail(zp, "Each zone must be an object.");
    if (zone.name !== undefined && typeof zone.name !== "string") this.fail(`${zp}.name`, "Must be a string.");
    const zpos = this.position(zp, zone.position);
    if (!Array.isArray(zone.rows)) return this.fail(`${zp}.rows`, "This field is required and must be a list.");
    const zoneName = typeof zone.name === "string" ? zone.name : "";
    zone.rows.forEach((row, ri) => this.row(row, `${zp}.rows[${ri}]`, { zi, ri, zoneName, zpos }));
  }

  private row(row: unknown, rp: string, at: { zi: number; ri: number; zoneName: string; zpos: Offset }) {
    if (!isObject(row)) return this.fail(rp, "Each row must be an object.");
    if (typeof row.row_number !== "string")
      this.fail(`${rp}.row_number`, "This field is required and must be a string.");
    const rowNumber = typeof row.row_number === "string" ? row.row_number : "";
    const rowLabel = this.optionalText(`${rp}.row_label`, row.row_label);
    const seatLabel = this.optionalText(`${rp}.seat_label`, row.seat_label);
    const rpos = this.position(rp, row.position);
    if (!Array.isArray(row.seats)) return this.fail(`${rp}.seats`, "This field is required and must be a list.");
    const rowFacts = { ...at, rowNumber, rowLabel, seatLabel, rpos };
    row.seats.forEach((seat, si) => this.seat(seat, `${rp}.seats[${si}]`, si, rowFacts));
  }

  private seat(
    seat: unknown,
    sp: string,
    si: number,
    r: {
      zi: number;
      ri: number;
      zoneName: string;
      zpos: Offset;
      rowNumber: string;
      rowLabel: string | null;
      seatLabel: string | null;
      rpos: Offset;
    },
  ) {
    if (!isObject(seat)) return this.fail(sp, "Each seat must be an object.");
    const guid = seat.seat_guid;
    if (typeof guid !== "string" || guid === "")
      this.fail(`${sp}.seat_guid`, "This field is required and must be a non-empty string.");
    if (typeof seat.seat_number !== "string")
      this.fail(`${sp}.seat_number`, "This field is required and must be a string.");
    if (typeof seat.category !== "string") this.fail(`${sp}.category`, "This field is required and must be a string.");
    const spos = this.position(sp, seat.position);
    if (
      typeof guid !== "string" ||
      guid === "" ||
      typeof seat.seat_number !== "string" ||
      typeof seat.category !== "string"
    )
      return;
    if (this.guids.has(guid))
      return this.fail(`${sp}.seat_guid`, `The seat_guid "${guid}" is used by more than one seat.`);
    this.guids.add(guid);
    const seatNumber = seat.seat_number;
    const hasPosition = spos !== undefined && spos !== null && r.zpos !== null && r.rpos !== null;
    this.seats.push({
      seatGuid: guid,
      zoneName: r.zoneName,
      rowName: r.rowNumber,
      rowLabel: r.rowLabel ? r.rowLabel.replaceAll("%s", r.rowNumber) : null,
      seatNumber,
      seatLabel: r.seatLabel ? r.seatLabel.replaceAll("%s", seatNumber) : null,
      category: seat.category,
      sortingRank: 100_000_000 * r.zi + 10_000 * rankPart(r.rowNumber, r.ri) + rankPart(seatNumber, si),
      x: hasPosition ? (r.zpos?.x ?? 0) + (r.rpos?.x ?? 0) + spos.x : null,
      y: hasPosition ? (r.zpos?.y ?? 0) + (r.rpos?.y ?? 0) + spos.y : null,
    });
  }

  private position(path: string, v: unknown): Offset {
    if (v === undefined) return undefined;
    if (!isObject(v) || !isNumber(v.x) || !isNumber(v.y)) {
      this.fail(`${path}.position`, "A position must be an object with numbers x and y.");
      return null;
    }
    return { x: v.x, y: v.y };
  }

  private optionalText(path: string, v: unknown): string | null {
    if (v === undefined || v === null) return null;
    if (typeof v !== "string") {
      this.fail(path, "Must be a string or null.");
      return null;
    }
    return v;
  }
}

// ---- seating plans of an organizer (docs/api.md; pretix docs seatingplans.rst) ----

const planFields = z.object({
  name: name(190),
  layout: z.record(z.string(), z.unknown()),
});

/** POST and PUT: name and layout. */
export const seatingPlanFullInput = planFields;
export type SeatingPlanFullInput = z.output<typeof seatingPlanFullInput>;

/** PATCH: the fields sent change. */
export const seatingPlanPatchInput = planFields.partial();
export type SeatingPlanPatchInput = z.output<typeof seatingPlanPatchInput>;

/** The seats of a layout from input; a layout whose seats cannot be read is invalid input. */
function seatsOf(layout: Record<string, unknown>): PlanSeat[] {
  const problems = new Problems();
  const { seats } = readSeatingLayout(layout, problems);
  problems.throwIfAny();
  return seats;
}

/** A plan of the organizer (404 when there is none with this id). */
export async function loadSeatingPlan(ctx: OrganizerContext, id: number): Promise<SeatingPlanRow> {
  const plan = await findSeatingPlan(ctx.db, ctx.organizer.id, id);
  if (!plan) throw notFound();
  return plan;
}

/** Creates a plan with the seats of its layout. */
export async function createSeatingPlan(ctx: OrganizerContext, input: SeatingPlanFullInput): Promise<SeatingPlanRow> {
  return insertSeatingPlan(ctx.db, ctx.organizer.id, input.name, input.layout, seatsOf(input.layout));
}

/**
 * Changes a plan (PUT and PATCH; a new layout replaces its seats) unless an event or date uses
 * it: the condition is part of the writing statements, so a plan assigned meanwhile stays
 * intact.
 */
export async function changeSeatingPlan(
  ctx: OrganizerContext,
  id: number,
  input: SeatingPlanPatchInput,
): Promise<SeatingPlanRow> {
  const current = await loadSeatingPlan(ctx, id);
  const seats = input.layout === undefined ? undefined : seatsOf(input.layout);
  const values: { name?: string; layout?: Record<string, unknown> } = {};
  if (input.name !== undefined) values.name = input.name;
  if (input.layout !== undefined) values.layout = input.layout;
  const plan = await updateSeatingPlanIfUnused(ctx.db, ctx.organizer.id, current.id, values, seats);
  if (!plan) throw inUse("This plan can not be changed while it is in use for an event.");
  return plan;
}

/** Deletes a plan with its seats unless an event or date uses it. */
export async function deleteSeatingPlan(ctx: OrganizerContext, id: number): Promise<void> {
  const plan = await loadSeatingPlan(ctx, id);
  if (!(await deleteSeatingPlanIfUnused(ctx.db, ctx.organizer.id, plan.id))) {
    throw inUse("This plan can not be deleted while it is in use for an event.");
  }
}
