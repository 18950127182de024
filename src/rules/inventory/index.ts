/**
 * The quota ledger the event object decides with (pure, synchronous): ledger.ts decides and
 * counts; catalog.ts holds the terms (capacity keys, quotas, vouchers, demand), order-book.ts
 * the orders' holds, cart-holds.ts the carts', exits.ts the tickets that left.
 */
export type { CartHold, Credit } from "./cart-holds";
export {
  type Catalog,
  catalogFromRows,
  type Demand,
  type Hold,
  type Key,
  keyOf,
  type QuotaDef,
  seatKey,
  type VoucherDef,
} from "./catalog";
export { type Availability, Ledger, type Refusal } from "./ledger";
export { MemoryOrderBook, type OrderBook, type OrderHold } from "./order-book";
