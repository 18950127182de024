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
  return res.status < 300;
}

/** An order action that takes a body (or none). */
const action = (name: string, body?: (w: LedgerWorld, pick: number) => unknown): LedgerOp => ({
  name,
  run: (w, pick) => send(w, "POST", `/orders/${order(w, pick)}/${name}/`, body?.(w, pick) ?? {}),
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
  ops: [place, action("mark_paid"), action("mark_canceled"), action("mark_expired")] as LedgerOp[],
};
