/**
 * The waiting list's rules from facts (pretix docs waitinglist.rst and event settings): whether
 * vouchers are given out automatically now.
 */
import type { EventRow } from "../db/tenancy";
import { parseDateTime } from "../lib/datetime";
import { parseRelative, resolveRelativeDateTime } from "../lib/reldate";

/** When `waiting_list_auto_disable` (a datetime or RELDATE/...) says automatic vouchers stop; null: never. */
export function autoDisableAt(event: EventRow, settings: Record<string, unknown>): number | null {
  const value = settings.waiting_list_auto_disable;
  if (typeof value !== "string" || value === "") return null;
  const spec = parseRelative(value);
  if (!spec) return parseDateTime(value, event.timezone);
  return resolveRelativeDateTime(spec, {
    timezone: event.timezone,
    date_from: event.dateFrom,
    date_to: event.dateTo,
    date_admission: event.dateAdmission,
    presale_start: event.presaleStart,
    presale_end: event.presaleEnd,
  });
}

/** Automatic assignment is on (`waiting_list_auto`, pretix's default on) and not disabled yet. */
export function autoAssignmentOpen(event: EventRow, settings: Record<string, unknown>, now: number): boolean {
  if (settings.waiting_list_auto === false) return false;
  const until = autoDisableAt(event, settings);
  return until === null || now < until;
}
