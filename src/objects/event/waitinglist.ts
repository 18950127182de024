/**
 * The waiting list's vouchers (pretix docs waitinglist.rst): which waiting entries get a voucher
 * now, each blocking one unit of quota, decided on the ledger without yielding so that a sale
 * beside it never finds the unit twice. Assignments of one event run one after the other: each
 * reads from D1 which entries still wait, so no entry gets two vouchers.
 */
import { runBatch, type Statement } from "../../db/batch";
import { touchInventory } from "../../db/inventory";
import type { MailInsert } from "../../db/mail";
import { assignmentStatements, stillWaiting, type WaitingVoucher } from "../../db/waitinglist";
import { type Demand, type Key, keyOf, type Ledger, type VoucherDef } from "../../rules/inventory";
import type { EventState } from "./state";

/** An entry that may get a voucher: the voucher it would get and the mail that tells it. */
export type WaitingCandidate = { entryId: number; voucher: WaitingVoucher; mail: MailInsert };

/**
 * Candidates in the order they are served. `manual` (send_voucher): one entry, and the answer
 * says why it got nothing. At most `limit` vouchers are given in one call.
 */
export type WaitingAssignment = { candidates: WaitingCandidate[]; manual: boolean; limit: number };

export type WaitingAssigned = { entryId: number; voucherId: number; mailId: number | null };

export type WaitingOutcome = { assigned: WaitingAssigned[]; refused: "has_voucher" | "unavailable" | null };

/** A product on a date: its state and units left (null: unlimited); null when no quota covers it. */
export type ProductRoom = { state: number; left: number | null } | null;

/** Gives vouchers to the candidates that fit, in order, after any assignment of the event still running. */
export function assignWaitingList(s: EventState, stamp: number, req: WaitingAssignment): Promise<WaitingOutcome> {
  const mine = s.waitingRun.catch(() => undefined).then(() => assign(s, stamp, req));
  s.waitingRun = mine;
  return mine;
}

/** What is left of products on dates, as the ledger counts it now (a new entry's check). */
export async function productRooms(
  s: EventState,
  stamp: number,
  demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
): Promise<ProductRoom[]> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  return demands.map((d) => s.ledger.productAvailability(d, now));
}

function voucherDef(v: WaitingVoucher): VoucherDef {
  return {
    id: 0,
    maxUsages: 1,
    validUntil: v.validUntil,
    blockQuota: true,
    allowIgnoreQuota: false,
    itemId: v.itemId,
    variationId: v.variationId,
    quotaId: null,
    subeventId: v.subeventId,
    seat: null,
  };
}

/** pretix's `send_voucher` check: at least one unit left of every quota of the product (none: not on sale). */
function fits(ledger: Ledger, def: VoucherDef, now: number): boolean {
  const room = ledger.productAvailability(
    { itemId: def.itemId!, variationId: def.variationId, subeventId: def.subeventId },
    now,
  );
  if (room === null || (room.left !== null && room.left < 1)) return false;
  return ledger.checkVoucherBlock(def, now).length === 0;
}

type Chosen = { c: WaitingCandidate; def: VoucherDef; temp: number };

/**
 * The decision: in order, a candidate whose product still has a unit gets it (blocked at once
 * under a temporary voucher); once a product has none, the entries after it wait (pretix's
 * `gone`), so nobody overtakes an entry of higher priority for the same product.
 */
function choose(s: EventState, req: WaitingAssignment, waiting: Set<number>, now: number) {
  const chosen: Chosen[] = [];
  const gone = new Set<Key>();
  let refused: WaitingOutcome["refused"] = null;
  for (const c of req.candidates) {
    if (chosen.length >= req.limit) break;
    if (!waiting.has(c.entryId)) {
      refused = "has_voucher";
      continue;
    }
    const key = keyOf(c.voucher.itemId, c.voucher.variationId, c.voucher.subeventId);
    if (gone.has(key)) continue;
    const def = voucherDef(c.voucher);
    if (!fits(s.ledger, def, now)) {
      gone.add(key);
      refused = "unavailable";
      continue;
    }
    chosen.push({ c, def, temp: s.ledger.beginVoucherWrite(def) });
  }
  return { chosen, refused: req.manual ? refused : null };
}

async function assign(s: EventState, stamp: number, req: WaitingAssignment): Promise<WaitingOutcome> {
  await s.ensureCatalog(stamp);
  const db = s.db();
  const waiting = await stillWaiting(
    db,
    s.eventId,
    req.candidates.map((c) => c.entryId),
  );
  const now = Date.now();
  const { chosen, refused } = choose(s, req, waiting, now);
  if (chosen.length === 0) return { assigned: [], refused };
  const statements: Statement[] = chosen.flatMap((x) =>
    assignmentStatements(db, s.eventId, x.c.entryId, x.c.voucher, x.c.mail, now),
  );
  statements.push(touchInventory(db, s.eventId, now));
  let results: unknown[];
  try {
    results = await runBatch(db, statements);
  } catch (e) {
    await afterFault(s, chosen);
    throw e;
  }
  const assigned: WaitingAssigned[] = [];
  chosen.forEach((x, i) => {
    const entry = (results[i * 3 + 1] as { id: number; voucher_id: number }[])[0];
    const mail = (results[i * 3 + 2] as { id: number }[])[0];
    s.ledger.endVoucherWrite(x.temp);
    if (!entry) return; // deleted meanwhile: nothing was written for it
    s.ledger.upsertVoucher({ ...x.def, id: entry.voucher_id });
    assigned.push({ entryId: entry.id, voucherId: entry.voucher_id, mailId: mail?.id ?? null });
  });
  return { assigned, refused };
}

/**
 * The batch's answer is lost: D1 may have the vouchers or not. The catalog is read again (with
 * the vouchers that landed) before the temporary blocks go; when that read fails too, they stay
 * (blocking too much, never too little) until the object starts again.
 */
async function afterFault(s: EventState, chosen: Chosen[]): Promise<void> {
  try {
    s.ledger.setCatalog(await s.loadCatalog());
  } catch {
    return;
  }
  for (const x of chosen) s.ledger.endVoucherWrite(x.temp);
}
