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
import { type Answer, CallCounting, type ObjectCall } from "./counting";
import { debugAidsAsked, objectDebugEnv } from "../../db/debug-aids";
import { withBookmarks } from "../../db/sessions";
import * as orderChanges from "./order-changes";
import * as orders from "./orders";
import { drainOutbox, writeBehind as writeBehindOf } from "./writer";
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
  /** The bindings the jobs work on, for the `env` they were made from (`bindings`). */
  private bound: { given: Env; env: Env } | null = null;

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env);
    const reads = countStartReads(ctx.storage.sql);
    this.s = new EventState(ctx, reads.sql, () => this.bindings());
    this.live = new LiveAvailability(this.s);
    ctx.blockConcurrencyWhile(async () => {
      createTables(this.s);
      const now = Date.now();
      this.started = restoreHolds(this.s, reads, now);
      await loadAndWake(this.s, this.counting);
    });
  }

  /**
   * The bindings: `this.env`, or what the debugging aids make of it when one is asked
   * (db/debug-aids.ts); asked again only when `this.env` is another (tests give a running object
   * other bindings).
   */
  private bindings(): Env {
    if (this.bound?.given !== this.env)
      this.bound = { given: this.env, env: debugAidsAsked(this.env) ? objectDebugEnv(this.env) : this.env };
    return this.bound.env;
  }

  /**
   * A call of the Worker (objects/client.ts): in the organizer group `call` names, `work`'s value
   * with the D1 bookmark of its writes (and its round trips when the request counts them);
   * `writeBehind`: D1 gets what it answered from storage after the answer.
   */
  private async answer<T>(call: ObjectCall, work: () => Promise<T>, writeBehind = false): Promise<Answer<T>> {
    // the organizer moved to another group: the catalog is read again from its database
    if (this.s.useGroup(call.group)) {
      dropLeases(this.s);
      this.s.ledger.setCatalog(await this.s.loadCatalog());
    }
    const run = () => withBookmarks(work);
    const answer = call.countTrips ? await this.counting.call(run, this.started) : await run();
    // outside the call's bookmarks and counting
    if (writeBehind) await writeBehindOf(this.s);
    return answer;
  }

  /** What this instance read from its storage when it started (tests). */
  startReport(): ObjectStart {
    return { ...this.started };
  }

  // ---------------------------------------------------------------- sales

  quotaAvailability(
    call: ObjectCall,
    stamp: number,
    quotaIds: number[],
  ): Promise<Answer<Record<number, Availability>>> {
    return this.answer(call, () => this.changing(availability.quotaAvailability(this.s, stamp, quotaIds)));
  }

  /** Availability states (100/20/10/0, null: not counted) of products on dates. */
  availabilityStates(
    call: ObjectCall,
    stamp: number,
    demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
  ): Promise<Answer<(number | null)[]>> {
    return this.answer(call, () => this.changing(availability.availabilityStates(this.s, stamp, demands)));
  }

  /** Products on dates as a shop shows them: state and units left, null where no quota covers one. */
  productAvailabilities(
    call: ObjectCall,
    stamp: number,
    demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
  ): Promise<Answer<({ state: number; left: number | null } | null)[]>> {
    return this.answer(call, () => this.changing(availability.productAvailabilities(this.s, stamp, demands)));
  }

  /** Reserves cart positions, each group decided on its own. */
  reserveCarts(call: ObjectCall, stamp: number, groups: CartGroup[]): Promise<Answer<Decision[]>> {
    return this.answer(call, () => this.changing(carts.reserveCarts(this.s, stamp, groups)));
  }

  /** Deletes cart positions (D1 first, then their holds). Returns the hold keys deleted. */
  deleteCarts(call: ObjectCall, holdKeys: string[]): Promise<Answer<string[]>> {
    return this.answer(call, () => this.changing(carts.deleteCarts(this.s, holdKeys)));
  }

  /** Places an order; one answered from storage is written to D1 after its answer (`writeBehind`). */
  placeOrder(call: ObjectCall, stamp: number, req: OrderRequest): Promise<Answer<OrderDecision>> {
    return this.answer(call, () => this.changing(orders.placeOrder(this.s, stamp, req)), true);
  }

  changeOrderStatus(call: ObjectCall, stamp: number, req: StatusChange): Promise<Answer<StatusDecision>> {
    return this.answer(call, () => this.changing(orders.changeOrderStatus(this.s, stamp, req)));
  }

  /** Changes an order's contents in one decision (order-changes.ts). */
  changeOrder(call: ObjectCall, stamp: number, req: OrderChangeRequest): Promise<Answer<OrderChangeDecision>> {
    return this.answer(call, () => this.changing(orderChanges.changeOrder(this.s, stamp, req)));
  }

  // ---------------------------------------------------------------- vouchers

  createVouchers(call: ObjectCall, stamp: number, rows: VoucherRow[]): Promise<Answer<CreateVouchersResult>> {
    return this.answer(call, () => this.changing(vouchers.createVouchers(this.s, stamp, rows)));
  }

  updateVoucher(
    call: ObjectCall,
    stamp: number,
    id: number,
    values: VoucherColumns,
  ): Promise<Answer<UpdateVoucherResult>> {
    return this.answer(call, () => this.changing(vouchers.updateVoucher(this.s, stamp, id, values)));
  }

  deleteVoucher(call: ObjectCall, stamp: number, id: number): Promise<Answer<DeleteVoucherResult>> {
    return this.answer(call, () => this.changing(vouchers.deleteVoucher(this.s, stamp, id)));
  }

  // ---------------------------------------------------------------- waiting list

  /** Gives waiting entries vouchers, as many as fit, in order (waitinglist.ts). */
  assignWaitingList(
    call: ObjectCall,
    stamp: number,
    req: waitinglist.WaitingAssignment,
  ): Promise<Answer<waitinglist.WaitingOutcome>> {
    return this.answer(call, () => this.changing(waitinglist.assignWaitingList(this.s, stamp, req)));
  }

  /** What is left of products on dates (a waiting entry may only wait for what is not available). */
  productRooms(
    call: ObjectCall,
    stamp: number,
    demands: Pick<Demand, "itemId" | "variationId" | "subeventId">[],
  ): Promise<Answer<waitinglist.ProductRoom[]>> {
    return this.answer(call, () => waitinglist.productRooms(this.s, stamp, demands));
  }

  // ---------------------------------------------------------------- admission

  /** Decides a scan; one answered from the object's storage is written to D1 after its answer (`writeBehind`). */
  redeem(call: ObjectCall, req: RedeemRequest): Promise<Answer<RedeemOutcome>> {
    return this.answer(call, () => this.changing(admission.redeem(this.s, req)), true);
  }

  /**
   * Waits until D1 has what the object answered before D1 had it (a reader that must see the
   * latest orders and scans, tests). True when it does; what running requests write before
   * they answer is theirs to wait for.
   */
  settle(call: ObjectCall): Promise<Answer<boolean>> {
    return this.answer(call, () => drainOutbox(this.s));
  }

  /** Takes back a successful check-in (pretix `checkinrpc/annul`): the ticket is no longer inside. */
  annul(call: ObjectCall, req: AnnulRequest): Promise<Answer<AnnulOutcome>> {
    return this.answer(call, () => this.changing(annulment.annul(this.s, req)));
  }

  checkinListChanged(call: ObjectCall, listId: number, deleted: boolean): Promise<Answer<null>> {
    return this.answer(call, () => admission.checkinListChanged(this.s, listId, deleted));
  }

  /** Something else its scans decide on changed in D1 (a question asked at check-in): the configuration is read again. */
  checkinConfigChanged(call: ObjectCall): Promise<Answer<null>> {
    return this.answer(call, async () => {
      await this.s.reloadCheckinConfig();
      return null;
    });
  }

  /** What the object holds of check-in (tests). */
  async checkinCounts(): Promise<{ tickets: number; passages: number }> {
    return this.s.ci.counts();
  }

  changeTickets(call: ObjectCall, req: TicketsChange): Promise<Answer<{ ok: boolean }>> {
    return this.answer(call, () => tickets.changeTickets(this.s, req));
  }

  // ---------------------------------------------------------------- housekeeping

  /** The catalog changed in D1 (quotas, seats): reload now. */
  catalogChanged(call: ObjectCall, stamp: number): Promise<Answer<null>> {
    return this.answer(call, async () => {
      await this.changing(this.s.ensureCatalog(stamp));
      return null;
    });
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
