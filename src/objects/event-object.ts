/**
 * The event's Durable Object (one per event, named by the event id): the single place where
 * capacity decisions are taken — quota, seats, vouchers — for carts, orders and order state
 * changes, and for voucher edits that block quota.
 *
 * The four invariants (ARCHITECTURE.md):
 * 1. Decide without yielding: `Ledger.check` and the recording of holds run synchronously,
 *    with the object's own SQLite (`ctx.storage.sql`, `transactionSync`), no await between.
 * 2. Durable before acknowledged: holds and an outbox entry are written to the object's
 *    storage in the same synchronous transaction as the decision; the D1 rows follow. Should
 *    the object die before D1 has them, the alarm replays the outbox (idempotently: rows are
 *    written only when missing) — the order exists afterwards, nothing is half-written.
 * 3. No lost capacity: a reservation whose D1 write fails is released at once; carts expire
 *    by themselves (expired holds simply stop counting) and are pruned by the alarm.
 * 4. One door: order status changes, cart deletion and voucher edits are methods here;
 *    catalog edits (quotas, seats) bump the inventory change stamp that every call carries.
 *
 * Acquisitions (new holds) are recorded here first and then written to D1; releases are
 * written to D1 first and then removed here, so an in-flight write never frees capacity twice.
 *
 * The object's D1 work runs in sessions that start at the primary (src/db/sessions.ts): it reads
 * what every writer committed, as on the plain binding, and a call through `countedCall` answers
 * the bookmark of its writes, so the request's client reads them next from any replica. With
 * the debugging aid DEBUG_D1_ROUND_TRIPS on, the object's D1 binding counts round trips into the
 * context of the call that makes them, and `countedCall` answers them too (src/db/round-trips.ts);
 * no method knows about either.
 */
import { dispatchMail, dispatchWebhooks } from "../lib/queues";
import { DurableObject } from "cloudflare:workers";
import { and, eq, inArray, type SQL, sql } from "drizzle-orm";
import { runBatch, type Statement } from "../db/catalog-common";
import { cartsByHoldKeys } from "../db/carts";
import { createDb, type DB } from "../db/client";
import { moveExitAllAt } from "../db/checkin/lists";
import {
  checkinStampsQuery,
  configUnchangedSql,
  ticketOrderQuery,
  type TicketOrderRow,
} from "../db/checkin/object-reads";
import {
  autoCheckinStatement,
  checkinExists,
  checkinMissingSql,
  insertCheckinIf,
  setPositionAnswers,
  touchOrderOfPosition,
} from "../db/checkin/passages";
import { checkinPositionsByIds, type CheckinPositionRow } from "../db/checkin/ticket-rows";
import {
  type OrderWrite,
  readCheckinCatalog,
  readInventoryCatalog,
  orderExists,
  orderWriteStatements,
  touchInventory,
} from "../db/inventory";
import { orderByCode, type PositionJson, type RawOrder } from "../db/orders";
import { writtenVouchers } from "../db/vouchers";
import { isDatabaseFault } from "../db/constraints";
import { type GiftCardDebit, type StatusWrite, statusResultIndex, statusWriteStatements } from "../db/payments";
import {
  positionSecretsQuery,
  revokedSecretQuery,
  type TicketChange,
  ticketChangeStatements,
} from "../db/ticket-secrets";
import {
  type ContextRoundTrips,
  countRoundTripsInContext,
  newRoundTrips,
  roundTripsEnabled,
  withRoundTripCounting,
} from "../db/round-trips";
import { primarySession, withBookmarks } from "../db/sessions";
import { type Answer, type CheckinReason, cartPositions, type OrderStatus, orders, vouchers } from "../db/schema";
import { chunks } from "../lib/chunks";
import { MAX_PARAMS } from "../db/util";
import { checkinNotificationStatement } from "../db/webhooks";
import {
  chooseTicket,
  decideScan,
  type ListConfig,
  mergeAnswers,
  nextExitAllAt,
  onList,
  type RulesFacts,
  type RulesVerdict,
  type ScanRequest,
  type TicketFacts,
} from "../rules/checkin";
import { evaluateRules } from "../rules/checkin-rules";
import {
  type Availability,
  type Catalog,
  catalogFromRows,
  type Demand,
  keyOf,
  Ledger,
  type Refusal,
  type VoucherDef,
} from "../rules/inventory";
import {
  CheckinState,
  type CheckinConfig,
  checkinConfigFromRows,
  EMPTY_CONFIG,
  type SecretUndo,
  type StoredPassage,
} from "./checkin-state";
import { createOrderBookTables, SqlOrderBook } from "./order-book";
import type { Env } from "../lib/env";
import { log } from "../lib/log";

/** A cart row as the caller builds it; an add-on names its base by hold key (ids come from D1). */
export type CartRow = Omit<typeof cartPositions.$inferInsert, "addonTo"> & { addonToHoldKey: string | null };

export type CartGroup = {
  /** One hold key per position of the group (a position with its add-ons and bundled items). */
  holdKeys: string[];
  cartId: string;
  expires: number;
  demands: Demand[];
  rows: CartRow[];
};

export type Decision = { ok: true } | { ok: false; refusals: Refusal[] };
/** A placed order comes back as the API reads it, from the same D1 batch that wrote it. */
export type OrderDecision = { ok: true; order: RawOrder | null } | { ok: false; refusals: Refusal[] };
export type CreateVouchersResult = { ok: true; ids: number[] } | { ok: false; index: number; refusals: Refusal[] };
export type UpdateVoucherResult = { ok: true } | { ok: false; refusals: Refusal[] };
export type DeleteVoucherResult = { ok: true } | { ok: false; reason: "redeemed" };
/** A voucher's columns as the API sets them (D1 keeps id and creation, the object redemptions). */
export type VoucherColumns = Required<Omit<typeof vouchers.$inferInsert, "id" | "eventId" | "redeemed" | "createdAt">>;

/**
 * A check-in as the object writes it to D1 (its `uid` makes the write idempotent). `report`: a
 * scan, reported to webhooks (`pretix.event.checkin`) in the same batch; automatic check-ins
 * and exits have none (pretix does not log them).
 */
type PassageWrite = StoredPassage & {
  created: number;
  forced: boolean;
  forceSent?: boolean;
  rawBarcode: string | null;
  rawSourceType: string | null;
  report?: { code: string; first: boolean };
};

/** An automatic check-in of a new order's position (known by its number in the order until D1 gives it an id). */
type AutoCheckin = { uid: string; listId: number; positionid: number };

type OutboxEntry =
  | {
      kind: "order";
      write: OrderWrite;
      voucherUses: [number, number][];
      closedQuotaIds: number[];
      autoCheckins?: AutoCheckin[];
    }
  | { kind: "carts"; rows: CartRow[] }
  | ({ kind: "status"; tickets?: TicketChange[] } & StatusWrite)
  | { kind: "tickets"; orderId: number; code: string; changes: TicketChange[]; orderSecret: string | null; now: number }
  | { kind: "checkin"; passage: PassageWrite; answers: Answer[] | null }
  | { kind: "exit_all"; listId: number; fired: number; next: number; passages: PassageWrite[] };

/** What `decideAndRecord` decided and recorded, for writing (or undoing) it. */
type ScanDecision = {
  now: number;
  /** The configuration's change stamps the decision was taken on. */
  stamps: Record<string, number>;
  ticket: TicketFacts;
  status: "ok" | "error" | "incomplete";
  reason: CheckinReason | null;
  explanation: string | null;
  questions: number[];
  passage: PassageWrite | null;
  answers: Answer[] | null;
  previousAnswers: Answer[];
  outboxId: number;
};

/** What applying a ticket change did in the index (its secret; its block state before, when it changed). */
type TicketUndo = { secret: SecretUndo; blocked: boolean | null };

/** The tickets a scan may mean; `revoked`: the code is a revoked secret of the first of them. */
type Candidates = { tickets: TicketFacts[]; revoked: boolean };

/** A scan to decide on one list of this event. */
export type RedeemRequest = {
  listId: number;
  /** The scanned code (a ticket secret). */
  raw: string;
  /** The legacy per-list redeem may name the ticket by its id. */
  id: number | null;
  scan: ScanRequest;
  sourceType: string;
};

/** The list as a scan's answer shows it (pretix `MiniCheckinListSerializer`, without the event slug the Worker knows). */
export type MiniList = { id: number; name: string; subevent: number | null; include_pending: boolean };

export type RedeemOutcome =
  | { kind: "no_list" }
  | { kind: "unknown" }
  | {
      kind: "decided";
      status: "ok" | "error" | "incomplete";
      reason: CheckinReason | null;
      explanation: string | null;
      questions: number[];
      list: MiniList;
      position: CheckinPositionRow | null;
    };

const STATUS_RELEASES = new Set(["c", "e"]);

/** What a (re)started object read from its own storage to serve (debugging aid, tests). */
export type ObjectStart = { rowsRead: number; heldPositions: number };

export class EventObject extends DurableObject<Env> {
  private ledger: Ledger;
  private book: SqlOrderBook;
  /** The start's reads (its SQLite rows read, the positions held then). */
  private started: ObjectStart = { rowsRead: 0, heldPositions: 0 };
  private readonly eventId: number;
  private readonly sql: SqlStorage;
  private catalogLoad: Promise<void> | null = null;
  /** Outbox entries whose request is still running in this instance. */
  private readonly inflight = new Set<number>();
  /** Voucher codes (lower case) whose creation is running in this instance. */
  private readonly codesInFlight = new Map<string, Promise<void>>();
  /** Debugging aid: the start's round trips, reported with the first counted call. */
  private startTrips: ContextRoundTrips | null = null;
  /** Check-in: the ticket index and passages (own storage) and the lists' configuration (from D1). */
  private readonly ci: CheckinState;
  private config: CheckinConfig = EMPTY_CONFIG;
  private configLoad: Promise<void> | null = null;
  /**
   * A list's check-in rules judged as pretix's server does (rules/checkin-rules.ts); a rule the
   * service cannot evaluate refuses the scan (pretix: "Evaluation of custom rules has failed",
   * no explanation), never admits it.
   */
  private readonly rules = (facts: RulesFacts): RulesVerdict => {
    const t = facts.ticket;
    const outcome = evaluateRules(facts.list.rules, {
      now: facts.now,
      timezone: this.config.timezone,
      product: t.itemId,
      variation: t.variationId,
      gate: null,
      event:
        (t.subeventId !== null ? this.config.subeventDates.get(t.subeventId) : undefined) ?? this.config.eventDates,
      entries: facts.passages.filter((p) => p.type === "entry").map((p) => p.datetime),
      exits: facts.passages.filter((p) => p.type === "exit").map((p) => p.datetime),
    });
    if (outcome.ok) return { ok: true };
    if (outcome.reason === "rules") return { ok: false, explanation: outcome.explanation };
    log.error("check-in rules cannot be evaluated; the scan is refused", {
      event_id: this.eventId,
      list_id: facts.list.id,
      detail: outcome.detail,
    });
    return { ok: false, explanation: null };
  };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    // every statement of the start counts the rows it reads (what a restart costs, ObjectStart)
    const startReads: SqlStorageCursor<Record<string, SqlStorageValue>>[] = [];
    let starting = true;
    const storage = ctx.storage.sql;
    this.sql = new Proxy(storage, {
      get(target, name) {
        if (name !== "exec") return Reflect.get(target, name);
        return (query: string, ...bindings: unknown[]) => {
          const cursor = target.exec(query, ...bindings);
          if (starting) startReads.push(cursor);
          return cursor;
        };
      },
    });
    this.ci = new CheckinState(this.sql);
    this.eventId = Number(ctx.id.name);
    this.book = new SqlOrderBook(this.sql);
    this.ledger = new Ledger(this.book);
    ctx.blockConcurrencyWhile(async () => {
      this.createTables();
      const now = Date.now();
      this.sql.exec("DELETE FROM holds WHERE kind = 'cart' AND expires <= ?", now);
      // Orders stay in storage (the ledger's book): only unexpired carts and exited tickets are read.
      for (const r of this.sql.exec<{
        ref: string;
        grp: string | null;
        key: string;
        seat: string | null;
        voucher_id: number | null;
        expires: number | null;
      }>("SELECT ref, grp, key, seat, voucher_id, expires FROM holds WHERE kind = 'cart'")) {
        this.ledger.addCart(r.ref, r.grp ?? "", { key: r.key, seat: r.seat, voucherId: r.voucher_id }, r.expires ?? 0);
      }
      for (const t of this.ci.exitedTickets())
        this.ledger.setExited(t.id, keyOf(t.item, t.variation, t.subevent), t.orderCode, true);
      starting = false;
      this.started = { rowsRead: startReads.reduce((n, c) => n + c.rowsRead, 0), heldPositions: this.book.held() };
      if (Number.isFinite(this.eventId)) {
        const load = () => this.loadCatalog();
        if (roundTripsEnabled(env)) this.startTrips = newRoundTrips();
        this.ledger.setCatalog(await (this.startTrips ? withRoundTripCounting(this.startTrips, load) : load()));
      }
      // Entries left by a previous instance: their requests died with it.
      const pending = this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n;
      if (pending > 0) await ctx.storage.setAlarm(now);
      else await this.scheduleAlarm();
    });
  }

  private createTables(): void {
    createOrderBookTables(this.sql);
    this.sql.exec(
      `CREATE TABLE IF NOT EXISTS outbox (id INTEGER PRIMARY KEY AUTOINCREMENT, payload TEXT NOT NULL, created INTEGER NOT NULL)`,
    );
    this.ci.createTables();
  }

  private db(): DB {
    return createDb(primarySession(roundTripsEnabled(this.env) ? countRoundTripsInContext(this.env.DB) : this.env.DB));
  }

  /**
   * Runs one of the methods below and answers its result with the D1 bookmark of its work
   * (null: it wrote nothing to D1) and, with the debugging aid DEBUG_D1_ROUND_TRIPS on, its D1
   * round trips (the object's start counts with the first call). The Worker's door
   * (objects/client.ts) calls every method through this inside a request.
   */
  async countedCall(
    method: CountedMethod,
    args: unknown[],
  ): Promise<{ value: unknown; trips: number; ms: number; bookmark: string | null; start?: ObjectStart }> {
    if (!COUNTED_METHODS.includes(method)) throw new Error(`not a method of the event object: ${method}`);
    const counts = newRoundTrips();
    let start: ObjectStart | undefined;
    if (this.startTrips) {
      counts.own.n += this.startTrips.own.n;
      counts.own.ms += this.startTrips.own.ms;
      this.startTrips = null;
      start = this.started;
    }
    const fn = this[method] as (...a: unknown[]) => Promise<unknown>;
    const { value, bookmark } = await withRoundTripCounting(counts, () => withBookmarks(() => fn.apply(this, args)));
    const out = { value, trips: counts.own.n, ms: counts.own.ms, bookmark };
    return start ? { ...out, start } : out;
  }

  /** What this instance read from its storage when it started (tests). */
  startReport(): ObjectStart {
    return { ...this.started };
  }

  /** The catalog (quotas, vouchers) and, read in the same batch, the check-in configuration. */
  private async loadCatalog(): Promise<Catalog> {
    const rows = await readInventoryCatalog(this.db(), this.eventId);
    this.config = checkinConfigFromRows(rows.checkin);
    return catalogFromRows(rows);
  }

  /** Reads the check-in configuration again (a list changed, or D1 says items or questions did). */
  private reloadCheckinConfig(): Promise<void> {
    this.configLoad ??= readCheckinCatalog(this.db(), this.eventId)
      .then((rows) => {
        this.config = checkinConfigFromRows(rows);
      })
      .finally(() => (this.configLoad = null));
    return this.configLoad;
  }

  /**
   * Reloads the catalog (quotas, vouchers) from D1 when the caller has seen a newer stamp. A
   * load already under way may have read D1 before the caller's change: when it comes back
   * older, one load of the caller's own follows. Should that too be older (replica lag), the
   * caller's stamp is trusted for this catalog rather than looping.
   */
  private async ensureCatalog(stamp: number): Promise<void> {
    if (stamp <= this.ledger.stamp) return;
    if (this.catalogLoad) await this.catalogLoad;
    if (stamp <= this.ledger.stamp) return;
    // a load begun after this call arrived (by this call or another) sees the caller's change
    this.catalogLoad ??= this.loadCatalog()
      .then((c) => this.ledger.setCatalog(c))
      .finally(() => (this.catalogLoad = null));
    await this.catalogLoad;
  }

  private writeOutbox(entry: OutboxEntry, now: number): number {
    return this.sql
      .exec<{ id: number }>(
        "INSERT INTO outbox (payload, created) VALUES (?, ?) RETURNING id",
        JSON.stringify(entry),
        now,
      )
      .one().id;
  }

  private clearOutbox(id: number): void {
    this.sql.exec("DELETE FROM outbox WHERE id = ?", id);
    this.inflight.delete(id);
  }

  // Holds are recorded in the object's storage as they are decided (callers run these inside
  // transactionSync): orders through the ledger's book, which keeps them there and nowhere
  // else; carts in the ledger's memory and as rows here, so that a restarted object rebuilds them.

  private holdOrder(code: string, demands: readonly Demand[], paid: boolean): void {
    this.ledger.addOrder(code, demands, paid);
  }

  private setOrderPaid(code: string, paid: boolean): void {
    this.ledger.setOrderPaid(code, paid);
  }

  private dropOrderHolds(code: string): void {
    this.ledger.removeOrder(code);
  }

  private holdCart(holdKey: string, cartId: string, d: Demand, expires: number): void {
    this.ledger.addCart(holdKey, cartId, d, expires);
    const h = this.ledger.cart(holdKey)!;
    this.sql.exec(
      "INSERT OR REPLACE INTO holds (kind, ref, idx, grp, key, seat, voucher_id, expires, paid) VALUES ('cart', ?, 0, ?, ?, ?, ?, ?, 0)",
      holdKey,
      cartId,
      h.key,
      h.seat,
      h.voucherId,
      expires,
    );
  }

  private releaseCartHold(holdKey: string): void {
    this.ledger.removeCart(holdKey);
    this.sql.exec("DELETE FROM holds WHERE kind = 'cart' AND ref = ?", holdKey);
  }

  /** The earliest automatic exit of a list that has not happened yet. */
  private nextExitAll(): number | null {
    let min: number | null = null;
    for (const l of this.config.lists.values()) {
      if (l.exitAllAt === null) continue;
      const fired = this.ci.firedExitAll(l.id);
      if (fired !== null && fired >= l.exitAllAt) continue;
      if (min === null || l.exitAllAt < min) min = l.exitAllAt;
    }
    return min;
  }

  private async scheduleAlarm(): Promise<void> {
    const carts = this.ledger.nextCartExpiry();
    const exits = this.nextExitAll();
    const current = await this.ctx.storage.getAlarm();
    const candidates = [carts === null ? null : carts + 1000, exits].filter((x): x is number => x !== null);
    const want = candidates.length ? Math.min(...candidates) : null;
    if (want !== null && (current === null || current > want)) await this.ctx.storage.setAlarm(want);
  }

  // ---------------------------------------------------------------- availability

  async quotaAvailability(stamp: number, quotaIds: number[]): Promise<Record<number, Availability>> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    const out: Record<number, Availability> = {};
    for (const id of quotaIds) {
      const q = this.ledger.quota(id);
      if (q) out[id] = this.ledger.availability(q, now);
    }
    return out;
  }

  /** Availability states (100/20/10/0, null: not counted) of products on dates. */
  async availabilityStates(
    stamp: number,
    demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
  ): Promise<(number | null)[]> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    return demands.map((d) => this.ledger.demandState(d, now));
  }

  // ---------------------------------------------------------------- carts

  /**
   * Reserves cart positions. Each group (a position with its add-ons / bundled positions)
   * is decided on its own: bulk creation is not atomic across groups.
   */
  async reserveCarts(stamp: number, groups: CartGroup[]): Promise<Decision[]> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    const decisions: Decision[] = [];
    const accepted: CartGroup[] = [];
    let outboxId = 0;
    this.ctx.storage.transactionSync(() => {
      for (const g of groups) {
        const refusals = this.ledger.check(g.demands, now);
        if (refusals.length) {
          decisions.push({ ok: false, refusals });
          continue;
        }
        g.demands.forEach((d, i) => this.holdCart(g.holdKeys[i]!, g.cartId, d, g.expires));
        accepted.push(g);
        decisions.push({ ok: true });
      }
      if (accepted.length) outboxId = this.writeOutbox({ kind: "carts", rows: accepted.flatMap((g) => g.rows) }, now);
    });
    if (!accepted.length) return decisions;
    this.inflight.add(outboxId);
    try {
      await this.writeCartRows(accepted.flatMap((g) => g.rows));
    } catch (e) {
      // As for orders: the batch is one transaction, but a failed call does not always say
      // whether it committed. Ask D1 (one of its rows tells): written → a success after all;
      // not written → give the capacity back; unknown → keep the holds for the alarm, which
      // writes the rows (idempotently), or they expire.
      const written = await cartsByHoldKeys(this.db(), this.eventId, [accepted[0]!.holdKeys[0]!])
        .then((rows) => rows.length > 0)
        .catch(() => undefined);
      if (written === undefined) {
        this.inflight.delete(outboxId);
        await this.ctx.storage.setAlarm(Date.now() + 5_000);
        throw e;
      }
      if (!written) {
        this.ctx.storage.transactionSync(() => {
          for (const g of accepted) for (const hk of g.holdKeys) this.releaseCartHold(hk);
          this.clearOutbox(outboxId);
        });
        throw e;
      }
    }
    this.clearOutbox(outboxId);
    await this.scheduleAlarm();
    return decisions;
  }

  private async writeCartRows(rows: CartRow[]): Promise<void> {
    const db = this.db();
    // bases come before their add-ons, which find the base's id by its hold key
    const stmts: Statement[] = rows.map(({ addonToHoldKey, ...r }) =>
      db
        .insert(cartPositions)
        .values({
          ...r,
          addonTo:
            addonToHoldKey === null
              ? null
              : sql<number>`(SELECT c2.id FROM cart_positions c2 WHERE c2.hold_key = ${addonToHoldKey})`,
        })
        .onConflictDoNothing({ target: cartPositions.holdKey }),
    );
    await runBatch(db, stmts);
  }

  /** Deletes cart positions (D1 first, then their holds). Returns the hold keys deleted. */
  async deleteCarts(holdKeys: string[]): Promise<string[]> {
    if (holdKeys.length === 0) return [];
    const db = this.db();
    // a position with its add-ons and bundled positions can exceed D1's parameter limit
    let deleted: { holdKey: string }[][];
    try {
      deleted = (await runBatch(
        db,
        chunks(holdKeys, MAX_PARAMS - 5).map((part) =>
          db
            .delete(cartPositions)
            .where(and(eq(cartPositions.eventId, this.eventId), inArray(cartPositions.holdKey, part)))
            .returning({ holdKey: cartPositions.holdKey }),
        ),
      )) as { holdKey: string }[][];
    } catch (e) {
      // the answer may be lost: rows gone from D1 were deleted, and their holds go too
      const left = await cartsByHoldKeys(db, this.eventId, holdKeys).catch(() => null);
      if (left === null || left.length > 0) throw e;
      deleted = [holdKeys.map((holdKey) => ({ holdKey }))];
    }
    this.ctx.storage.transactionSync(() => {
      for (const hk of holdKeys) this.releaseCartHold(hk);
    });
    return deleted.flat().map((d) => d.holdKey);
  }

  // ---------------------------------------------------------------- orders

  async placeOrder(
    stamp: number,
    req: {
      code: string;
      demands: Demand[];
      paid: boolean;
      consumeCartIds: string[];
      ignoreQuota: boolean;
      write: OrderWrite;
    },
  ): Promise<OrderDecision> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    let outboxId = 0;
    let refusals: Refusal[] = [];
    const closed: number[] = [];
    let consumed: string[] = [];
    let autoCheckins: AutoCheckin[] = [];
    const voucherUses = voucherUsesOf(req.demands);

    this.ctx.storage.transactionSync(() => {
      consumed = this.ledger.cartHoldKeysOf(req.consumeCartIds);
      refusals = this.ledger.check(
        req.demands,
        now,
        { cartHoldKeys: new Set(consumed) },
        { ignoreQuota: req.ignoreQuota },
      );
      if (refusals.length) return;
      for (const hk of consumed) this.releaseCartHold(hk);
      this.holdOrder(req.code, req.demands, req.paid);
      for (const q of this.ledger.touchedQuotas(req.demands)) {
        if (q.closeWhenSoldOut && !q.closed && this.ledger.availability(q, now).available_number === 0) {
          this.ledger.markQuotaClosed(q.id);
          closed.push(q.id);
        }
      }
      autoCheckins = this.autoCheckinsOf(req.write);
      outboxId = this.writeOutbox(
        { kind: "order", write: req.write, voucherUses: [...voucherUses], closedQuotaIds: closed, autoCheckins },
        now,
      );
    });
    if (refusals.length) return { ok: false, refusals };

    this.inflight.add(outboxId);
    let mailIds: number[] = [];
    let written: RawOrder | null = null;
    try {
      const db = this.db();
      // the write, then the order read back in the same transaction (saves the caller a round trip)
      const stmts = [
        ...orderWriteStatements(
          db,
          req.write,
          voucherUses,
          closed,
          now,
          this.autoCheckinStatements(db, req.write, autoCheckins, now),
        ),
        orderByCode(db, req.write.order.eventId, req.code),
      ];
      const results = await runBatch(db, stmts);
      const last = results.length - 1;
      mailIds = results
        .slice(last - req.write.mails.length, last)
        .flatMap((r) => (r as { id: number }[]).map((m) => m.id));
      written = (results[last] as RawOrder[])[0] ?? null;
    } catch (e) {
      // A batch is one transaction, but a failed call does not always say whether it committed:
      // ask D1. Written → it is a success after all; not written → give the capacity back;
      // unknown → keep everything for the alarm, which finishes the write.
      const exists = await orderExists(this.db(), req.write.order.eventId, req.code).catch(() => undefined);
      if (exists === undefined) {
        // no longer this request's: the alarm of this instance replays it
        this.inflight.delete(outboxId);
        await this.ctx.storage.setAlarm(Date.now() + 5_000);
        throw e;
      }
      if (!exists) {
        this.ctx.storage.transactionSync(() => {
          this.dropOrderHolds(req.code);
          this.clearOutbox(outboxId);
        });
        // The consumed carts stay consumed in the ledger only if D1 deleted them; D1 did not.
        await this.restoreCartHolds(consumed);
        throw e;
      }
      // written: its mails were stored queued; the housekeeping sweep hands them on
    }
    this.ctx.storage.transactionSync(() => {
      if (written) this.indexWrittenOrder(written, autoCheckins, now);
      this.clearOutbox(outboxId);
    });
    if (mailIds.length) await dispatchMail(this.env, mailIds);
    return { ok: true, order: written };
  }

  /** The automatic check-ins of a new order: its positions on lists that check in its sales channel (pretix `auto_checkin_sales_channels`). */
  private autoCheckinsOf(w: OrderWrite): AutoCheckin[] {
    const out: AutoCheckin[] = [];
    const channel = w.order.salesChannel ?? "web";
    for (const list of this.config.lists.values()) {
      if (!list.autoCheckinSalesChannels.includes(channel)) continue;
      for (const p of w.positions) {
        if (p.canceled) continue;
        if (onList(list, { itemId: p.itemId, subeventId: p.subeventId ?? null }))
          out.push({ uid: crypto.randomUUID(), listId: list.id, positionid: p.positionid });
      }
    }
    return out;
  }

  private autoCheckinStatements(db: DB, w: OrderWrite, auto: readonly AutoCheckin[], now: number): Statement[] {
    return auto.map((a) => autoCheckinStatement(db, this.eventId, w.order.code, a.positionid, a.uid, a.listId, now));
  }

  /** Indexes an order the object just wrote (read back from D1 with its ids), with its automatic check-ins. */
  private indexWrittenOrder(raw: RawOrder, auto: readonly AutoCheckin[], now: number): void {
    const positions = JSON.parse(raw.positions) as PositionJson[];
    this.ci.indexOrder(
      {
        code: raw.order.code,
        status: raw.order.status,
        requireApproval: raw.order.requireApproval,
        validIfPending: false,
        checkinAttention: raw.order.checkinAttention,
        salesChannel: raw.order.salesChannel,
      },
      positions.map(ticketOfPosition),
      true,
    );
    for (const a of auto) {
      const p = positions.find((x) => x.positionid === a.positionid);
      if (p)
        this.ci.addPassage({
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

  /** Re-reads cart rows from D1 after a failed consumption and holds them again. */
  private async restoreCartHolds(holdKeys: string[]): Promise<void> {
    if (holdKeys.length === 0) return;
    const rows = await cartsByHoldKeys(this.db(), this.eventId, holdKeys);
    this.ctx.storage.transactionSync(() => {
      for (const r of rows) {
        this.holdCart(
          r.holdKey,
          r.cartId,
          {
            itemId: r.itemId,
            variationId: r.variationId,
            subeventId: r.subeventId,
            seat: r.seat,
            voucherId: r.voucherId,
          },
          r.expires,
        );
      }
    });
  }

  /**
   * Changes an order's status: `to` p (paid), n (pending), c (canceled), e (expired), from one
   * of `from`. Leaving n/p releases the order's holds; entering n/p from c/e needs capacity
   * again (`demands`). Payment rows follow (`confirmPaymentId` marks one confirmed). With
   * `giftCard`, the order is paid by debiting the card in the same D1 transaction as the status
   * change: both happen or neither (insufficient credit → `changed` false, nothing written).
   */
  async changeOrderStatus(
    stamp: number,
    req: {
      orderId: number;
      code: string;
      from: ("n" | "p" | "e" | "c")[];
      to: "n" | "p" | "e" | "c";
      demands: Demand[];
      confirmPaymentId?: number | null;
      cancelPayments?: boolean;
      ignoreQuota?: boolean;
      giftCard?: GiftCardDebit | null;
      /** Ticket changes that come with the status (a cancellation's new secrets), written only if the status changes. */
      tickets?: TicketChange[];
    },
  ): Promise<Decision & { changed?: boolean }> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    const holding = this.ledger.orderHolds(req.code) !== undefined;
    const wantHolding = !STATUS_RELEASES.has(req.to);
    let outboxId = 0;
    const entry: OutboxEntry = {
      kind: "status",
      orderId: req.orderId,
      code: req.code,
      to: req.to,
      from: req.from,
      now,
      confirmPaymentId: req.confirmPaymentId ?? null,
      cancelPayments: req.cancelPayments ?? false,
      giftCard: req.giftCard ?? null,
      ...(req.tickets?.length ? { tickets: req.tickets } : {}),
    };

    if (wantHolding && !holding) {
      // acquisition: decide and record first
      let refusals: Refusal[] = [];
      this.ctx.storage.transactionSync(() => {
        refusals = this.ledger.check(req.demands, now, undefined, { ignoreQuota: req.ignoreQuota });
        if (refusals.length) return;
        this.holdOrder(req.code, req.demands, req.to === "p");
        outboxId = this.writeOutbox(entry, now);
      });
      if (refusals.length) return { ok: false, refusals };
    } else {
      outboxId = this.writeOutbox(entry, now);
    }
    this.inflight.add(outboxId);
    let changed: boolean;
    try {
      ({ changed } = await this.writeStatus(entry));
    } catch (e) {
      // Did the write commit? D1's status of the order tells; if it cannot be read, the alarm
      // replays the (idempotent) write and settles the holds by what D1 then says.
      const row = await orderStatusQuery(this.db(), req.orderId)
        .get()
        .catch(() => undefined);
      if (row === undefined || (row.status !== req.to && !req.from.includes(row.status))) {
        // no longer this request's: the alarm of this instance replays it
        this.inflight.delete(outboxId);
        await this.ctx.storage.setAlarm(Date.now() + 5_000);
        throw e;
      }
      if (row.status !== req.to) {
        if (wantHolding && !holding) this.dropOrderHolds(req.code);
        this.clearOutbox(outboxId);
        throw e;
      }
      changed = true;
    }
    this.ctx.storage.transactionSync(() => {
      if (!changed) {
        if (wantHolding && !holding) this.dropOrderHolds(req.code);
      } else if (!wantHolding) {
        this.dropOrderHolds(req.code);
      } else if (holding) {
        this.setOrderPaid(req.code, req.to === "p");
      }
      if (changed) {
        this.ci.setOrderStatus(req.code, req.to);
        this.applyTicketChanges(req.tickets ?? []);
      }
      this.clearOutbox(outboxId);
    });
    return { ok: true, changed };
  }

  /**
   * The conditional D1 write of a status change (db/payments.ts): whether the order changed,
   * and its status afterwards (read in the same batch). Voucher redemptions follow the order's
   * holds as the ledger has them.
   */
  private async writeStatus(
    e: Extract<OutboxEntry, { kind: "status" }>,
  ): Promise<{ changed: boolean; status: string | undefined }> {
    const db = this.db();
    const stmts = statusWriteStatements(
      db,
      this.eventId,
      e,
      voucherUsesOf(this.ledger.orderHolds(e.code)?.positions ?? []),
    );
    // the tickets change with the status only: in this batch the order got the new status at `now`
    const changedNow = sql`EXISTS (SELECT 1 FROM orders o WHERE o.id = ${e.orderId} AND o.status = ${e.to} AND o.last_modified = ${e.now})`;
    const tickets = e.tickets?.length
      ? ticketChangeStatements(db, this.eventId, e.orderId, e.tickets, e.now, { condition: changedNow })
      : [];
    const results = await runBatch(db, [...stmts, ...tickets, orderStatusQuery(db, e.orderId)]);
    return {
      changed: (results[statusResultIndex(e, stmts.length)] as { id: number }[]).length > 0,
      status: (results[results.length - 1] as { status: string }[])[0]?.status,
    };
  }

  // ---------------------------------------------------------------- vouchers

  /**
   * Creates vouchers atomically: all block their quota, or none is created. Creations of the
   * same code run one after the other in this object, so that a write whose answer a fault
   * lost can tell its own vouchers in D1 from those of a request beside it.
   */
  async createVouchers(stamp: number, rows: (typeof vouchers.$inferInsert)[]): Promise<CreateVouchersResult> {
    const codes = [...new Set(rows.map((r) => r.code.toLowerCase()))];
    const running = () => codes.flatMap((c) => this.codesInFlight.get(c) ?? []);
    for (let waiting = running(); waiting.length; waiting = running()) await Promise.allSettled(waiting);
    let done!: () => void;
    const mine = new Promise<void>((resolve) => (done = resolve));
    for (const c of codes) this.codesInFlight.set(c, mine);
    try {
      return await this.insertVouchers(stamp, rows);
    } finally {
      for (const c of codes) if (this.codesInFlight.get(c) === mine) this.codesInFlight.delete(c);
      done();
    }
  }

  private async insertVouchers(stamp: number, rows: (typeof vouchers.$inferInsert)[]): Promise<CreateVouchersResult> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    const temps: VoucherDef[] = [];
    let failure: { index: number; refusals: Refusal[] } | null = null;
    rows.forEach((r, i) => {
      if (failure) return;
      const def = voucherDef({ ...r, id: -1 - i });
      const refusals = this.ledger.checkVoucherBlock(def, now);
      if (refusals.length) {
        failure = { index: i, refusals };
        return;
      }
      this.ledger.upsertVoucher(def);
      temps.push(def);
    });
    const dropTemps = () => {
      for (const t of temps) this.ledger.removeVoucher(t.id);
    };
    if (failure) {
      dropTemps();
      return { ok: false, ...(failure as { index: number; refusals: Refusal[] }) };
    }
    const db = this.db();
    let ids: number[];
    try {
      const stmts: Statement[] = rows.map((r) => db.insert(vouchers).values(r).returning({ id: vouchers.id }));
      stmts.push(touchInventory(db, this.eventId, now));
      const results = await runBatch(db, stmts);
      ids = results.slice(0, rows.length).map((r) => (r as { id: number }[])[0]!.id);
    } catch (e) {
      dropTemps();
      // A refusal (the code taken by a creation running beside this one) is an answer: nothing
      // was written. Only a fault may have lost the answer of a write that committed; then D1
      // has the vouchers as written (codes, creation time), or not.
      if (!isDatabaseFault(e)) throw e;
      const written = await writtenVouchers(db, this.eventId, rows).catch(() => null);
      if (!written) throw e;
      ids = written;
    }
    dropTemps();
    rows.forEach((r, i) => this.ledger.upsertVoucher(voucherDef({ ...r, id: ids[i]! })));
    return { ok: true, ids };
  }

  /**
   * Changes a voucher to `values` (all its columns but the ones D1 or the object keep); a
   * bigger block must fit into the quota. The conditional UPDATE tells whether the voucher
   * still exists.
   */
  async updateVoucher(stamp: number, id: number, values: VoucherColumns): Promise<UpdateVoucherResult> {
    await this.ensureCatalog(stamp);
    const now = Date.now();
    const unknown: UpdateVoucherResult = { ok: false, refusals: [{ code: "voucher_unknown", voucherId: id }] };
    const next = voucherDef({ ...values, id });
    const refusals = this.ledger.checkVoucherBlock(next, now);
    if (refusals.length) return { ok: false, refusals };
    // While D1 is written, block for both the old and the new definition (never less).
    const temp = { ...next, id: -id - 1_000_000_000 };
    this.ledger.upsertVoucher(temp);
    const db = this.db();
    let updated: { id: number }[];
    try {
      [updated] = await db.batch([
        db
          .update(vouchers)
          .set(values)
          .where(and(eq(vouchers.id, id), eq(vouchers.eventId, this.eventId)))
          .returning({ id: vouchers.id }),
        touchInventory(db, this.eventId, now),
      ]);
    } catch (e) {
      this.ledger.removeVoucher(temp.id);
      throw e;
    }
    this.ledger.removeVoucher(temp.id);
    if (updated.length === 0) {
      this.ledger.removeVoucher(id);
      return unknown;
    }
    this.ledger.upsertVoucher(next);
    return { ok: true };
  }

  /**
   * Deletes a voucher that was never redeemed. The decision is recorded before D1 is written
   * (the voucher leaves the ledger, so an order decided meanwhile cannot redeem it) and undone
   * when D1 did not delete it.
   */
  async deleteVoucher(stamp: number, id: number): Promise<DeleteVoucherResult> {
    await this.ensureCatalog(stamp);
    if (this.ledger.redeemed(id) > 0) return { ok: false, reason: "redeemed" };
    const def = this.ledger.voucher(id);
    this.ledger.removeVoucher(id);
    const restore = () => def && !this.ledger.voucher(id) && this.ledger.upsertVoucher(def);
    const db = this.db();
    const ofEvent = and(eq(vouchers.id, id), eq(vouchers.eventId, this.eventId));
    let kept: { id: number }[];
    try {
      [, , kept] = await db.batch([
        db.delete(vouchers).where(and(ofEvent, eq(vouchers.redeemed, 0))),
        touchInventory(db, this.eventId, Date.now()),
        db.select({ id: vouchers.id }).from(vouchers).where(ofEvent),
      ]);
    } catch (e) {
      // the answer may be lost: gone from D1 means deleted
      const gone = await db
        .select({ id: vouchers.id })
        .from(vouchers)
        .where(ofEvent)
        .then((rows) => rows.length === 0)
        .catch(() => false);
      if (gone) return { ok: true };
      restore();
      throw e;
    }
    if (kept.length) {
      // D1 counts a redemption (the delete's condition held it back)
      restore();
      return { ok: false, reason: "redeemed" };
    }
    return { ok: true };
  }

  // ---------------------------------------------------------------- check-in

  /**
   * The tickets a scan may mean: the one of the code (or id), and with `addon_match` its
   * add-ons; failing that, the ticket whose revoked secret the code is (pretix looks revoked
   * secrets up only when no ticket has the code). null: not in the index.
   */
  private candidates(req: RedeemRequest, addonMatch: boolean): Candidates | null {
    const bySecret = this.ci.ticketBySecret(req.raw);
    const byId = req.id !== null ? this.ci.ticketById(req.id) : undefined;
    const found = [bySecret, byId].filter(
      (t, i, all): t is TicketFacts => t !== undefined && all.findIndex((x) => x?.id === t.id) === i,
    );
    let base = bySecret;
    let revoked = false;
    if (found.length === 0) {
      const revokedId = this.ci.revokedTicket(req.raw);
      const t = revokedId === undefined ? undefined : this.ci.ticketById(revokedId);
      if (!t) return null;
      found.push(t);
      base = t;
      revoked = true;
    }
    const out = [...found];
    if (addonMatch && base) for (const a of this.ci.addonsOf(base.id)) if (!out.some((t) => t.id === a.id)) out.push(a);
    // base tickets first (pretix orders candidates by addon_to, nulls first)
    return { tickets: out.sort((a, b) => (a.addonTo === null ? 0 : 1) - (b.addonTo === null ? 0 : 1)), revoked };
  }

  /** Records in the ledger whether a ticket's last passage on any list is an exit (quotas with release_after_exit). */
  private trackExit(t: Pick<TicketFacts, "id" | "itemId" | "variationId" | "subeventId" | "orderCode">): void {
    this.ledger.setExited(
      t.id,
      keyOf(t.itemId, t.variationId, t.subeventId),
      t.orderCode,
      this.ci.lastTypeAnywhere(t.id) === "exit",
    );
  }

  /** Indexes what a D1 fallback read returned (orders, and the tickets of a revoked secret). */
  private indexFallback(rows: TicketOrderRow[], revoked: { secret: string; ticketId: number }[]): void {
    this.ctx.storage.transactionSync(() => {
      for (const r of revoked) this.ci.addRevoked(r.secret, r.ticketId);
      for (const row of rows) {
        const added = this.ci.indexFromD1(row);
        for (const tid of new Set(added.map((p) => p.ticketId))) {
          const t = this.ci.ticketById(tid);
          if (t) this.trackExit(t);
        }
      }
    });
  }

  /**
   * Decides a scan on one of the event's lists (pretix checkin.rst), and records a passing one
   * before anything is awaited: a ticket enters once per list however many gates scan it at
   * once. The ticket comes from the object's index; a ticket it has never seen is read from
   * D1 once (its whole order) and indexed. The check-in is then written to D1 in one batch that
   * also reads the ticket back for the answer; should the object die first, the alarm writes it
   * from the outbox (once: the check-in's own `uid`); should D1 refuse it, the passage is
   * undone and the scan fails, so the next scan decides afresh.
   */
  async redeem(req: RedeemRequest): Promise<RedeemOutcome> {
    if (this.configLoad) await this.configLoad;
    if (!this.config.lists.has(req.listId)) await this.reloadCheckinConfig();
    if (!this.config.lists.has(req.listId)) return { kind: "no_list" };
    if (this.candidates(req, this.config.lists.get(req.listId)!.addonMatch) === null) {
      const db = this.db();
      const [rows, revoked] = (await runBatch(db, [
        ticketOrderQuery(db, this.eventId, req.raw, req.id),
        revokedSecretQuery(db, this.eventId, req.raw),
      ])) as [TicketOrderRow[], { positionId: number }[]];
      if (rows.length || revoked.length)
        this.indexFallback(
          rows,
          revoked.map((r) => ({ secret: req.raw, ticketId: r.positionId })),
        );
    }
    // A decision taken on a configuration that D1 says changed meanwhile writes nothing (its
    // statements carry the condition); it is undone and taken again on the new configuration.
    for (let attempt = 0; ; attempt++) {
      const list = this.config.lists.get(req.listId);
      if (!list) return { kind: "no_list" };
      const candidates = this.candidates(req, list.addonMatch);
      if (candidates === null) return { kind: "unknown" };
      const d = this.decideAndRecord(req, list, candidates);
      const outcome = await this.writeScan(req, list, d, attempt < 2);
      if (outcome !== "stale") return outcome;
      await this.reloadCheckinConfig();
    }
  }

  /** Decides a scan and records a passing one, without yielding (the object's own storage and the outbox). */
  private decideAndRecord(req: RedeemRequest, list: ListConfig, found: Candidates): ScanDecision {
    const now = Date.now();
    const candidates = found.tickets;
    const d: ScanDecision = {
      now,
      stamps: { ...this.config.stamps },
      ticket: candidates[0]!,
      status: "error",
      reason: null,
      explanation: null,
      questions: [],
      passage: null,
      answers: null,
      previousAnswers: [],
      outboxId: 0,
    };
    // a revoked secret: refused; forced (an offline scan that already happened), its ticket is checked in
    if (found.revoked && !req.scan.force) {
      d.reason = "revoked";
      return d;
    }
    this.ctx.storage.transactionSync(() => {
      const choice = chooseTicket(req.raw, candidates, list, now);
      if (choice.kind === "none") return;
      d.ticket = choice.ticket;
      d.previousAnswers = d.ticket.answers;
      if (choice.kind === "ambiguous") {
        d.reason = "ambiguous";
        return;
      }
      const order = this.ci.order(d.ticket.orderCode);
      if (!order) {
        d.reason = "error";
        return;
      }
      const verdict = decideScan({
        list,
        ticket: d.ticket,
        order,
        questions: this.config.questions,
        passages: this.ci.passages(d.ticket.id, list.id),
        scan: req.scan,
        timezone: this.config.timezone,
        locale: this.config.locale,
        rules: this.rules,
        fromRevokedSecret: found.revoked,
      });
      if (verdict.answers.length) {
        d.answers = mergeAnswers(d.ticket.answers, verdict.answers);
        this.ci.setAnswers(d.ticket.id, d.answers);
      }
      switch (verdict.kind) {
        case "refuse":
          d.reason = verdict.reason;
          d.explanation = verdict.explanation;
          return;
        case "incomplete":
          d.status = "incomplete";
          d.questions = verdict.questions;
          return;
        case "repeat":
          d.status = "ok";
          return;
        case "pass":
          d.status = "ok";
          d.passage = {
            // pretix's `first_checkin`: the ticket's first passage on this list
            report: { code: d.ticket.orderCode, first: this.ci.passages(d.ticket.id, list.id).length === 0 },
            uid: crypto.randomUUID(),
            listId: list.id,
            ticketId: d.ticket.id,
            type: req.scan.type,
            datetime: req.scan.datetime,
            nonce: req.scan.nonce,
            deviceId: req.scan.deviceId,
            auto: false,
            created: now,
            forced: verdict.forced,
            forceSent: req.scan.force,
            rawBarcode: req.raw,
            rawSourceType: req.sourceType,
          };
          this.ci.addPassage(d.passage);
          this.trackExit(d.ticket);
          d.outboxId = this.writeOutbox({ kind: "checkin", passage: d.passage, answers: d.answers }, now);
      }
    });
    return d;
  }

  /** Takes back what `decideAndRecord` recorded (D1 did not take it). */
  private undoScan(d: ScanDecision): void {
    this.ctx.storage.transactionSync(() => {
      if (d.answers) this.ci.setAnswers(d.ticket.id, d.previousAnswers);
      if (d.passage) {
        this.ci.removePassage(d.passage.uid);
        this.trackExit(d.ticket);
        this.clearOutbox(d.outboxId);
      }
    });
  }

  /**
   * Makes a decision durable: one D1 batch writes it (conditionally on an unchanged
   * configuration) and reads the ticket back for the answer. "stale": the configuration changed,
   * nothing was written, the decision is undone.
   */
  private async writeScan(
    req: RedeemRequest,
    list: ListConfig,
    d: ScanDecision,
    mayRetry: boolean,
  ): Promise<RedeemOutcome | "stale"> {
    const db = this.db();
    const unchanged = configUnchangedSql(this.eventId, d.stamps);
    const stmts: Statement[] = [checkinStampsQuery(db, this.eventId)];
    if (d.passage) stmts.push(...this.passageStatements(db, d.passage, d.answers, unchanged));
    else {
      if (d.status === "error")
        stmts.push(
          insertCheckinIf(
            db,
            this.failedScan(d.ticket.id, list.id, req, d.reason ?? "error", d.explanation, d.now),
            unchanged,
          ),
        );
      if (d.answers) stmts.push(setPositionAnswers(db, d.ticket.id, d.answers, unchanged));
    }
    stmts.push(checkinPositionsByIds(db, this.eventId, [d.ticket.id], list.id));
    if (d.passage) this.inflight.add(d.outboxId);
    let results: unknown[];
    // whether the scan's webhook notification wrote calls (its statement follows the stamps)
    let notified = d.passage?.report !== undefined;
    try {
      results = await runBatch(db, stmts);
      if (notified) notified = (results[1] as unknown[]).length > 0;
    } catch (e) {
      if (!d.passage) {
        this.undoScan(d);
        throw e;
      }
      // Did the check-in commit? D1 tells; unknown → the alarm finishes the write.
      const row = await checkinExists(this.db(), d.passage.uid)
        .get()
        .catch(() => null);
      if (row === null) {
        this.inflight.delete(d.outboxId);
        await this.ctx.storage.setAlarm(Date.now() + 5_000);
        throw e;
      }
      if (row === undefined) {
        this.undoScan(d);
        throw e;
      }
      this.clearOutbox(d.outboxId);
      results = [
        [],
        ...(await runBatch(this.db(), [checkinPositionsByIds(this.db(), this.eventId, [d.ticket.id], list.id)])),
      ];
    }
    const stamps = results[0] as { resource: string; modifiedAt: number }[];
    if (mayRetry && stamps.some((s) => s.modifiedAt > (d.stamps[s.resource] ?? 0))) {
      this.undoScan(d);
      return "stale";
    }
    if (d.passage) this.clearOutbox(d.outboxId);
    // the scan's webhook notification was written with it; the queue delivers it
    if (notified && d.passage?.report)
      dispatchWebhooks(this.env, [{ eventId: this.eventId, code: d.passage.report.code }]);
    const [position] = results[results.length - 1] as CheckinPositionRow[];
    const mini: MiniList = {
      id: list.id,
      name: list.name,
      subevent: list.subeventId,
      include_pending: list.includePending,
    };
    return {
      kind: "decided",
      status: d.status,
      reason: d.status === "error" ? (d.reason ?? "error") : null,
      explanation: d.explanation,
      questions: d.questions,
      list: mini,
      position: position ?? null,
    };
  }

  /** A refused scan as D1 keeps it (statistics). */
  private failedScan(
    ticketId: number | null,
    listId: number,
    req: RedeemRequest,
    reason: CheckinReason,
    explanation: string | null,
    now: number,
  ) {
    return {
      uid: crypto.randomUUID(),
      eventId: this.eventId,
      listId,
      positionId: ticketId,
      type: req.scan.type,
      datetime: req.scan.datetime,
      created: now,
      successful: false,
      errorReason: reason,
      errorExplanation: explanation,
      forced: req.scan.force,
      forceSent: req.scan.force,
      deviceId: req.scan.deviceId,
      nonce: req.scan.nonce,
      rawBarcode: req.raw,
      rawSourceType: req.sourceType,
    };
  }

  /**
   * The D1 statements of a check-in: its webhook notification (a scan's; only while the row is
   * not stored yet, so a replay reports nothing twice), the row (once, by uid), answers given
   * at the door, and the order's last_modified (other scanners' incremental sync).
   */
  private passageStatements(db: DB, p: PassageWrite, answers: Answer[] | null, condition: SQL = sql`1`): Statement[] {
    const stmts: Statement[] = [];
    if (p.report) {
      const c = p.report;
      stmts.push(
        checkinNotificationStatement(db, {
          eventId: this.eventId,
          code: c.code,
          positionId: p.ticketId,
          listId: p.listId,
          type: p.type,
          firstCheckin: c.first,
          now: p.created,
          condition: sql`${condition} AND ${checkinMissingSql(p.uid)}`,
        }),
      );
    }
    stmts.push(
      insertCheckinIf(
        db,
        {
          uid: p.uid,
          eventId: this.eventId,
          listId: p.listId,
          positionId: p.ticketId,
          type: p.type,
          datetime: p.datetime,
          created: p.created,
          successful: true,
          autoCheckedIn: p.auto,
          forced: p.forced,
          forceSent: p.forceSent ?? false,
          deviceId: p.deviceId,
          nonce: p.nonce,
          rawBarcode: p.rawBarcode,
          rawSourceType: p.rawSourceType,
        },
        condition,
      ),
      touchOrderOfPosition(db, p.ticketId, p.created, condition),
    );
    if (answers) stmts.push(setPositionAnswers(db, p.ticketId, answers, condition));
    return stmts;
  }

  /** A check-in list was created, changed or deleted (its D1 write is done): the object reads the configuration again. */
  async checkinListChanged(listId: number, deleted: boolean): Promise<null> {
    if (deleted) this.ctx.storage.transactionSync(() => this.ci.forgetList(listId));
    await this.reloadCheckinConfig();
    await this.scheduleAlarm();
    return null;
  }

  /** What the object holds of check-in (tests). */
  async checkinCounts(): Promise<{ tickets: number; passages: number }> {
    return this.ci.counts();
  }

  /**
   * Automatic exits (`exit_all_at`): everyone inside a list at that time gets an exit, then the
   * list's next one is a day later. Decided and recorded here first (so that a second alarm of
   * the same firing finds it done), written to D1 from the outbox (idempotent by `uid`, and the
   * list's `exit_all_at` moves only from the fired value).
   */
  private async runExitAll(now: number): Promise<void> {
    for (const list of [...this.config.lists.values()]) {
      const at = list.exitAllAt;
      if (at === null || at > now) continue;
      const fired = this.ci.firedExitAll(list.id);
      if (fired !== null && fired >= at) continue;
      let entry: Extract<OutboxEntry, { kind: "exit_all" }> | null = null;
      let outboxId = 0;
      this.ctx.storage.transactionSync(() => {
        const next = nextExitAllAt(at, this.config.timezone);
        const passages: PassageWrite[] = this.ci.insideAt(list.id, at).map((ticketId) => ({
          uid: crypto.randomUUID(),
          listId: list.id,
          ticketId,
          type: "exit",
          datetime: at,
          nonce: null,
          deviceId: null,
          auto: true,
          created: now,
          forced: false,
          rawBarcode: null,
          rawSourceType: null,
        }));
        for (const p of passages) {
          this.ci.addPassage(p);
          const t = this.ci.ticketById(p.ticketId);
          if (t) this.trackExit(t);
        }
        this.ci.recordExitAll(list.id, at);
        list.exitAllAt = next;
        entry = { kind: "exit_all", listId: list.id, fired: at, next, passages };
        outboxId = this.writeOutbox(entry, now);
      });
      this.inflight.add(outboxId);
      try {
        await runBatch(this.db(), this.exitAllStatements(this.db(), entry!));
        this.clearOutbox(outboxId);
      } catch (e) {
        this.inflight.delete(outboxId);
        log.error("writing automatic exits failed; the alarm retries", {
          event_id: this.eventId,
          list_id: list.id,
          error: e,
        });
      }
    }
  }

  private exitAllStatements(db: DB, e: Extract<OutboxEntry, { kind: "exit_all" }>): Statement[] {
    return [
      ...e.passages.flatMap((p) => this.passageStatements(db, p, null)),
      moveExitAllAt(db, this.eventId, e.listId, e.fired, e.next),
    ];
  }

  // ---------------------------------------------------------------- ticket secrets and blocks

  /** Puts ticket changes into the index (caller: inside transactionSync). Returns what it takes to undo them. */
  private applyTicketChanges(changes: readonly TicketChange[]): TicketUndo[] {
    return changes.map((c) => {
      const wasBlocked = this.ci.ticketById(c.positionId)?.blocked;
      const secret = this.ci.changeSecret(c.positionId, c.secret, c.newSecret, c.revoke);
      if (c.blocked !== undefined) this.ci.setBlocked(c.positionId, c.blockedAfter);
      return { secret, blocked: c.blocked !== undefined && wasBlocked !== undefined ? wasBlocked : null };
    });
  }

  private undoTicketChanges(changes: readonly TicketChange[], undo: readonly TicketUndo[]): void {
    changes.forEach((c, i) => {
      const u = undo[i]!;
      this.ci.undoSecret(u.secret);
      if (u.blocked !== null) this.ci.setBlocked(c.positionId, u.blocked);
    });
  }

  /**
   * Changes tickets of one order: new secrets (the old ones revoked, with a generator that keeps
   * a revocation list), blocks, and the order's own secret (`regenerate_secrets`,
   * `add_block`/`remove_block`; pretix orders.rst). Like a scan's decision, the change is
   * recorded in the index first, without yielding — from then on no gate admits the old secret or
   * the blocked ticket — together with an outbox entry; then D1 is written (conditionally on the
   * old secrets, so a replay writes nothing twice). Should D1 not take it, the index is restored.
   * `ok` false: a ticket's secret is not the one the caller saw (changed meanwhile); nothing changed.
   */
  async changeTickets(req: {
    orderId: number;
    code: string;
    changes: TicketChange[];
    orderSecret: string | null;
  }): Promise<{ ok: boolean }> {
    const now = Date.now();
    const entry: Extract<OutboxEntry, { kind: "tickets" }> = {
      kind: "tickets",
      orderId: req.orderId,
      code: req.code,
      changes: req.changes,
      orderSecret: req.orderSecret,
      now,
    };
    let stale = false;
    let outboxId = 0;
    let before: TicketUndo[] = [];
    this.ctx.storage.transactionSync(() => {
      stale = req.changes.some((c) => {
        const t = this.ci.ticketById(c.positionId);
        return t !== undefined && t.secret !== c.secret;
      });
      if (stale) return;
      before = this.applyTicketChanges(req.changes);
      outboxId = this.writeOutbox(entry, now);
    });
    if (stale) return { ok: false };
    this.inflight.add(outboxId);
    const ids = req.changes.map((c) => c.positionId);
    const took = (held: { id: number; secret: string }[]) =>
      req.changes.every((c) => held.find((h) => h.id === c.positionId)?.secret === c.newSecret);
    let held: { id: number; secret: string }[];
    try {
      const db = this.db();
      const results = await runBatch(db, [
        ...ticketChangeStatements(db, this.eventId, req.orderId, req.changes, now, { orderSecret: req.orderSecret }),
        positionSecretsQuery(db, this.eventId, ids),
      ]);
      held = results[results.length - 1] as { id: number; secret: string }[];
    } catch (e) {
      // Did the batch commit? D1 tells; unknown → the alarm finishes the write.
      const rows = await positionSecretsQuery(this.db(), this.eventId, ids).catch(() => null);
      if (rows === null) {
        this.inflight.delete(outboxId);
        await this.ctx.storage.setAlarm(Date.now() + 5_000);
        throw e;
      }
      if (!took(rows)) {
        this.ctx.storage.transactionSync(() => {
          this.undoTicketChanges(req.changes, before);
          this.clearOutbox(outboxId);
        });
        throw e;
      }
      held = rows;
    }
    const ok = took(held);
    this.ctx.storage.transactionSync(() => {
      // D1 held another secret than the caller saw (the index did not know the ticket): nothing was written
      if (!ok) this.undoTicketChanges(req.changes, before);
      this.clearOutbox(outboxId);
    });
    return { ok };
  }

  // ---------------------------------------------------------------- housekeeping

  /** The catalog changed in D1 (quotas, seats): reload now. */
  async catalogChanged(stamp: number): Promise<null> {
    await this.ensureCatalog(stamp);
    return null;
  }

  /** The event was deleted: forget everything (storage and memory). */
  async eventDeleted(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.ledger = new Ledger(this.book);
    this.config = EMPTY_CONFIG;
    this.inflight.clear();
    this.createTables();
  }

  /** Replays the outbox (entries of dead requests) and prunes expired carts. */
  override async alarm(): Promise<void> {
    const now = Date.now();
    const entries = [
      ...this.sql.exec<{ id: number; payload: string }>("SELECT id, payload FROM outbox ORDER BY id"),
    ].filter((e) => !this.inflight.has(e.id));
    let failed = false;
    for (const e of entries) {
      try {
        await this.replay(JSON.parse(e.payload) as OutboxEntry, now);
        this.clearOutbox(e.id);
      } catch (err) {
        log.error("outbox replay failed; retrying", { event_id: this.eventId, outbox_entry: e.id, error: err });
        failed = true;
      }
    }
    this.ctx.storage.transactionSync(() => {
      for (const hk of this.ledger.expiredCarts(now)) this.releaseCartHold(hk);
    });
    await this.runExitAll(now);
    if (this.sql.exec<{ n: number }>("SELECT count(*) AS n FROM outbox").one().n > this.inflight.size) failed = true;
    if (failed) await this.ctx.storage.setAlarm(now + 10_000);
    else await this.scheduleAlarm();
  }

  private async replay(entry: OutboxEntry, now: number): Promise<void> {
    const db = this.db();
    switch (entry.kind) {
      case "order": {
        // Roll forward: the decision was taken and recorded; make D1 hold the order.
        if (!(await orderExists(db, entry.write.order.eventId, entry.write.order.code))) {
          const auto = this.autoCheckinStatements(db, entry.write, entry.autoCheckins ?? [], now);
          const stmts = orderWriteStatements(
            db,
            entry.write,
            new Map(entry.voucherUses),
            entry.closedQuotaIds,
            now,
            auto,
          );
          await runBatch(db, stmts);
        }
        return;
      }
      case "checkin":
        await runBatch(db, this.passageStatements(db, entry.passage, entry.answers));
        if (entry.passage.report)
          dispatchWebhooks(this.env, [{ eventId: this.eventId, code: entry.passage.report.code }]);
        return;
      case "exit_all":
        await runBatch(db, this.exitAllStatements(db, entry));
        return;
      case "carts":
        await this.writeCartRows(entry.rows);
        return;
      case "tickets":
        // the index has the change already; make D1 hold it (idempotent)
        await runBatch(
          db,
          ticketChangeStatements(db, this.eventId, entry.orderId, entry.changes, entry.now, {
            orderSecret: entry.orderSecret,
          }),
        );
        return;
      case "status": {
        const { status } = await this.writeStatus(entry);
        this.ctx.storage.transactionSync(() => {
          if (status === "n" || status === "p") this.setOrderPaid(entry.code, status === "p");
          else this.dropOrderHolds(entry.code);
          if (status !== undefined) this.ci.setOrderStatus(entry.code, status as OrderStatus);
          // the tickets changed if the status did (changeSecret changes only from the old secret)
          if (status === entry.to) this.applyTicketChanges(entry.tickets ?? []);
        });
        return;
      }
    }
  }
}

const orderStatusQuery = (db: DB, orderId: number) =>
  db.select({ status: orders.status }).from(orders).where(eq(orders.id, orderId));

/** Uses per voucher among positions (demands or holds). */
function voucherUsesOf(positions: readonly { voucherId: number | null }[]): Map<number, number> {
  const uses = new Map<number, number>();
  for (const p of positions) if (p.voucherId !== null) uses.set(p.voucherId, (uses.get(p.voucherId) ?? 0) + 1);
  return uses;
}

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

/** The methods the Worker may call through `countedCall`. */
const COUNTED_METHODS = [
  "quotaAvailability",
  "availabilityStates",
  "reserveCarts",
  "deleteCarts",
  "placeOrder",
  "changeOrderStatus",
  "createVouchers",
  "updateVoucher",
  "deleteVoucher",
  "catalogChanged",
  "eventDeleted",
  "redeem",
  "checkinListChanged",
  "checkinCounts",
  "changeTickets",
] as const;
type CountedMethod = (typeof COUNTED_METHODS)[number];

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
