/**
 * The event object's state, which every job of the object works on: its own storage, the ledger
 * over it, the ticket index and the check-in configuration, its D1 handle, the catalog's loads
 * and the time of its next alarm.
 */
import { createDb, type DB } from "../../db/client";
import { readCheckinCatalog, readInventoryCatalog } from "../../db/inventory";
import { primarySession } from "../../db/sessions";
import { groupEnv, groupOfId } from "../../lib/data-groups";
import type { Env } from "../../lib/env";
import { type Catalog, catalogFromRows, Ledger } from "../../rules/inventory";
import { type CheckinConfig, CheckinState, checkinConfigFromRows, EMPTY_CONFIG } from "./checkin-state";
import { SqlOrderBook } from "./order-book";

const GROUP_KEY = "data_group";

export class EventState {
  readonly eventId: number;
  readonly storage: DurableObjectStorage;
  /** The object's SQLite (`storage.sql`; start.ts counts what the start reads through it). */
  readonly sql: SqlStorage;
  /** The orders' holds, in the object's storage. */
  readonly book: SqlOrderBook;
  /** Capacity decisions: the book's orders, the carts (in memory, rows in storage), the catalog. */
  ledger: Ledger;
  /** Check-in: the ticket index and passages (own storage). */
  readonly ci: CheckinState;
  /** Check-in: the lists' configuration (from D1, read in the catalog's batch). */
  config: CheckinConfig = EMPTY_CONFIG;
  /** Outbox entries whose request is still running in this instance. */
  readonly inflight = new Set<number>();
  /** Voucher codes (lower case) whose creation is running in this instance. */
  readonly codesInFlight = new Map<string, Promise<void>>();
  /**
   * The organizer group whose database holds the event: as a caller last said it (kept in the
   * object's storage), else the group whose id range the event id is in (where it was created).
   */
  private group: number;
  private catalogLoad: Promise<void> | null = null;
  private configLoad: Promise<void> | null = null;

  /** `env`: the object's bindings, read at every use (tests give a running object a faulty D1). */
  constructor(
    ctx: DurableObjectState,
    sql: SqlStorage,
    private readonly currentEnv: () => Env,
  ) {
    this.storage = ctx.storage;
    this.sql = sql;
    this.eventId = Number(ctx.id.name);
    this.group = ctx.storage.kv.get<number>(GROUP_KEY) ?? groupOfId(this.eventId);
    this.ci = new CheckinState(sql);
    this.book = new SqlOrderBook(sql);
    this.ledger = new Ledger(this.book);
  }

  /** The bindings of the event's organizer group (its database as `DB`, queues that say the group). */
  get env(): Env {
    return groupEnv(this.currentEnv(), this.group);
  }

  /** D1 in a session at the primary (the bindings as the debugging aids make them, when asked: object.ts). */
  db(): DB {
    return createDb(primarySession(this.env.DB));
  }

  /**
   * The group a caller says the event's organizer is in. True when that is news (the organizer
   * was moved): the object works on that group's database from now on.
   */
  useGroup(group: number): boolean {
    if (group === this.group) return false;
    this.group = group;
    this.storage.kv.put(GROUP_KEY, group);
    return true;
  }

  /** The event was deleted: what the object holds in memory goes (its storage is emptied by the caller). */
  forget(): void {
    this.ledger = new Ledger(this.book);
    this.config = EMPTY_CONFIG;
    this.inflight.clear();
  }

  // ---------------------------------------------------------------- the catalog

  /** The catalog (quotas, vouchers) and, read in the same batch, the check-in configuration. */
  async loadCatalog(): Promise<Catalog> {
    const rows = await readInventoryCatalog(this.db(), this.eventId);
    this.config = checkinConfigFromRows(rows.checkin);
    return catalogFromRows(rows);
  }

  /** A reload of the check-in configuration under way, if any. */
  get configLoading(): Promise<void> | null {
    return this.configLoad;
  }

  /** Reads the check-in configuration again (a list changed, or D1 says items or questions did). */
  reloadCheckinConfig(): Promise<void> {
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
  async ensureCatalog(stamp: number): Promise<void> {
    if (stamp <= this.ledger.stamp) return;
    if (this.catalogLoad) await this.catalogLoad;
    if (stamp <= this.ledger.stamp) return;
    // a load begun after this call arrived (by this call or another) sees the caller's change
    this.catalogLoad ??= this.loadCatalog()
      .then((c) => this.ledger.setCatalog(c))
      .finally(() => (this.catalogLoad = null));
    await this.catalogLoad;
  }

  // ---------------------------------------------------------------- the alarm's time

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

  /** Sets the alarm to the next cart expiry or automatic exit, unless it is due earlier already. */
  async scheduleAlarm(): Promise<void> {
    const carts = this.ledger.nextCartExpiry();
    const exits = this.nextExitAll();
    const current = await this.storage.getAlarm();
    const candidates = [carts === null ? null : carts + 1000, exits].filter((x): x is number => x !== null);
    const want = candidates.length ? Math.min(...candidates) : null;
    if (want !== null && (current === null || current > want)) await this.storage.setAlarm(want);
  }
}
