/**
 * Orders answered at the event's object (docs/scaling.md "Orders answered at the event's
 * object"): an accepted order takes its D1 ids from the leased blocks, its tickets go into the
 * index, and the answer leaves. The order entries' one write (`writeOrders`, for the writer and
 * for a request that waits for its order alike): several to a batch, each once, with what scans
 * of their tickets are answered from; their mails and webhook calls are handed on then.
 */
import { autoCheckinStatement } from "../../db/checkin/passages";
import { checkinIdsOfOrder, scanRowsOfOrder } from "../../db/checkin/scan-rows";
import type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
import type { DB } from "../../db/client";
import { orderByCode, type PositionJson, type RawOrder } from "../../db/orders";
import { runBatch, type Statement } from "../../db/batch";
import type { LeasedTable } from "../../db/id-leases";
import { type OrderWrite, orderWriteStatements, ordersPresent } from "../../db/order-writes";
import { dispatchMail, dispatchWebhooks } from "../../lib/queues";
import { idsLeft, leaseRefill, ORDER_TABLES, takeIds } from "./id-leases";
import type { Held, OutboxKind } from "./outbox";
import { rememberCheckinIds, rememberRows } from "./scan-answers";
import type { EventState } from "./state";
import type { AnsweredOrder, AutoCheckin, ScanRowTemplate } from "./types";

/**
 * Inside the decision's transaction: the order with its D1 ids, its tickets indexed; null when
 * the object cannot answer it alone (a block lacks ids, the code is one the index knows, or D1
 * is too far behind, outbox.ts `AHEAD_LIMIT`: D1 then decides, before the answer).
 */
export function answerOrder(
  s: EventState,
  w: OrderWrite,
  auto: readonly AutoCheckin[],
  scanRows: readonly ScanRowTemplate[] | undefined,
): AnsweredOrder | null {
  if (s.ci.order(w.order.code) || s.outbox.behind()) return null;
  const need: [LeasedTable, number][] = [
    ["orders", 1],
    ["order_positions", w.positions.length],
    ["order_fees", w.fees.length],
    ["order_payments", w.payments.length],
    ["checkins", auto.length],
  ];
  if (need.some(([t, n]) => idsLeft(s, t) < n)) return null;
  const [orderId, positionIds, feeIds, paymentIds, checkinIds] = need.map(([t, n]) => takeIds(s, t, n)!);
  const write: OrderWrite = {
    ...w,
    order: { ...w.order, id: orderId![0]! },
    positions: w.positions.map((p, i) => ({ ...p, id: positionIds![i]! })),
    fees: w.fees.map((f, i) => ({ ...f, id: feeIds![i]! })),
    payments: w.payments.map((p, i) => ({ ...p, id: paymentIds![i]! })),
  };
  const autoCheckins = auto.map((a, i) => ({ ...a, id: checkinIds![i]! }));
  const idOf = new Map(write.positions.map((p) => [p.positionid, p.id!]));
  const baseOf = (p: OrderWrite["positions"][number]) =>
    p.addonToPositionid === null ? null : (idOf.get(p.addonToPositionid) ?? null);
  s.ci.indexOrder(
    {
      code: write.order.code,
      status: write.order.status,
      requireApproval: write.order.requireApproval ?? false,
      validIfPending: false,
      checkinAttention: write.order.checkinAttention ?? false,
      salesChannel: write.order.salesChannel ?? "web",
      locale: write.order.locale ?? null,
    },
    write.positions.map((p) => ({
      id: p.id!,
      secret: p.secret,
      addonTo: baseOf(p),
      itemId: p.itemId,
      variationId: p.variationId ?? null,
      subeventId: p.subeventId ?? null,
      canceled: p.canceled ?? false,
      validFrom: p.validFrom ?? null,
      validUntil: p.validUntil ?? null,
      answers: p.answers,
      blocked: false,
    })),
    true,
  );
  for (const a of autoCheckins)
    s.ci.addPassage({
      uid: a.uid,
      listId: a.listId,
      ticketId: idOf.get(a.positionid)!,
      type: "entry",
      datetime: write.order.datetime,
      nonce: null,
      deviceId: null,
      auto: true,
    });
  rememberCheckinIds(s, autoCheckins);
  // its tickets' scans are answered from these until D1 has the order (which then replaces them)
  if (scanRows?.length === write.positions.length)
    rememberRows(
      s,
      write.positions.map((p, i) => ({
        ...scanRows[i]!,
        id: p.id!,
        addonTo: baseOf(p),
        checkins: "[]",
      })),
    );
  return { write, autoCheckins };
}

/**
 * Writes orders to D1, several to a batch, each once: those it may have from an earlier try
 * are asked about first (ordersPresent), the rest are written with what scans of their tickets
 * are answered from, read back in the same batch, and the id blocks refilled. An order answered
 * at the object gets `last_modified` the time D1 gets it (so `modified_since` never misses it);
 * one that was not is read back and indexed. Then their mails (and the answered ones' webhook
 * calls) are handed on. Safe to repeat; the orders read back, by code.
 */
export async function writeOrders(
  s: EventState,
  held: readonly Held<OutboxKind<"order">>[],
  now: number,
): Promise<Map<string, RawOrder | null>> {
  const db = s.db();
  const tried = held.filter((h) => s.outbox.mayBeInD1(h.id)).map((h) => h.entry.write.order.code);
  const present = await ordersPresent(db, s.eventId, tried);
  const batch = orderBatch(
    s,
    db,
    held.map((h) => h.entry).filter((e) => !present.has(e.write.order.code)),
    now,
  );
  if (!batch.stmts.length) return new Map();
  const lease = leaseRefill(s, db, ORDER_TABLES);
  const results = await runBatch(db, [...batch.stmts, ...lease.statements]);
  const written = new Map<string, RawOrder | null>();
  s.storage.transactionSync(() => {
    for (const w of batch.written) {
      const raw = w.orderAt === null ? null : ((results[w.orderAt] as RawOrder[])[0] ?? null);
      if (raw) indexWrittenOrder(s, raw, w.entry.autoCheckins ?? [], w.entry.write.order.datetime);
      rememberRows(s, results[w.readsAt] as CheckinPositionRow[]);
      rememberCheckinIds(s, results[w.readsAt + 1] as { uid: string; id: number }[]);
      if (w.orderAt !== null) written.set(w.entry.write.order.code, raw);
    }
    lease.keep(results);
  });
  const mailIds = batch.written.flatMap((w) =>
    results.slice(w.mailsAt[0], w.mailsAt[1]).flatMap((r) => (r as { id: number }[]).map((m) => m.id)),
  );
  if (mailIds.length) await dispatchMail(s.env, mailIds);
  const answered = batch.written.filter((w) => w.entry.answered);
  if (answered.length)
    dispatchWebhooks(
      s.env,
      answered.map((w) => ({ eventId: s.eventId, code: w.entry.write.order.code })),
    );
  return written;
}

type WrittenOrder = { entry: OutboxKind<"order">; mailsAt: [number, number]; orderAt: number | null; readsAt: number };

/** The statements of orders D1 does not have, each followed by its reads; where each one's results are. */
function orderBatch(s: EventState, db: DB, entries: readonly OutboxKind<"order">[], now: number) {
  const stmts: Statement[] = [];
  const written: WrittenOrder[] = [];
  for (const e of entries) {
    const code = e.write.order.code;
    // answered: the time D1 has it is what `modified_since` sees
    const write = e.answered ? { ...e.write, order: { ...e.write.order, lastModified: now } } : e.write;
    const auto = (e.autoCheckins ?? []).map((a) =>
      autoCheckinStatement(db, s.eventId, code, a.positionid, a.uid, a.listId, write.order.datetime, a.id ?? null),
    );
    stmts.push(...orderWriteStatements(db, write, new Map(e.voucherUses), e.closedQuotaIds, now, auto));
    const mailsAt: [number, number] = [stmts.length - write.mails.length, stmts.length];
    // not answered: read back with the ids D1 gave it
    const orderAt = e.answered ? null : stmts.push(orderByCode(db, s.eventId, code)) - 1;
    const readsAt = stmts.length;
    stmts.push(scanRowsOfOrder(db, s.eventId, code), checkinIdsOfOrder(db, s.eventId, code));
    written.push({ entry: e, mailsAt, orderAt, readsAt });
  }
  return { stmts, written };
}

/** Indexes an order the object just wrote (read back from D1 with its ids), with its automatic check-ins. */
export function indexWrittenOrder(s: EventState, raw: RawOrder, auto: readonly AutoCheckin[], now: number): void {
  const positions = JSON.parse(raw.positions) as PositionJson[];
  s.ci.indexOrder(
    {
      code: raw.order.code,
      status: raw.order.status,
      requireApproval: raw.order.requireApproval,
      validIfPending: false,
      checkinAttention: raw.order.checkinAttention,
      salesChannel: raw.order.salesChannel,
      locale: raw.order.locale,
    },
    positions.map(ticketOfPosition),
    true,
  );
  for (const a of auto) {
    const p = positions.find((x) => x.positionid === a.positionid);
    if (p)
      s.ci.addPassage({
        uid: a.uid,
        listId: a.listId,
        ticketId: p.id,
        type: "entry",
        datetime: now,
        nonce: null,
        deviceId: null,
        auto: true,
      });
  }
}

/** A position of an order read back from D1, as the ticket index takes it. */
function ticketOfPosition(p: PositionJson) {
  return {
    id: p.id,
    secret: p.secret,
    addonTo: p.addon_to,
    itemId: p.item,
    variationId: p.variation,
    subeventId: p.subevent,
    canceled: p.canceled === 1,
    validFrom: p.valid_from,
    validUntil: p.valid_until,
    answers: p.answers,
    blocked: (p.blocked?.length ?? 0) > 0,
  };
}
