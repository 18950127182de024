/**
 * The ledger's invariant under random sequences of order operations (pretix docs transactions.rst):
 * after every step, each order's transactions add up to its total while it is pending or paid and
 * to zero otherwise, no row written before changed or vanished, and the invoices of an order add
 * up to its transactions. `LEDGER_RUNS` and `LEDGER_SEED` choose how many sequences and which.
 */
import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import type { Json } from "../harness";
import { type Shop, shop } from "../helpers/sales";
import { type LedgerOp, LEDGER_OPS, type LedgerWorld } from "../helpers/ledger-ops";

const RUNS = Number(inject("ledgerRuns") || 12);
const SEED = Number(inject("ledgerSeed") || 35);
const cents = (v: string) => Math.round(Number(v) * 100);

async function all(s: Shop, resource: string): Promise<Json[]> {
  const out: Json[] = [];
  for (let page = 1; ; page++) {
    const res = await s.client.get(`${s.path}/${resource}/?page_size=100&page=${page}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    out.push(...res.body.results);
    if (!res.body.next) return out;
  }
}

/** The invariant, checked against what the API lists after D1 caught up with the event object. */
async function checkLedger(w: LedgerWorld, step: string) {
  await w.s.settle();
  const [orders, transactions, invoices] = await Promise.all([
    all(w.s, "orders"),
    all(w.s, "transactions"),
    all(w.s, "invoices"),
  ]);
  const sums = new Map<string, number>();
  for (const t of transactions) sums.set(t.order, (sums.get(t.order) ?? 0) + cents(t.price) * t.count);
  for (const o of orders) {
    const owed = o.status === "n" || o.status === "p" ? cents(o.total) : 0;
    expect(sums.get(o.code) ?? 0, `${step}: ledger of ${o.code} (${o.status}, total ${o.total})`).toBe(owed);
    if (o.require_approval) continue; // pretix issues no invoice before approval
    const billed = invoices
      .filter((i) => i.order === o.code)
      .reduce((sum, i) => sum + i.lines.reduce((a: number, l: Json) => a + cents(l.gross_value), 0), 0);
    if (invoices.some((i) => i.order === o.code)) {
      invoiceChecks++;
      expect(billed, `${step}: invoices of ${o.code} (${o.status})`).toBe(sums.get(o.code) ?? 0);
    }
  }
  const now = new Map(transactions.map((t) => [t.id, t]));
  for (const [id, before] of w.seen) expect(now.get(id), `${step}: transaction ${id} changed`).toEqual(before);
  w.seen = now;
}

const succeeded = new Map<string, number>();
let invoiceChecks = 0;

async function walk(steps: [LedgerOp, number][]) {
  const w = { s: await shop(), orders: [], seen: new Map() } as unknown as LedgerWorld;
  await LEDGER_OPS.setup(w);
  const trail: string[] = [];
  for (const [op, pick] of steps) {
    const ok = await op.run(w, pick).catch((e: Error) => {
      throw new Error(`${[...trail, op.name].join(" → ")}: ${e.message}`);
    });
    trail.push(`${op.name}@${pick % Math.max(1, w.orders.length)}${ok ? "" : "(refused)"}`);
    if (ok) succeeded.set(op.name, (succeeded.get(op.name) ?? 0) + 1);
    await checkLedger(w, trail.join(" → "));
  }
}

describe("the transactions ledger under random sequences of operations", () => {
  it(`holds after every step (${RUNS} sequences)`, { timeout: 600_000 }, async () => {
    const step = fc.tuple(fc.constantFrom(...LEDGER_OPS.ops), fc.nat(1000));
    const place = fc.tuple(fc.constant(LEDGER_OPS.place), fc.nat(1000));
    await fc.assert(
      fc.asyncProperty(fc.tuple(place, place, fc.array(step, { minLength: 10, maxLength: 24 })), async ([a, b, rest]) =>
        walk([a, b, ...rest]),
      ),
      { numRuns: RUNS, seed: SEED },
    );
  });

  it.skipIf(RUNS < 8)("took every kind of step with success at least once", () => {
    for (const op of LEDGER_OPS.ops) expect(succeeded.get(op.name) ?? 0, op.name).toBeGreaterThan(0);
    expect(invoiceChecks, "orders whose invoices were compared").toBeGreaterThan(0);
  });
});
