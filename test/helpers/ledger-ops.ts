/**
 * The steps of the ledger's random walk (test/api/transactions-ledger.test.ts): each takes the
 * world and a random number, does one operation through the API and says whether it was done.
 * A refusal is fine (a step that does not apply to the order it picked); a 5xx never is.
 */
import { expect } from "vitest";
import type { Json } from "../harness";
import type { Shop } from "./sales";

export type LedgerWorld = { s: Shop; items: Json[]; vat: Json; orders: string[]; seen: Map<number, Json> };
export type LedgerOp = { name: string; run(w: LedgerWorld, pick: number): Promise<boolean> };

const order = (w: LedgerWorld, pick: number) => w.orders[pick % w.orders.length]!;
const item = (w: LedgerWorld, pick: number) => w.items[pick % w.items.length]!;

async function send(w: LedgerWorld, method: string, path: string, body?: unknown): Promise<boolean> {
  const res = await w.s.client.request(method, `${w.s.path}${path}`, body);
  expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(500);
  // one step after the other: nothing can have changed an order meanwhile
  expect(JSON.stringify(res.body), `${method} ${path}`).not.toContain("meanwhile");
  return res.status < 300;
}

/** The order as the API answers it (its positions and fees not canceled). */
async function detail(w: LedgerWorld, code: string): Promise<Json> {
  const res = await w.s.client.get(`${w.s.path}/orders/${code}/`);
  expect(res.status).toBe(200);
  return res.body;
}

/** An order change (pretix orders.rst "Changing order contents") built from the order as it is. */
const change = (name: string, body: (o: Json, w: LedgerWorld, pick: number) => unknown): LedgerOp => ({
  name,
  async run(w, pick) {
    const o = await detail(w, order(w, pick));
    const b = body(o, w, pick);
    return b !== null && send(w, "POST", `/orders/${o.code}/change/`, b);
  },
});
const nth = (list: Json[], pick: number) => (list.length ? list[pick % list.length] : null);

/** An order the step applies to, when one is (else any): steps that need a state find one more often. */
async function orderIn(w: LedgerWorld, pick: number, status?: string): Promise<string> {
  if (!status) return order(w, pick);
  const res = await w.s.client.get(`${w.s.path}/orders/?status=${status}&page_size=100`);
  const codes: string[] = res.body.results.map((o: Json) => o.code);
  return codes.length ? codes[pick % codes.length]! : order(w, pick);
}

/** An order action that takes a body (or none), on an order in `status` where there is one. */
const action = (name: string, body?: (w: LedgerWorld, pick: number) => unknown, status?: string): LedgerOp => ({
  name,
  run: async (w, pick) => send(w, "POST", `/orders/${await orderIn(w, pick, status)}/${name}/`, body?.(w, pick) ?? {}),
});

const place: LedgerOp = {
  name: "place",
  async run(w, pick) {
    const positions = Array.from({ length: 1 + (pick % 3) }, (_, i) => ({ item: item(w, pick + i).id }));
    const fees = pick % 2 ? [{ fee_type: "payment", value: "0.25", tax_rule: w.vat.id }] : [];
    const res = await w.s.client.post(`${w.s.path}/orders/`, { payment_provider: "manual", positions, fees });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(500);
    if (res.status === 201) w.orders.push(res.body.code);
    return res.status === 201;
  },
};

async function setup(w: LedgerWorld) {
  w.vat = await w.s.post("/taxrules/", { name: { en: "VAT" }, rate: "19.00" });
  await w.s.client.patch(`${w.s.path}/settings/`, { invoice_generate: "True" });
  w.items = [
    await w.s.item({ default_price: "23.00" }),
    await w.s.item({ default_price: "10.00", tax_rule: w.vat.id }),
    await w.s.item({ default_price: "0.00" }),
    await w.s.item({ default_price: "15.00", require_approval: true }),
  ];
  await w.s.quota({ size: 40, items: w.items.map((i) => i.id) });
}

export const LEDGER_OPS = {
  setup,
  place,
  ops: [
    place,
    action("mark_paid"),
    action("mark_canceled"),
    action("mark_expired"),
    action("mark_pending", undefined, "p"),
    action("mark_refunded", undefined, "p"),
    action("reactivate", undefined, "c"),
    action("approve", undefined, "n"),
    action("deny", undefined, "n"),
    action(
      "extend",
      (_, pick) => ({ expires: new Date(Date.now() + (20 + (pick % 20)) * 86_400_000).toISOString().slice(0, 10) }),
      "e",
    ),
    {
      ...action("mark_canceled", (_, pick) => ({ cancellation_fee: (1 + (pick % 4)).toFixed(2) })),
      name: "cancellation_fee",
    },
    change("change_price", (o, _, pick) => {
      const p = nth(o.positions, pick);
      return p && { patch_positions: [{ position: p.id, body: { price: `${5 + (pick % 20)}.50` } }] };
    }),
    change("change_item", (o, w, pick) => {
      const p = nth(o.positions, pick);
      return p && { patch_positions: [{ position: p.id, body: { item: item(w, pick >> 2).id } }] };
    }),
    change("cancel_position", (o, _, pick) => {
      const p = nth(o.positions, pick);
      return p && { cancel_positions: [{ position: p.id }] };
    }),
    change("create_position", (_, w, pick) => ({ create_positions: [{ item: item(w, pick).id }] })),
    change("create_fee", (_, __, pick) => ({ create_fees: [{ fee_type: "service", value: `${1 + (pick % 3)}.00` }] })),
    change("patch_fee", (o, _, pick) => {
      const f = nth(o.fees, pick);
      return f && { patch_fees: [{ fee: f.id, body: { value: `${pick % 4}.75` } }] };
    }),
    change("cancel_fee", (o, _, pick) => {
      const f = nth(o.fees, pick);
      return f && { cancel_fees: [{ fee: f.id }] };
    }),
    change("recalculate_taxes", (_, __, pick) => ({ recalculate_taxes: pick % 2 ? "keep_net" : "keep_gross" })),
    {
      name: "delete_position",
      async run(w, pick) {
        const p = nth((await detail(w, order(w, pick))).positions, pick);
        return !!p && send(w, "DELETE", `/orderpositions/${p.id}/`);
      },
    },
  ] as LedgerOp[],
};

declare module "vitest" {
  export interface ProvidedContext {
    ledgerRuns: string;
    ledgerSeed: string;
  }
}
