/**
 * Data exports (docs/api.md; pretix docs exporters.rst): the
 * exporter list, starting an export, its state behind the download URL, and the queue job that writes
 * the file in steps (one message each, `EXPORT_STEP_ROWS` rows by keyset, taken with a conditional
 * update and a lease so each step is written once; docs/documents.md). At most two exports of a
 * credential run at once; a third is refused with 429 (docs/open-points.md).
 */
import type { DB } from "../../db/client";
import {
  claimExportStep,
  commitExportStep,
  deleteExportJobs,
  expiredExportJobs,
  type ExportJobRow,
  findExportJob,
  findExportJobById,
  insertExportJobUnderLimit,
  recordExportAttemptFailed,
  staleExportJobs,
} from "../../db/exports/jobs";
import { exportEvents, exportInputIds, exportOrganizer, organizerEventSlugs } from "../../db/exports/scope";
import type { EventRow } from "../../db/tenancy";
import { type Env, readConfig } from "../../lib/env";
import { badRequest, Failure, isFailure, notFound } from "../../lib/failure";
import type { I18n } from "../../lib/i18n";
import { log } from "../../lib/log";
import type { ExportMessage } from "../../lib/queues";
import { concatBytes } from "../../lib/zip";
import { canAccessEvent, hasPermission, type Principal } from "../../rules/permissions";
import type { OrganizerContext } from "../context";
import { confirmedWrite, survivingD1Faults } from "../faults";
import { eventSettingsFor } from "../events/settings";
import type { ExportContext, ExporterDef, ExportEvent, InputContext, Sheet } from "./exporter";
import { EXPORTERS } from "./exporters";
import {
  CONTENT_TYPES,
  csvRows,
  type Cell,
  type FileFormat,
  newXlsx,
  XLSX_MAX_ROWS,
  xlsxBeginSheet,
  xlsxEndSheet,
  xlsxFinish,
  xlsxRows,
  type XlsxState,
} from "./formats";
import { describeInput, type InputDef, parseInputs } from "./inputs";
import { appendToUpload, discardUpload, newUpload, type UploadState } from "./upload";

/** Spec "Limits": at most two exports of a caller at the same time. */
export const CONCURRENT_EXPORTS = 2;
/** How long a step holds its job; a second delivery of the step waits that long. */
const LEASE_MS = 5 * 60_000;
/** Failed attempts of one step before the export fails. */
const MAX_ATTEMPTS = 5;
/** Rows read per query within a step. */
const PAGE_ROWS = 1000;
/** A job that has not moved for this long gets its message again (cron). */
const STALE_MS = 10 * 60_000;
/** pretix's message for a failure that is not the exporter's own. */
const INTERNAL_ERROR = "Internal error";

export type ExporterDescription = {
  identifier: string;
  verbose_name: string;
  input_parameters: { name: string; required: boolean; choices?: string[] }[];
};

type Level = { event: EventRow } | { event: null };

/** The exporters a caller can run here (organizer level: also by the organizer permission pretix requires). */
function available(principal: Principal, level: Level): ExporterDef[] {
  return EXPORTERS.filter((d) =>
    level.event
      ? d.eventLevel
      : d.organizerLevel && (!d.organizerPermission || hasPermission(principal, d.organizerPermission)),
  );
}

function findAvailable(principal: Principal, level: Level, identifier: string): ExporterDef {
  const def = available(principal, level).find((d) => d.identifier === identifier);
  if (!def) throw notFound();
  return def;
}

async function inputContext(ctx: OrganizerContext, level: Level): Promise<InputContext> {
  if (!level.event)
    return {
      eventLevel: false,
      hasSubevents: false,
      nameScheme: null,
      questionIds: new Set(),
      checkinListIds: new Set(),
    };
  const [settings, { questionIds, checkinListIds }] = await Promise.all([
    eventSettingsFor(ctx.db, ctx.organizer.id, level.event.id),
    exportInputIds(ctx.db, level.event.id),
  ]);
  return {
    eventLevel: true,
    hasSubevents: level.event.hasSubevents,
    nameScheme: typeof settings.name_scheme === "string" ? settings.name_scheme : null,
    questionIds,
    checkinListIds,
  };
}

/** The events an organizer-level export of the caller may contain (pretix: events with can_view_orders). */
async function exportableEvents(ctx: OrganizerContext, principal: Principal): Promise<Map<string, number>> {
  if (!hasPermission(principal, "can_view_orders")) return new Map();
  const rows = await organizerEventSlugs(ctx.db, ctx.organizer.id);
  return new Map(rows.filter((e) => canAccessEvent(principal, Number(e.id))).map((e) => [e.slug, Number(e.id)]));
}

function inputDefs(def: ExporterDef, ic: InputContext, events: Map<string, number> | null): InputDef[] {
  const own = def.inputs(ic);
  // organizer-level exports of event data take `events` (pretix: not for organizer-only lists)
  return events && !def.organizerPermission ? [{ name: "events", kind: "events", valid: events }, ...own] : own;
}

/** GET .../exporters/: the exporters with their inputs. */
export async function listExporters(
  ctx: OrganizerContext,
  principal: Principal,
  event: EventRow | null,
): Promise<ExporterDescription[]> {
  const level: Level = event ? { event } : { event: null };
  const ic = await inputContext(ctx, level);
  const events = event ? null : new Map<string, number>();
  return available(principal, level).map((d) => ({
    identifier: d.identifier,
    verbose_name: d.verboseName,
    input_parameters: inputDefs(d, ic, events).map(describeInput),
  }));
}

/** POST .../exporters/{identifier}/run/: checks the inputs and queues the export; its id. */
export const runExport = survivingD1Faults(async function runExport(
  ctx: OrganizerContext,
  principal: Principal,
  event: EventRow | null,
  identifier: string,
  body: unknown,
): Promise<{ id: string }> {
  const level: Level = event ? { event } : { event: null };
  const def = findAvailable(principal, level, identifier);
  const [ic, events] = await Promise.all([
    inputContext(ctx, level),
    event ? Promise.resolve(null) : exportableEvents(ctx, principal),
  ]);
  const params = parseInputs(inputDefs(def, ic, events), body);
  if (!event && !def.organizerPermission && params.events === undefined) params.events = [];
  const id = crypto.randomUUID();
  const { retentionMs } = readConfig(ctx.env).exports;
  const job = {
    id,
    organizerId: ctx.organizer.id,
    eventId: event?.id ?? null,
    owner: principal.identity,
    identifier: def.identifier,
    params,
    createdAt: ctx.now,
    updatedAt: ctx.now,
    expiresAt: ctx.now + retentionMs,
  };
  // after a lost answer: the job's id is this request's alone
  const inserted = await confirmedWrite(
    () => insertExportJobUnderLimit(ctx.db, job, CONCURRENT_EXPORTS),
    async () => ((await findExportJobById(ctx.db, id)) ? true : null),
  );
  if (!inserted) {
    throw new Failure(
      "rate_limited",
      `At most ${CONCURRENT_EXPORTS} exports may run at the same time. Retry when one of them has finished.`,
      {
        params: { retryAfter: 5 },
      },
    );
  }
  await sendStep(ctx.env, id, 0);
  return { id };
});

async function sendStep(env: Env, exportId: string, step: number): Promise<void> {
  try {
    await env.EXPORTS_QUEUE.send({ kind: "export", exportId, step } satisfies ExportMessage);
  } catch (e) {
    log.error("export: queue send failed; the cron sweep will send it again", { export_id: exportId, error: e });
  }
}

export type ExportStatus =
  | { state: "waiting" | "running"; percentage: number | null }
  | { state: "failed"; message: string }
  | { state: "done"; file: R2ObjectBody; filename: string; contentType: string };

/**
 * What the download URL answers: the export's state, or its file. Unknown or expired: not
 * found; so is an export of an exporter the caller could not run (organizer lists that need an
 * organizer permission).
 */
export async function exportStatus(
  ctx: OrganizerContext,
  principal: Principal,
  event: EventRow | null,
  identifier: string,
  id: string,
): Promise<ExportStatus> {
  findAvailable(principal, event ? { event } : { event: null }, identifier);
  const job = /^[0-9a-f-]{36}$/.test(id)
    ? await findExportJob(ctx.db, ctx.organizer.id, event?.id ?? null, id)
    : undefined;
  if (!job || job.identifier !== identifier || job.expiresAt <= ctx.now) throw notFound();
  if (job.state === "waiting") return { state: "waiting", percentage: null };
  if (job.state === "running") return { state: "running", percentage: job.percentage };
  if (job.state === "failed") return { state: "failed", message: job.message ?? INTERNAL_ERROR };
  const file = job.storageKey ? await ctx.env.FILES.get(job.storageKey) : null;
  if (!file) throw notFound();
  return {
    state: "done",
    file,
    filename: job.filename ?? "export",
    contentType: job.contentType ?? "application/octet-stream",
  };
}

// ---- the job ----

/** What a job keeps between its steps. */
type Cursor = {
  facts: Record<string, unknown>;
  total: number;
  done: number;
  /** Index into the plan's sheets; past the end: only finishing remains. */
  sheet: number;
  started: boolean;
  after: unknown;
  sheetRows: number;
  xlsx: XlsxState | null;
  /** JSON documents: a row was written already (the next needs a comma). */
  jsonRows: boolean;
  upload: UploadState;
};

async function exportContext(db: DB, job: ExportJobRow, now: number): Promise<ExportContext> {
  const organizer = await exportOrganizer(db, job.organizerId);
  const eventIds = job.eventId !== null ? [job.eventId] : ((job.params.events as number[] | undefined) ?? []);
  const rows = await exportEvents(db, job.organizerId, eventIds);
  const events: ExportEvent[] = rows.map((e) => ({
    id: Number(e.id),
    slug: String(e.slug),
    name: JSON.parse(String(e.name)) as I18n,
    timezone: String(e.timezone),
    currency: String(e.currency),
    hasSubevents: Boolean(e.has_subevents),
  }));
  let nameScheme: string | null = null;
  let locale = "en";
  if (job.eventId !== null) {
    if (events.length === 0) throw badRequest("The event of this export no longer exists.");
    const settings = await eventSettingsFor(db, job.organizerId, job.eventId);
    if (typeof settings.name_scheme === "string") nameScheme = settings.name_scheme;
    if (typeof settings.locale === "string") locale = settings.locale;
  }
  return {
    db,
    organizer: { id: Number(organizer.id), slug: String(organizer.slug), name: String(organizer.name) },
    events,
    eventLevel: job.eventId !== null,
    params: job.params,
    nameScheme,
    locale,
    now,
  };
}

/**
 * Runs step `message.step` of an export. Returns null when the message is done with (acted,
 * or nothing left to do), or the seconds after which to deliver it again (the step is being
 * run by another delivery right now). Throws when the step failed and should be retried.
 */
export async function runExportStep(
  env: Env,
  db: DB,
  message: ExportMessage,
  now = Date.now(),
): Promise<number | null> {
  const job = await claimExportStep(db, message.exportId, message.step, now, LEASE_MS);
  if (!job) {
    const current = await findExportJobById(db, message.exportId);
    if (
      current &&
      current.step === message.step &&
      (current.state === "waiting" || current.state === "running") &&
      current.leaseUntil !== null
    ) {
      return Math.max(1, Math.ceil((current.leaseUntil - now) / 1000));
    }
    return null;
  }
  try {
    await doStep(env, db, job, now);
    return null;
  } catch (e) {
    const permanent = isFailure(e);
    if (!permanent) log.error("export step failed", { export_id: job.id, step: job.step, error: e });
    const attempts = job.attempts + 1;
    const fail = permanent ? e.message : attempts >= MAX_ATTEMPTS ? INTERNAL_ERROR : null;
    await recordExportAttemptFailed(db, job.id, job.step, Date.now(), fail);
    if (fail !== null) {
      await discardUpload(env.FILES, `exports/${job.id}/`, (job.cursor as Cursor | null)?.upload ?? null);
      return null;
    }
    throw e;
  }
}

/** One step of a job, as it runs: the exporter, its plan, the file, and the bytes the step appends. */
type Step = {
  job: ExportJobRow;
  x: ExportContext;
  def: ExporterDef;
  plan: { format: FileFormat; sheets: string[] };
  sheets: Sheet[];
  kind: "csv" | "xlsx" | "json";
  filename: string;
  out: Uint8Array[];
};

const encoder = new TextEncoder();

/** A step: start the file (the first), write up to a step's rows, append them to the upload, commit. */
async function doStep(env: Env, db: DB, job: ExportJobRow, now: number): Promise<void> {
  const def = EXPORTERS.find((d) => d.identifier === job.identifier);
  if (!def) throw badRequest("This exporter no longer exists.");
  const x = await exportContext(db, job, now);
  const plan = def.plan(job.params);
  const sheets = plan.sheets.map((key) => def.sheets.find((s) => s.key === key)!);
  const kind = plan.format.kind;
  const step: Step = { job, x, def, plan, sheets, kind, filename: `${def.filename(x)}.${kind}`, out: [] };
  const c = (job.cursor as Cursor | null) ?? (await startFile(step, now));
  await writeSheetRows(step, c, readConfig(env).exports.stepRows);
  await storeStep(env, db, step, c);
}

/** The first step: count the rows (refusing what a sheet cannot hold), start the upload and the document. */
async function startFile(step: Step, now: number): Promise<Cursor> {
  const { def, x, kind } = step;
  const facts = await def.facts(x);
  const counts = await Promise.all(step.sheets.map((s) => s.count(x, facts)));
  if (kind === "xlsx" && counts.some((n) => n + 1 > XLSX_MAX_ROWS)) {
    throw badRequest(`This export has more rows than an Excel sheet can hold (${XLSX_MAX_ROWS}); choose a CSV format.`);
  }
  if (def.json) step.out.push(encoder.encode(await def.json.head(x, facts)));
  return {
    facts,
    total: counts.reduce((a, b) => a + b, 0),
    done: 0,
    sheet: 0,
    started: false,
    after: null,
    sheetRows: 0,
    xlsx: kind === "xlsx" ? newXlsx(now) : null,
    jsonRows: false,
    upload: newUpload(`exports/${step.job.id}/${step.filename}`),
  };
}

/** Up to `budget` rows, page by page, sheet after sheet; a sheet ends with its first short page. */
async function writeSheetRows(step: Step, c: Cursor, budget: number): Promise<void> {
  const { x, kind, out, sheets } = step;
  while (budget > 0 && c.sheet < sheets.length) {
    const sheet = sheets[c.sheet]!;
    if (!c.started) {
      if (c.xlsx) out.push(xlsxBeginSheet(c.xlsx, sheet.title));
      if (kind !== "json") out.push(writeRows(c, kind, [sheet.header(x, c.facts)], step.plan.format));
      c.started = true;
    }
    const limit = Math.min(budget, PAGE_ROWS);
    const page = await sheet.page(x, c.facts, c.after, limit);
    if (page.rows.length) {
      if (kind === "json") {
        const text = page.rows.map((r) => JSON.stringify(r)).join(",");
        out.push(encoder.encode(c.jsonRows ? `,${text}` : text));
        c.jsonRows = true;
      } else {
        out.push(writeRows(c, kind, page.rows as Cell[][], step.plan.format));
      }
    }
    c.done += page.rows.length;
    c.after = page.after;
    budget -= page.rows.length;
    if (page.rows.length < limit) {
      if (c.xlsx) out.push(xlsxEndSheet(c.xlsx));
      c.sheet++;
      c.started = false;
      c.after = null;
    }
  }
}

/** Appends the step's bytes (the last step closes the document), commits the cursor, and queues the next step. */
async function storeStep(env: Env, db: DB, step: Step, c: Cursor): Promise<void> {
  const { job, kind, filename, out } = step;
  const final = c.sheet >= step.sheets.length;
  if (final) {
    if (c.xlsx) out.push(xlsxFinish(c.xlsx));
    if (step.def.json) out.push(encoder.encode(step.def.json.tail));
  }
  const contentType = CONTENT_TYPES[kind];
  const { state, obsolete } = await appendToUpload(
    env.FILES,
    c.upload,
    concatBytes(out.length ? out : [new Uint8Array(0)]),
    { step: job.step, final, partBytes: readConfig(env).exports.partBytes, contentType, filename },
  );
  c.upload = state;
  const percentage = c.total === 0 ? 0 : Math.min(99, Math.floor((c.done * 100) / c.total));
  const committed = await commitExportStep(db, job.id, job.step, {
    cursor: c as unknown as Record<string, unknown>,
    percentage,
    now: Date.now(),
    ...(final ? { done: { filename, contentType, storageKey: state.key, size: state.size } } : {}),
  });
  if (!committed) return;
  if (obsolete.length) await env.FILES.delete(obsolete);
  if (!final) await sendStep(env, job.id, job.step + 1);
}

function writeRows(
  c: Cursor,
  kind: "csv" | "xlsx" | "json",
  rows: Cell[][],
  format: { kind: string; dialect?: "default" | "excel" | "semicolon" },
): Uint8Array {
  if (kind === "xlsx") return xlsxRows(c.xlsx!, rows);
  return csvRows(rows, format.dialect ?? "default");
}

// ---- housekeeping ----

/**
 * Cron: removes expired exports with their files, and sends the message again for exports
 * that stopped moving (a lost queue message).
 */
export async function sweepExports(env: Env, db: DB, now: number): Promise<void> {
  for (;;) {
    const expired = await expiredExportJobs(db, now);
    for (const job of expired)
      await discardUpload(env.FILES, `exports/${job.id}/`, (job.cursor as Cursor | null)?.upload ?? null);
    await deleteExportJobs(
      db,
      expired.map((j) => j.id),
    );
    if (expired.length < 50) break;
  }
  const stale = await staleExportJobs(db, now - STALE_MS, now);
  for (const job of stale) await sendStep(env, job.id, job.step);
}
