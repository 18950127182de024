/**
 * What an exporter is (docs/api.md; pretix docs exporters.rst): identifier, name, inputs, sheets,
 * the context a run reads in, and the `_format` choices of pretix's list exporters; the exporters are
 * in `./exporters/`, one file each. Sheets are read in pages by keyset, so a job step reads only the
 * rows it writes; what must stay the same over all steps (tax rate columns, questions, payment
 * providers) is fixed when the export starts (`facts`).
 */
import type { DB } from "../../db/client";
import { addDays, parseDate, zonedTimeToUtc } from "../../lib/datetime";
import type { I18n } from "../../lib/i18n";
import type { TeamPermission } from "../../rules/permissions";
import type { Cell, FileFormat } from "./formats";
import type { InputDef } from "./inputs";

/** An event of the export, as the rows need it. */
export type ExportEvent = {
  id: number;
  slug: string;
  name: I18n;
  timezone: string;
  currency: string;
  hasSubevents: boolean;
};

export type ExportContext = {
  db: DB;
  organizer: { id: number; slug: string; name: string };
  /** The export's events (one for event-level exports; none for organizer-only lists). */
  events: ExportEvent[];
  eventLevel: boolean;
  params: Record<string, unknown>;
  /** Of a single-event export: the event's name scheme and language (pretix: `settings.name_scheme`, `locale`). */
  nameScheme: string | null;
  locale: string;
  now: number;
};

/** Values fixed at the start of an export (JSON). */
export type Facts = Record<string, unknown>;

export type SheetPage = { rows: unknown[]; after: unknown };

export type Sheet = {
  key: string;
  title: string;
  count(x: ExportContext, facts: Facts): Promise<number>;
  header(x: ExportContext, facts: Facts): Cell[];
  page(x: ExportContext, facts: Facts, after: unknown, limit: number): Promise<SheetPage>;
};

export type ExporterDef = {
  identifier: string;
  verboseName: string;
  eventLevel: boolean;
  organizerLevel: boolean;
  /** Organizer-level only: the organizer permission it needs (pretix's organizer_required_permission). */
  organizerPermission?: TeamPermission;
  /** The inputs besides `events`. */
  inputs(x: InputContext): InputDef[];
  sheets: Sheet[];
  /** The file's format and the sheets it holds, from the checked inputs. */
  plan(params: Record<string, unknown>): { format: FileFormat; sheets: string[] };
  facts(x: ExportContext): Promise<Facts>;
  filename(x: ExportContext): string;
  /** JSON documents: what comes before the first and after the last row. */
  json?: { head(x: ExportContext, facts: Facts): Promise<string>; tail: string };
};

/** What the inputs of an exporter depend on. */
export type InputContext = {
  eventLevel: boolean;
  /** Single-event exports: the event is a series. */
  hasSubevents: boolean;
  nameScheme: string | null;
  /** Single-event exports: the event's question ids. */
  questionIds: ReadonlySet<number>;
  /** Single-event exports: the event's check-in list ids. */
  checkinListIds: ReadonlySet<number>;
};

// ---- date inputs ----

/**
 * The start of a date input's day (`plusDays` later: the end of an inclusive range), in the
 * timezone that dates in the inputs are read in: the (first) event's.
 */
export function inputDay(x: ExportContext, value: unknown, plusDays = 0): number | null {
  if (typeof value !== "string") return null;
  const d = parseDate(value);
  if (!d) return null;
  const [y, m, day] = addDays(d, plusDays);
  return zonedTimeToUtc(x.events[0]?.timezone ?? "UTC", y, m, day);
}

// ---- `_format` ----

/** pretix's `_format` of multi-sheet lists: `xlsx` (all sheets) or `<sheet>:<dialect>` (one sheet as CSV). */
export function multiSheetFormats(sheets: readonly Sheet[]): string[] {
  return ["xlsx", ...sheets.flatMap((s) => [`${s.key}:default`, `${s.key}:excel`, `${s.key}:semicolon`])];
}

export function multiSheetPlan(
  sheets: readonly Sheet[],
  params: Record<string, unknown>,
): { format: FileFormat; sheets: string[] } {
  const f = String(params._format);
  if (f === "xlsx") return { format: { kind: "xlsx" }, sheets: sheets.map((s) => s.key) };
  const [sheet, dialect] = f.split(":") as [string, "default" | "excel" | "semicolon"];
  return { format: { kind: "csv", dialect }, sheets: [sheet] };
}

/** pretix's `_format` of single lists. */
export const LIST_FORMATS = ["xlsx", "default", "csv-excel", "semicolon"] as const;

export function listPlan(sheet: Sheet, params: Record<string, unknown>): { format: FileFormat; sheets: string[] } {
  const f = String(params._format);
  if (f === "xlsx") return { format: { kind: "xlsx" }, sheets: [sheet.key] };
  return {
    format: { kind: "csv", dialect: f === "csv-excel" ? "excel" : f === "semicolon" ? "semicolon" : "default" },
    sheets: [sheet.key],
  };
}
