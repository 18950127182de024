/**
 * The event's Durable Object (one per event, named by the event id): the single place where
 * capacity and admission decisions are taken. Its invariants (docs/event-object.md): decide without
 * yielding, durable before acknowledged (outbox.ts), no lost capacity, one door (every change of
 * a decision's input is a method here, or bumps the inventory stamp every call carries). This
 * class is its door: each method hands its work to the job's module, on the state they share.
 */
import { DurableObject } from "cloudflare:workers";
import type { Env } from "../../lib/env";
import type { Availability, Demand } from "../../rules/inventory";
import * as admission from "./admission";
import * as annulment from "./annul";
import { runAlarm } from "./alarm";
import * as availability from "./availability";
import * as carts from "./carts";
import { LiveAvailability } from "./live";
import type { LiveSnapshot } from "../live/snapshot";
import { CallCounting, type CountedAnswer, type CountedMethod } from "./counting";
import * as orderChanges from "./order-changes";
import * as orders from "./orders";
import { drainOutbox, writeBehind } from "./writer";
import { dropLeases } from "./id-leases";
import { countStartReads, createTables, loadAndWake, restoreHolds } from "./start";
import { EventState } from "./state";
import * as tickets from "./tickets";
import type {
  AnnulOutcome,
  AnnulRequest,
  CartGroup,
  CreateVouchersResult,
  Decision,
  DeleteVoucherResult,
  ObjectStart,
  OrderChangeDecision,
  OrderChangeRequest,
  OrderDecision,
  OrderRequest,
  RedeemOutcome,
  RedeemRequest,
  StatusChange,
  StatusDecision,
  TicketsChange,
  UpdateVoucherResult,
  VoucherColumns,
  VoucherRow,
} from "./types";
import * as vouchers from "./vouchers";
import * as waitinglist from "./waitinglist";

export class EventObject extends DurableObject<Env> {
  private readonly s: EventState;
  private readonly counting = new CallCounting();
  /** Live availability: pushes the state to the event's hub after changes (live.ts). */
  private readonly live: LiveAvailability;
  /** What this instance read from its storage when it started. */
  private started: ObjectStart = { rowsRead: 0, heldPositions: 0 };

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const reads = countStartReads(ctx.storage.sql);
    this.s = new EventState(ctx, reads.sql, () => this.env);
    this.live = new LiveAvailability(this.s);
    ctx.blockConcurrencyWhile(async () => {
      createTables(this.s);
      const now = Date.now();
      this.started = restoreHolds(this.s, reads, now);
      await loadAndWake(this.s, this.counting);
    });
  }

  /**
   * Runs one of the methods below and answers its result with the D1 bookmark of its work and
   * its round trips (counting.ts). The Worker's door (objects/client.ts) calls every method
   * through this, saying the organizer group whose database holds the event.
   */
  async countedCall(method: CountedMethod, args: unknown[], group: number): Promise<CountedAnswer> {
    // the organizer moved to another group: the catalog is read again from its database
    if (this.s.useGroup(group)) {
      dropLeases(this.s);
      this.s.ledger.setCatalog(await this.s.loadCatalog());
    }
    const fn = () => (this[method] as (...a: unknown[]) => Promise<unknown>).apply(this, args);
    const answer = await this.counting.call(method, fn, this.started);
    // a scan or an order answered from storage: D1 gets it after the answer, outside the call's counting and bookmarks
    if (method === "redeem" || method === "placeOrder") await writeBehind(this.s);
    return answer;
  }

  /** What this instance read from its storage when it started (tests). */
  startReport(): ObjectStart {
    return { ...this.started };
  }

  // ---------------------------------------------------------------- sales

  quotaAvailability(stamp: number, quotaIds: number[]): Promise<Record<number, Availability>> {
    return this.changing(availability.quotaAvailability(this.s, stamp, quotaIds));
  }

  /** Availability states (100/20/10/0, null: not counted) of products on dates. */
  availabilityStates(
    stamp: number,
    demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
  ): Promise<(number | null)[]> {
    return this.changing(availability.availabilityStates(this.s, stamp, demands));
  }

  /** Reserves cart positions, each group decided on its own. */
  reserveCarts(stamp: number, groups: CartGroup[]): Promise<Decision[]> {
    return this.changing(carts.reserveCarts(this.s, stamp, groups));
  }

  /** Deletes cart positions (D1 first, then their holds). Returns the hold keys deleted. */
  deleteCarts(holdKeys: string[]): Promise<string[]> {
    return this.changing(carts.deleteCarts(this.s, holdKeys));
  }

  placeOrder(stamp: number, req: OrderRequest): Promise<OrderDecision> {
    return this.changing(orders.placeOrder(this.s, stamp, req));
  }

  changeOrderStatus(stamp: number, req: StatusChange): Promise<StatusDecision> {
    return this.changing(orders.changeOrderStatus(this.s, stamp, req));
  }

  /** Changes an order's contents in one decision (order-changes.ts). */
  changeOrder(stamp: number, req: OrderChangeRequest): Promise<OrderChangeDecision> {
    return this.changing(orderChanges.changeOrder(this.s, stamp, req));
  }

  // ---------------------------------------------------------------- vouchers

  createVouchers(stamp: number, rows: VoucherRow[]): Promise<CreateVouchersResult> {
    return this.changing(vouchers.createVouchers(this.s, stamp, rows));
  }

  updateVoucher(stamp: number, id: number, values: VoucherColumns): Promise<UpdateVoucherResult> {
    return this.changing(vouchers.updateVoucher(this.s, stamp, id, values));
  }

  deleteVoucher(stamp: number, id: number): Promise<DeleteVoucherResult> {
    return this.changing(vouchers.deleteVoucher(this.s, stamp, id));
  }

  // ---------------------------------------------------------------- waiting list

  /** Gives waiting entries vouchers, as many as fit, in order (waitinglist.ts). */
  assignWaitingList(stamp: number, req: waitinglist.WaitingAssignment): Promise<waitinglist.WaitingOutcome> {
    return this.changing(waitinglist.assignWaitingList(this.s, stamp, req));
  }

  /** What is left of products on dates (a waiting entry may only wait for what is not available). */
  productRooms(
    stamp: number,
    demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
  ): Promise<waitinglist.ProductRoom[]> {
    return waitinglist.productRooms(this.s, stamp, demands);
  }

  // ---------------------------------------------------------------- admission

  /** Decides a scan; one answered from the object's storage is written to D1 after its answer (`writeBehind`). */
  redeem(req: RedeemRequest): Promise<RedeemOutcome> {
    return this.changing(admission.redeem(this.s, req));
  }

  /**
   * Waits until D1 has what the object answered before D1 had it (a reader that must see the
   * latest orders and scans, tests). True when it does; what running requests write before
   * they answer is theirs to wait for.
   */
  settle(): Promise<boolean> {
    return drainOutbox(this.s);
  }

  /** Takes back a successful check-in (pretix `checkinrpc/annul`): the ticket is no longer inside. */
  annul(req: AnnulRequest): Promise<AnnulOutcome> {
    return this.changing(annulment.annul(this.s, req));
  }

  checkinListChanged(listId: number, deleted: boolean): Promise<null> {
    return admission.checkinListChanged(this.s, listId, deleted);
  }

  /** Something else its scans decide on changed in D1 (a question asked at check-in): the configuration is read again. */
  async checkinConfigChanged(): Promise<null> {
    await this.s.reloadCheckinConfig();
    return null;
  }

  /** What the object holds of check-in (tests). */
  async checkinCounts(): Promise<{ tickets: number; passages: number }> {
    return this.s.ci.counts();
  }

  changeTickets(req: TicketsChange): Promise<{ ok: boolean }> {
    return tickets.changeTickets(this.s, req);
  }

  // ---------------------------------------------------------------- housekeeping

  /** The catalog changed in D1 (quotas, seats): reload now. */
  async catalogChanged(stamp: number): Promise<null> {
    await this.changing(this.s.ensureCatalog(stamp));
    return null;
  }

  /** The event was deleted: forget everything (storage and memory). */
  async eventDeleted(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
    this.s.forget();
    createTables(this.s);
  }

  /** Prunes expired carts, fires automatic exits, has the writer write what waits (alarm.ts). */
  override alarm(): Promise<void> {
    return this.changing(runAlarm(this.s));
  }

  // ---------------------------------------------------------------- live availability

  /** The state the live availability shows now; with `watch`, the object pushes it to the hub after changes. */
  watchLive(watch: boolean): Promise<LiveSnapshot> {
    return this.live.watch(watch);
  }

  /** `work` changes what the ledger counts: once it is done (or failed), the live state is due. */
  private changing<T>(work: Promise<T>): Promise<T> {
    return work.finally(() => this.live.changed());
  }
}
