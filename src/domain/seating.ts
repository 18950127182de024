/**
 * Seating plan layouts. The layout is stored and returned as sent (its schema is an open
 * point of the spec); only the part that selling needs is read, the way pretix defines its
 * seating plan JSON (src/pretix/static/seating/seating-plan.schema.json): `categories`
 * (objects with a `name`) and `zones` → `rows` → `seats`, each seat with a `seat_guid`
 * unique in the plan, a `seat_number` and a `category`. Rows carry `row_number` and
 * optional `row_label` / `seat_label` templates ("%s" stands for the number); positions
 * (`{x, y}`, relative to the enclosing zone and row) give each seat its coordinates.
 * Everything else (size, areas, colours, uuids, ...) is left alone.
 */
import type { PlanSeat } from "../db/seatingplans";

export type { PlanSeat };

export type SeatingLayoutResult = { ok: true; seats: PlanSeat[]; categories: string[] } | { ok: false; errors: string[] };

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

export function readSeatingLayout(layout: unknown): SeatingLayoutResult {
  const errors: string[] = [];
  const fail = (path: string, message: string) => {
    if (errors.length < MAX_ERRORS) errors.push(path ? `${path}: ${message}` : message);
  };
  if (!isObject(layout)) return { ok: false, errors: ["The layout must be a JSON object."] };

  const categories: string[] = [];
  if (!Array.isArray(layout.categories)) {
    fail("categories", "This field is required and must be a list.");
  } else {
    layout.categories.forEach((cat, i) => {
      if (!isObject(cat) || typeof cat.name !== "string") fail(`categories[${i}]`, "Each category must be an object with a string name.");
      else categories.push(cat.name);
    });
  }

  const seats: PlanSeat[] = [];
  const guids = new Set<string>();
  const position = (path: string, v: unknown): { x: number; y: number } | null | undefined => {
    if (v === undefined) return undefined;
    if (!isObject(v) || !isNumber(v.x) || !isNumber(v.y)) {
      fail(`${path}.position`, "A position must be an object with numbers x and y.");
      return null;
    }
    return { x: v.x, y: v.y };
  };
  const optionalText = (path: string, v: unknown): string | null => {
    if (v === undefined || v === null) return null;
    if (typeof v !== "string") {
      fail(path, "Must be a string or null.");
      return null;
    }
    return v;
  };

  if (!Array.isArray(layout.zones)) {
    fail("zones", "This field is required and must be a list.");
  } else {
    layout.zones.forEach((zone, zi) => {
      const zp = `zones[${zi}]`;
      if (!isObject(zone)) return fail(zp, "Each zone must be an object.");
      if (zone.name !== undefined && typeof zone.name !== "string") fail(`${zp}.name`, "Must be a string.");
      const zpos = position(zp, zone.position);
      if (!Array.isArray(zone.rows)) return fail(`${zp}.rows`, "This field is required and must be a list.");
      zone.rows.forEach((row, ri) => {
        const rp = `${zp}.rows[${ri}]`;
        if (!isObject(row)) return fail(rp, "Each row must be an object.");
        if (typeof row.row_number !== "string") fail(`${rp}.row_number`, "This field is required and must be a string.");
        const rowNumber = typeof row.row_number === "string" ? row.row_number : "";
        const rowLabelTemplate = optionalText(`${rp}.row_label`, row.row_label);
        const seatLabelTemplate = optionalText(`${rp}.seat_label`, row.seat_label);
        const rpos = position(rp, row.position);
        if (!Array.isArray(row.seats)) return fail(`${rp}.seats`, "This field is required and must be a list.");
        row.seats.forEach((seat, si) => {
          const sp = `${rp}.seats[${si}]`;
          if (!isObject(seat)) return fail(sp, "Each seat must be an object.");
          const guid = seat.seat_guid;
          if (typeof guid !== "string" || guid === "") fail(`${sp}.seat_guid`, "This field is required and must be a non-empty string.");
          if (typeof seat.seat_number !== "string") fail(`${sp}.seat_number`, "This field is required and must be a string.");
          if (typeof seat.category !== "string") fail(`${sp}.category`, "This field is required and must be a string.");
          const spos = position(sp, seat.position);
          if (typeof guid !== "string" || guid === "" || typeof seat.seat_number !== "string" || typeof seat.category !== "string") return;
          if (guids.has(guid)) return fail(`${sp}.seat_guid`, `The seat_guid "${guid}" is used by more than one seat.`);
          guids.add(guid);
          const seatNumber = seat.seat_number;
          const hasPosition = spos !== undefined && spos !== null && zpos !== null && rpos !== null;
          seats.push({
            seatGuid: guid,
            zoneName: typeof zone.name === "string" ? zone.name : "",
            rowName: rowNumber,
            rowLabel: rowLabelTemplate ? rowLabelTemplate.replaceAll("%s", rowNumber) : null,
            seatNumber,
            seatLabel: seatLabelTemplate ? seatLabelTemplate.replaceAll("%s", seatNumber) : null,
            category: seat.category,
            sortingRank: 100_000_000 * zi + 10_000 * rankPart(rowNumber, ri) + rankPart(seatNumber, si),
            x: hasPosition ? (zpos?.x ?? 0) + (rpos?.x ?? 0) + spos.x : null,
            y: hasPosition ? (zpos?.y ?? 0) + (rpos?.y ?? 0) + spos.y : null,
          });
        });
      });
    });
  }

  return errors.length ? { ok: false, errors } : { ok: true, seats, categories };
}
