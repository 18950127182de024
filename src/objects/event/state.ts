/**
 * The event object's state, which every job of the object works on: its own storage, the ledger
 * over it, the ticket index and the check-in configuration, the outbox, its D1 handle and the
 * catalog's loads.
 */
import { createDb, type DB } from "../../db/client";
import { readCheckinCatalog, readInventoryCatalog } from "../../db/inventory";
import { primarySession } from "../../db/sessions";
import { groupEnv, groupOfId } from "../../lib/data-groups";
import type { Env } from "../../lib/env";
import { type Catalog, catalogFromRows, Ledger } from "../../rules/inventory";
import { type CheckinConfig, CheckinState, checkinConfigFromRows, EMPTY_CONFIG } from "./checkin-state";
import { SqlOrderBook } from "./order-book";
import { Outbox } from "./outbox";

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
  /** The outbox: the decisions D1 does not have yet, and all this instance knows of them (outbox.ts). */
  readonly outbox: Outbox;
  /** Orders with a change of contents being written (order-changes.ts: one at a time per order). */
  readonly changingOrders = new Set<string>();
  /** The waiting list's assignment running last (waitinglist.ts: one after the other). */
  waitingRun: Promise<unknown> = Promise.resolve();
  /**
   * The time of the alarm this instance set (schedule.ts), null when none is set or the set one
   * has fired; undefined until the instance has asked its storage once.
   */
  alarmAt: number | null | undefined = undefined;
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
    this.outbox = new Outbox(sql);
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
    this.outbox.forget();
    this.changingOrders.clear();
    this.alarmAt = null;
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
}
