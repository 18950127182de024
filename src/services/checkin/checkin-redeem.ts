/**
 * Redeeming a scan (pretix docs checkin.rst `checkinrpc/redeem/`, checkinlists.rst `.../redeem/`),
 * searching tickets across lists, and storing failed scans of offline scanners. Each list's scan goes
 * to its event's Durable Object, which decides and records it (objects/event/admission.ts); a list's
 * event never changes, so it is kept per isolate once read. Only `ok` is returned: a refused scan
 * fails with `refused`, a code that is no ticket with `not_found`, each carrying the scan's answer.
 */
import { z } from "zod";
import {
  checkinListQuery,
  type CheckinListRecord,
  itemOfEvent,
  listEvents,
  subeventOfEvent,
  variationOfEvent,
} from "../../db/checkin/lists";
import {
  checkinExists,
  failedCheckinWithNonce,
  insertCheckin,
  positionIdBySecret,
  positionOfEvent,
} from "../../db/checkin/passages";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import { doorFileQuestions } from "../../db/questions";
import type { CheckinReason, CheckinType } from "../../db/schema/index";
import { withEventObject } from "../../objects/client";
import type { MiniList, RedeemOutcome } from "../../objects/event/types";
import type { ScanRequest } from "../../rules/checkin";
import type { StoreUpload } from "../catalog/catalog-fields";
import type { EventContext, OrganizerContext } from "../context";
import {
  Failure,
  forbidden,
  invalidPk,
  isFailure,
  MESSAGES,
  notFound,
  Problems,
  validationError,
} from "../../lib/failure";
import { confirmedWrite, survivingD1Faults } from "../faults";
import { dateTime } from "../../rules/fields";
import { canAccessEvent, hasPermission, type Permission, type Principal } from "../../rules/permissions";
import { mediaUrl } from "../../rules/urls";
import { log } from "../../lib/log";

const answersInput = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));

/** Body of `checkinrpc/redeem` (pretix checkin.rst). */
export const redeemInput = z.object({
  secret: z.string().min(1).max(2000),
  source_type: z.string().max(190).optional(),
  /** At least one (pretix answers an empty list with its bare message, `resolveLists`). */
  lists: z.array(z.number().int().min(1)).max(50),
  type: z.enum(["entry", "exit"]).optional(),
  datetime: dateTime().nullable().optional(),
  force: z.boolean().optional(),
  ignore_unpaid: z.boolean().optional(),
  nonce: z.string().max(190).nullable().optional(),
  questions_supported: z.boolean().optional(),
  answers: answersInput.optional(),
  use_order_locale: z.boolean().optional(),
});
export type RedeemInput = z.output<typeof redeemInput>;

/** Body of the per-list redeem (pretix checkinlists.rst). */
export const listRedeemInput = z.object({
  type: z.enum(["entry", "exit"]).nullable().optional(),
  datetime: dateTime().nullable().optional(),
  force: z.boolean().optional(),
  ignore_unpaid: z.boolean().optional(),
  nonce: z.string().max(190).nullable().optional(),
  questions_supported: z.boolean().optional(),
  canceled_supported: z.boolean().optional(),
  answers: answersInput.nullable().optional(),
  source_type: z.string().max(190).optional(),
});
export type ListRedeemInput = z.output<typeof listRedeemInput>;

/** Who scans: the device (for its check-ins and nonces), the events the credential reaches and its permissions. */
export type Scanner = Pick<Principal, "deviceId" | "organizerId" | "allEvents" | "eventIds" | "permissions">;

/** A decided scan. `invalid`: the code is no ticket of the lists' events (HTTP 404). */
export type ScanResult = {
  status: "ok" | "error" | "incomplete" | "invalid";
  reason: CheckinReason | null;
  explanation: string | null;
  questions: number[];
  eventId: number;
  list: MiniList & { event: string };
  position: CheckinPositionRow | null;
};

/**
 * How the caller shows a decided scan: pretix's answer, with the ticket as the request asks for
 * it (`expand`, download URLs), which the service cannot know. The service decides what the
 * answer means (returned for `ok`, the body of its failure otherwise).
 */
export type ScanAnswer<A> = (scan: ScanResult) => Promise<A>;

/** The answer of an `ok` scan; any other outcome fails, carrying its answer. */
async function answered<A>(scan: ScanResult, answer: ScanAnswer<A>): Promise<A> {
  const body = await answer(scan);
  if (scan.status === "ok") return body;
  if (scan.status === "invalid") throw new Failure("not_found", MESSAGES.notFound, { body });
  const message =
    scan.status === "incomplete"
      ? "The ticket's questions must be answered first."
      : (scan.explanation ?? `The scan is refused (${scan.reason ?? "error"}).`);
  throw new Failure("refused", message, { body });
}

// ---- which event a list belongs to ----

type ListHome = {
  eventId: number;
  organizerId: number;
  eventSlug: string;
  geoLat: number | null;
  geoLon: number | null;
};
/** List id → its event: facts that never change for a list (a deleted list is caught by its event's object). */
const listHomes = new Map<number, ListHome>();
const MAX_HOMES = 10_000;

async function homesOf(ctx: OrganizerContext, ids: readonly number[]): Promise<Map<number, ListHome>> {
  const missing = ids.filter((id) => !listHomes.has(id));
  if (missing.length) {
    if (listHomes.size > MAX_HOMES) listHomes.clear();
    for (const r of await listEvents(ctx.db, missing))
      listHomes.set(r.listId, {
        eventId: r.eventId,
        organizerId: r.organizerId,
        eventSlug: r.eventSlug,
        geoLat: r.geoLat,
        geoLon: r.geoLon,
      });
  }
  const out = new Map<number, ListHome>();
  for (const id of ids) {
    const h = listHomes.get(id);
    if (h) out.set(id, h);
  }
  return out;
}

/** A request about the lists as a whole, refused with pretix's bare list of messages (`["..."]`). */
function listsRefused(message: string): Failure {
  return new Failure("invalid", message, { body: [message] });
}

type ResolvedList = { listId: number; home: ListHome };

/**
 * The lists a credential may use with `permission` (pretix: lists of the organizer's events the
 * credential reaches with that permission); the rest are `refused`.
 */
async function usableLists(
  ctx: OrganizerContext,
  scanner: Scanner,
  ids: readonly number[],
  permission: Permission,
): Promise<{ usable: ResolvedList[]; refused: number[] }> {
  const homes = await homesOf(ctx, ids);
  const usable: ResolvedList[] = [];
  const refused: number[] = [];
  for (const id of ids) {
    const h = homes.get(id);
    if (
      !h ||
      h.organizerId !== ctx.organizer.id ||
      h.organizerId !== scanner.organizerId ||
      !canAccessEvent(scanner as Principal, h.eventId) ||
      !hasPermission(scanner as Principal, permission)
    )
      refused.push(id);
    else usable.push({ listId: id, home: h });
  }
  return { usable, refused };
}

/** pretix: one list per event. */
function oneListPerEvent(lists: readonly ResolvedList[]): void {
  if (new Set(lists.map((l) => l.home.eventId)).size !== lists.length)
    throw listsRefused("Selecting two check-in lists from the same event is unsupported.");
}

/**
 * The lists of a scan (`checkinrpc/redeem`), checked as pretix checks them: at least one; each of
 * this organizer, of an event the credential reaches with `checkin:scan` (else `{"lists":
 * ["Invalid pk ..."]}`); one list per event.
 */
export async function resolveLists(
  ctx: OrganizerContext,
  scanner: Scanner,
  ids: readonly number[],
): Promise<ResolvedList[]> {
  if (ids.length === 0) throw listsRefused("No check-in list passed.");
  const { usable, refused } = await usableLists(ctx, scanner, ids, "checkin:scan");
  if (refused.length) throw validationError({ lists: refused.map(invalidPk) });
  oneListPerEvent(usable);
  return usable;
}

/**
 * The lists of a search across lists (`checkinrpc/search`): lists the credential cannot read
 * (`checkin:read`) are refused as pretix refuses a search, 403 naming them; one list per event.
 */
export async function searchableLists(
  ctx: OrganizerContext,
  scanner: Scanner,
  ids: readonly number[],
): Promise<ResolvedList[]> {
  if (ids.length === 0) throw listsRefused("No check-in list passed.");
  const { usable, refused } = await usableLists(ctx, scanner, ids, "checkin:read");
  if (refused.length)
    throw forbidden(`You requested lists that do not exist or that you do not have access to: ${refused.join(", ")}`);
  oneListPerEvent(usable);
  return usable;
}

/** Forgets a list the object no longer knows (deleted). */
function forgetList(id: number): void {
  listHomes.delete(id);
}

// ---- redeem ----

/** An upload's id (`POST /api/v1/upload`) as the answer to a file question. */
const FILE_ANSWER = /^file:[0-9a-f-]{36}$/;
/** The files pretix takes as an answer at the door. */
const DOOR_FILE_TYPES = ["image/png", "image/jpeg", "image/gif", "application/pdf"];

/**
 * File questions asked at the door and answered with an upload: each upload is checked (the
 * caller's own, of a type pretix takes) and stored; the answer is the stored file's URL
 * (question id → answer). An upload that does not pass is left out, as pretix leaves out an
 * answer that does not fit: the question stays unanswered.
 */
async function doorFiles(
  ctx: OrganizerContext,
  eventIds: readonly number[],
  answers: Record<string, string>,
  store: StoreUpload | undefined,
): Promise<Record<string, string>> {
  const refs = Object.keys(answers).filter((k) => /^\d{1,15}$/.test(k) && FILE_ANSWER.test(answers[k]!));
  if (!store || refs.length === 0) return {};
  const out: Record<string, string> = {};
  for (const q of await doorFileQuestions(ctx.db, eventIds, refs.map(Number))) {
    try {
      const key = await store(answers[String(q.id)]!, {
        field: "answers",
        allowedTypes: DOOR_FILE_TYPES,
        scope: `events/${q.eventId}/answers`,
      });
      out[String(q.id)] = mediaUrl(ctx.baseUrl, key)!;
    } catch (e) {
      if (!isFailure(e, "invalid")) throw e;
    }
  }
  return out;
}

type Decide = {
  listId: number;
  home: ListHome;
  raw: string;
  id: number | null;
  scan: ScanRequest;
  sourceType: string;
  useOrderLocale?: boolean;
};

async function decideOn(ctx: OrganizerContext, lists: readonly Decide[]): Promise<ScanResult> {
  const outcomes = await Promise.all(
    lists.map((l) =>
      withEventObject<RedeemOutcome>(
        ctx.env,
        { id: l.home.eventId, geoLat: l.home.geoLat, geoLon: l.home.geoLon },
        (s, call) =>
          s.redeem(call, {
            listId: l.listId,
            raw: l.raw,
            id: l.id,
            scan: l.scan,
            sourceType: l.sourceType,
            useOrderLocale: l.useOrderLocale ?? false,
          }),
      ),
    ),
  );
  const gone = lists.filter((_, i) => outcomes[i]!.kind === "no_list");
  if (gone.length) {
    for (const l of gone) forgetList(l.listId);
    throw validationError({ lists: gone.map((l) => invalidPk(l.listId)) });
  }
  const i = outcomes.findIndex((o) => o.kind === "decided");
  if (i >= 0) {
    const o = outcomes[i] as Extract<RedeemOutcome, { kind: "decided" }>;
    const l = lists[i]!;
    return {
      status: o.status,
      reason: o.reason,
      explanation: o.explanation,
      questions: o.questions,
      eventId: l.home.eventId,
      list: { ...o.list, event: l.home.eventSlug },
      position: o.position,
    };
  }
  // no event knows the code: a failed scan on the first list (pretix logs it there)
  const first = lists[0]!;
  const [listRow] = await Promise.all([
    checkinListQuery(ctx.db, first.home.eventId, first.listId, false).get() as Promise<CheckinListRecord | undefined>,
    insertCheckin(ctx.db, {
      uid: crypto.randomUUID(),
      eventId: first.home.eventId,
      listId: first.listId,
      positionId: null,
      type: first.scan.type,
      datetime: first.scan.datetime,
      created: ctx.now,
      successful: false,
      errorReason: "invalid",
      forced: first.scan.force,
      forceSent: first.scan.force,
      deviceId: first.scan.deviceId,
      nonce: first.scan.nonce,
      rawBarcode: first.raw,
      rawSourceType: first.sourceType,
    }).catch((e) =>
      log.error("a failed scan could not be stored", { event_id: first.home.eventId, list_id: first.listId, error: e }),
    ),
  ]);
  const list = listRow?.list;
  return {
    status: "invalid",
    reason: "invalid",
    explanation: null,
    questions: [],
    eventId: first.home.eventId,
    list: {
      id: first.listId,
      name: list?.name ?? "",
      event: first.home.eventSlug,
      subevent: list?.subeventId ?? null,
      include_pending: list?.includePending ?? false,
    },
    position: null,
  };
}

/**
 * `checkinrpc/redeem`: a scan on one or more lists (of distinct events); the answer of an `ok`
 * scan, else a `refused` or `not_found` failure with the scan's answer.
 */
export async function redeemScan<A>(
  ctx: OrganizerContext,
  scanner: Scanner,
  input: RedeemInput,
  answer: ScanAnswer<A>,
  store?: StoreUpload,
): Promise<A> {
  return answered(await decideScan(ctx, scanner, input, store), answer);
}

const decideScan = survivingD1Faults(async function decideScan(
  ctx: OrganizerContext,
  scanner: Scanner,
  input: RedeemInput,
  store: StoreUpload | undefined,
): Promise<ScanResult> {
  const lists = await resolveLists(ctx, scanner, input.lists);
  const files = await doorFiles(
    ctx,
    lists.map((l) => l.home.eventId),
    input.answers ?? {},
    store,
  );
  const scan: ScanRequest = {
    type: input.type ?? "entry",
    datetime: input.datetime ?? ctx.now,
    force: input.force ?? false,
    ignoreUnpaid: input.ignore_unpaid ?? false,
    nonce: input.nonce ?? null,
    questionsSupported: input.questions_supported ?? true,
    canceledSupported: true,
    answers: input.answers ?? {},
    files,
    deviceId: scanner.deviceId,
  };
  return decideOn(
    ctx,
    lists.map((l) => ({
      ...l,
      raw: input.secret,
      id: null,
      scan,
      sourceType: input.source_type ?? "barcode",
      useOrderLocale: input.use_order_locale ?? false,
    })),
  );
});

/**
 * The per-list redeem: the ticket is named in the path by its secret, or (without
 * `untrusted_input=true`) by a numeric id (pretix checkinlists.rst). Old scanners send a space
 * of a secret as `+`; pretix tries that too. Answers and fails as `redeemScan`.
 */
export async function redeemOnList<A>(
  ctx: EventContext,
  scanner: Scanner,
  listId: number,
  lookup: string,
  untrusted: boolean,
  input: ListRedeemInput,
  answer: ScanAnswer<A>,
  store?: StoreUpload,
): Promise<A> {
  return answered(await decideOnList(ctx, scanner, listId, lookup, untrusted, input, store), answer);
}

const decideOnList = survivingD1Faults(async function decideOnList(
  ctx: EventContext,
  scanner: Scanner,
  listId: number,
  lookup: string,
  untrusted: boolean,
  input: ListRedeemInput,
  store: StoreUpload | undefined,
): Promise<ScanResult> {
  const home: ListHome = {
    eventId: ctx.event.id,
    organizerId: ctx.organizer.id,
    eventSlug: ctx.event.slug,
    geoLat: ctx.event.geoLat,
    geoLon: ctx.event.geoLon,
  };
  const scan: ScanRequest = {
    type: input.type ?? "entry",
    datetime: input.datetime ?? ctx.now,
    force: input.force ?? false,
    ignoreUnpaid: input.ignore_unpaid ?? false,
    nonce: input.nonce ?? null,
    questionsSupported: input.questions_supported ?? true,
    canceledSupported: input.canceled_supported ?? false,
    answers: input.answers ?? {},
    files: await doorFiles(ctx, [ctx.event.id], input.answers ?? {}, store),
    deviceId: scanner.deviceId,
  };
  const id = !untrusted && /^\d{1,15}$/.test(lookup) ? Number(lookup) : null;
  const one = (raw: string) =>
    decideOn(ctx, [{ listId, home, raw, id, scan, sourceType: input.source_type ?? "barcode" }]);
  let result: ScanResult;
  try {
    result = await one(lookup);
  } catch (e) {
    // the path's list is not a list of this event
    if (isFailure(e, "invalid")) throw notFound();
    throw e;
  }
  if (result.status === "invalid" && lookup.includes("+")) result = await one(lookup.replaceAll("+", " "));
  return result;
});

// ---- failed scans of offline scanners ----

/** Body of `.../checkinlists/{list}/failed_checkins/` (pretix docs checkinlists.rst). */
export const failedCheckinInput = z.object({
  error_reason: z.enum([
    "canceled",
    "invalid",
    "unpaid",
    "product",
    "rules",
    "revoked",
    "incomplete",
    "already_redeemed",
    "blocked",
    "invalid_time",
    "error",
  ]),
  error_explanation: z.string().max(1000).nullable().optional(),
  raw_barcode: z.string().min(1).max(2000),
  datetime: dateTime().nullable().optional(),
  type: z.enum(["entry", "exit"]).optional(),
  position: z.number().int().nullable().optional(),
  raw_item: z.number().int().nullable().optional(),
  raw_variation: z.number().int().nullable().optional(),
  raw_subevent: z.number().int().nullable().optional(),
  nonce: z.string().max(190).nullable().optional(),
});
export type FailedCheckinInput = z.output<typeof failedCheckinInput>;

/**
 * Stores a failed scan (statistics; the check-in history shows it). The ticket is the given
 * position, else the one with the scanned code; a repeated upload with the same nonce is
 * stored once.
 */
export const storeFailedCheckin = survivingD1Faults(async function storeFailedCheckin(
  ctx: EventContext,
  scanner: Scanner,
  listId: number,
  input: FailedCheckinInput,
) {
  const { db, event } = ctx;
  const list = await checkinListQuery(db, event.id, listId, false).get();
  if (!list) throw notFound();
  const errors = new Problems();
  const [position, item, variation, subevent] = await Promise.all([
    input.position != null ? positionOfEvent(db, event.id, input.position) : Promise.resolve(true),
    input.raw_item != null ? itemOfEvent(db, event.id, input.raw_item) : Promise.resolve(true),
    input.raw_variation != null ? variationOfEvent(db, event.id, input.raw_variation) : Promise.resolve(true),
    input.raw_subevent != null ? subeventOfEvent(db, event.id, input.raw_subevent) : Promise.resolve(true),
  ]);
  if (!position) throw notFound("The requested order position does not exist.");
  if (!item) errors.add("raw_item", invalidPk(input.raw_item));
  if (!variation) errors.add("raw_variation", invalidPk(input.raw_variation));
  if (!subevent) errors.add("raw_subevent", invalidPk(input.raw_subevent));
  errors.throwIfAny();
  const positionId = input.position ?? (await positionIdBySecret(db, event.id, input.raw_barcode)) ?? null;
  const row = {
    uid: crypto.randomUUID(),
    eventId: event.id,
    listId,
    positionId,
    type: (input.type ?? "entry") as CheckinType,
    datetime: input.datetime ?? ctx.now,
    created: ctx.now,
    successful: false,
    errorReason: input.error_reason,
    errorExplanation: input.error_explanation ?? null,
    forced: true,
    forceSent: true,
    deviceId: scanner.deviceId,
    nonce: input.nonce ?? null,
    rawBarcode: input.raw_barcode,
    rawItem: input.raw_item ?? null,
    rawVariation: input.raw_variation ?? null,
    rawSubevent: input.raw_subevent ?? null,
  };
  // a repeated upload (same nonce) is stored once
  if (row.nonce === null || !(await failedCheckinWithNonce(db, listId, row.nonce, positionId, row.rawBarcode))) {
    // after a lost answer: the row's uid is this request's alone
    await confirmedWrite(
      () => insertCheckin(db, row).then(() => true),
      async () => ((await checkinExists(db, row.uid).get()) ? true : null),
    );
  }
  return row;
});
