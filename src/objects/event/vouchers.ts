/**
 * Vouchers: whether a voucher's quota block fits and its seat is free (a creation, a change)
 * and whether a voucher may be deleted (never redeemed). A creation or a change blocks (and
 * reserves its seat) in the ledger while D1 is written; a deletion takes the voucher out of the
 * ledger first, so that no order redeems it meanwhile, and puts it back when D1 did not delete it.
 */
import { isDatabaseFault } from "../../db/constraints";
import type { vouchers } from "../../db/schema";
import {
  deleteUnredeemedVoucher,
  insertVoucherRows,
  updateVoucherRow,
  voucherGone,
  writtenVouchers,
} from "../../db/vouchers";
import type { Refusal, VoucherDef } from "../../rules/inventory";
import type { EventState } from "./state";
import type {
  CreateVouchersResult,
  DeleteVoucherResult,
  UpdateVoucherResult,
  VoucherColumns,
  VoucherRow,
} from "./types";

/**
 * Creates vouchers atomically: all block their quota, or none is created. Creations of the
 * same code run one after the other in this object, so that a write whose answer a fault
 * lost can tell its own vouchers in D1 from those of a request beside it.
 */
export async function createVouchers(s: EventState, stamp: number, rows: VoucherRow[]): Promise<CreateVouchersResult> {
  const codes = [...new Set(rows.map((r) => r.code.toLowerCase()))];
  const running = () => codes.flatMap((c) => s.codesInFlight.get(c) ?? []);
  for (let waiting = running(); waiting.length; waiting = running()) await Promise.allSettled(waiting);
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  for (const c of codes) s.codesInFlight.set(c, mine);
  try {
    return await insertVouchers(s, stamp, rows);
  } finally {
    for (const c of codes) if (s.codesInFlight.get(c) === mine) s.codesInFlight.delete(c);
    done();
  }
}

async function insertVouchers(s: EventState, stamp: number, rows: VoucherRow[]): Promise<CreateVouchersResult> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  const temps: number[] = [];
  let failure: { index: number; refusals: Refusal[] } | null = null;
  rows.forEach((r, i) => {
    if (failure) return;
    // not yet a voucher: no id of D1's (they start at 1)
    const def = voucherDef({ ...r, id: 0 });
    const refusals = [...s.ledger.checkVoucherBlock(def, now), ...s.ledger.checkVoucherSeat(def, now)];
    if (refusals.length) {
      failure = { index: i, refusals };
      return;
    }
    temps.push(s.ledger.beginVoucherWrite(def));
  });
  const dropTemps = () => {
    for (const t of temps) s.ledger.endVoucherWrite(t);
  };
  if (failure) {
    dropTemps();
    return { ok: false, ...(failure as { index: number; refusals: Refusal[] }) };
  }
  const db = s.db();
  let ids: number[];
  try {
    ids = await insertVoucherRows(db, s.eventId, rows, now);
  } catch (e) {
    dropTemps();
    // A refusal (the code taken by a creation running beside this one) is an answer: nothing
    // was written. Only a fault may have lost the answer of a write that committed; then D1
    // has the vouchers as written (codes, creation time), or not.
    if (!isDatabaseFault(e)) throw e;
    const written = await writtenVouchers(db, s.eventId, rows).catch(() => null);
    if (!written) throw e;
    ids = written;
  }
  dropTemps();
  rows.forEach((r, i) => s.ledger.upsertVoucher(voucherDef({ ...r, id: ids[i]! })));
  return { ok: true, ids };
}

/**
 * Changes a voucher to `values` (all its columns but the ones D1 or the object keep); a
 * bigger block must fit into the quota, and a seat it did not reserve before must be free. The
 * conditional UPDATE tells whether the voucher still exists.
 */
export async function updateVoucher(
  s: EventState,
  stamp: number,
  id: number,
  values: VoucherColumns,
): Promise<UpdateVoucherResult> {
  await s.ensureCatalog(stamp);
  const now = Date.now();
  const unknown: UpdateVoucherResult = {
    ok: false,
    refusals: [{ code: "voucher_unknown", voucherId: id, indices: [] }],
  };
  const next = voucherDef({ ...values, id });
  const old = s.ledger.voucher(id);
  const sameSeat = old !== undefined && old.seat === next.seat && (old.subeventId ?? null) === next.subeventId;
  const refusals = [
    ...s.ledger.checkVoucherBlock(next, now),
    ...(sameSeat ? [] : s.ledger.checkVoucherSeat(next, now)),
  ];
  if (refusals.length) return { ok: false, refusals };
  // While D1 is written, block for both the old and the new definition (never less).
  const temp = s.ledger.beginVoucherWrite(next);
  const db = s.db();
  let updated: boolean;
  try {
    updated = await updateVoucherRow(db, s.eventId, id, values, now);
  } catch (e) {
    s.ledger.endVoucherWrite(temp);
    throw e;
  }
  s.ledger.endVoucherWrite(temp);
  if (!updated) {
    s.ledger.removeVoucher(id);
    return unknown;
  }
  s.ledger.upsertVoucher(next);
  return { ok: true };
}

/**
 * Deletes a voucher that was never redeemed. The decision is recorded before D1 is written
 * (the voucher leaves the ledger, so an order decided meanwhile cannot redeem it) and undone
 * when D1 did not delete it.
 */
export async function deleteVoucher(s: EventState, stamp: number, id: number): Promise<DeleteVoucherResult> {
  await s.ensureCatalog(stamp);
  if (s.ledger.redeemed(id) > 0) return { ok: false, reason: "redeemed" };
  const def = s.ledger.voucher(id);
  s.ledger.removeVoucher(id);
  const restore = () => def && !s.ledger.voucher(id) && s.ledger.upsertVoucher(def);
  const db = s.db();
  let kept: boolean;
  try {
    kept = await deleteUnredeemedVoucher(db, s.eventId, id, Date.now());
  } catch (e) {
    // the answer may be lost: gone from D1 means deleted
    const gone = await voucherGone(db, s.eventId, id).catch(() => false);
    if (gone) return { ok: true };
    restore();
    throw e;
  }
  if (kept) {
    // D1 counts a redemption (the delete's condition held it back)
    restore();
    return { ok: false, reason: "redeemed" };
  }
  return { ok: true };
}

/** A voucher as the ledger counts it. */
function voucherDef(r: Partial<typeof vouchers.$inferSelect> & { id: number }): VoucherDef {
  return {
    id: r.id,
    maxUsages: r.maxUsages ?? 1,
    validUntil: r.validUntil ?? null,
    blockQuota: r.blockQuota ?? false,
    allowIgnoreQuota: r.allowIgnoreQuota ?? false,
    itemId: r.itemId ?? null,
    variationId: r.variationId ?? null,
    quotaId: r.quotaId ?? null,
    subeventId: r.subeventId ?? null,
    seat: r.seat ?? null,
  };
}
