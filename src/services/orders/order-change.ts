/**
 * Changing an order's contents (pretix docs orders.rst "Changing order contents", and a
 * position's DELETE): planned with order creation's rules (order-change-plan.ts), decided whole
 * by the event object (capacity, seats and vouchers taken and freed in one decision) and written
 * in one conditional D1 batch; a stale change answers 409. Then the invoice follows (a
 * cancellation and a new invoice), the mail (`send_email`) and the webhook `pretix.event.order.changed`.
 */
import { addonCategoriesOf, type PositionPatch } from "../../db/order-changes";
import type { TicketChange } from "../../db/ticket-secrets";
import { findOrder, type OrderRecord, toOrderRecord } from "../../db/orders";
import { changedMeanwhile, validationError } from "../../lib/failure";
import { dispatchWebhooks } from "../../lib/queues";
import { withEventObject } from "../../objects/client";
import type { OrderChangeDecision } from "../../objects/event/types";
import { ticketValidity, validityStart } from "../../rules/checkin";
import { orderExpiry } from "../../rules/orders";
import { refusalErrors } from "../../rules/refusals";
import type { EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { invoicesAfterOrderChange, reissueInvoices } from "../invoices/invoices";
import type { OrderChangeInput, PositionPatchBody } from "./order-change-input";
import { type ChangePlan, changeRefusal, checkReferences, planChange } from "./order-change-plan";
import { loadOrder, notifyOrder } from "./order-status";
import { loadSalesCatalog } from "./sales-catalog";
import { positionInsert } from "./positions";
import { eventSecretGenerator, secretFacts } from "../tickets/ticket-changes";
import { assignSecret, secretGenerator, SIG1 } from "../tickets/ticket-secrets";
import { offerFreedCapacity } from "../waitinglist/waitinglist-assign";

const CHANGED_MEANWHILE = "The order was changed meanwhile; read it again and repeat the change.";

export type ChangeOptions = { checkQuotas: boolean };

/** `POST .../orders/{code}/change/`: the order as it is afterwards. */
export const changeOrderContents = survivingD1Faults(async function changeOrderContents(
  ctx: EventContext,
  code: string,
  input: OrderChangeInput,
  opts: ChangeOptions,
): Promise<OrderRecord> {
  const r = await loadOrder(ctx, code);
  if (r.order.status !== "n" && r.order.status !== "p")
    throw changeRefusal("Only pending or paid orders can be changed.");
  checkReferences(r, input);
  const plan = await planFor(ctx, r, input);
  const after = await commitChange(ctx, r, plan, opts);
  await afterChange(ctx, r, after, input, plan);
  return after;
});

/**
 * A position's DELETE (pretix: the ticket is canceled, never the order's last one). Answers
 * nothing; the order is changed as a `cancel_positions` change with pretix's defaults.
 */
export const cancelPosition = survivingD1Faults(async function cancelPosition(
  ctx: EventContext,
  r: OrderRecord,
  positionId: number,
): Promise<void> {
  if (r.order.status !== "n" && r.order.status !== "p")
    throw changeRefusal("Only pending or paid orders can be changed.");
  const live = r.positions.filter((p) => !p.canceled && p.addon_to === null);
  if (live.length === 1 && live[0]!.id === positionId)
    throw changeRefusal("This operation would leave the order empty. Please cancel the order itself instead.");
  const input: OrderChangeInput = { cancel_positions: [{ position: positionId }] };
  const plan = await planFor(ctx, r, input);
  const after = await commitChange(ctx, r, plan, { checkQuotas: true });
  await afterChange(ctx, r, after, input, plan);
});

/**
 * A position's PATCH (pretix "Manipulating individual positions"): the same change as a
 * `patch_positions` entry of the order change, without a mail; the order afterwards.
 */
export const changePosition = survivingD1Faults(async function changePosition(
  ctx: EventContext,
  r: OrderRecord,
  positionId: number,
  body: PositionPatchBody,
  opts: ChangeOptions,
): Promise<OrderRecord> {
  if (r.order.status !== "n" && r.order.status !== "p")
    throw changeRefusal("Only pending or paid orders can be changed.");
  const input: OrderChangeInput = { patch_positions: [{ position: positionId, body }] };
  checkReferences(r, input);
  const plan = await planFor(ctx, r, input);
  if (plan.patches.every((p) => Object.keys(p.set).length === 0)) return r;
  const after = await commitChange(ctx, r, plan, opts);
  await afterChange(ctx, r, after, input, plan);
  return after;
});

/** Reads what the plan needs (the catalog of every product involved, add-on rules) and plans. */
async function planFor(ctx: EventContext, r: OrderRecord, input: OrderChangeInput): Promise<ChangePlan> {
  const { db, event, organizer: org } = ctx;
  const bodies = [...(input.patch_positions ?? []).map((p) => p.body), ...(input.create_positions ?? [])];
  const ids = (xs: (number | null | undefined)[]) => [...new Set(xs.filter((x): x is number => typeof x === "number"))];
  const live = r.positions.filter((p) => !p.canceled);
  const [catalog, addonCategories] = await Promise.all([
    loadSalesCatalog(db, org.id, event.id, {
      itemIds: ids([...bodies.map((b) => b.item), ...live.map((p) => p.item)]),
      variationIds: ids([...bodies.map((b) => b.variation), ...live.map((p) => p.variation)]),
      subeventIds: ids([...bodies.map((b) => b.subevent), ...live.map((p) => p.subevent)]),
      voucherCodes: [],
      questionIds: bodies.flatMap((b) => (b.answers ?? []).map((a) => a.question)),
      seatGuids: [...new Set([...bodies.map((b) => b.seat), ...live.map((p) => p.seat)])].filter(
        (x): x is string => typeof x === "string",
      ),
      eventSeatingPlanId: event.seatingPlanId,
      signingKeyScheme: SIG1,
    }),
    addonCategoriesOf(db, ids(live.map((p) => p.item))),
  ]);
  const plan = planChange({ event, catalog, now: ctx.now, addonCategories }, r, input, catalog.stamp);
  await addCreates(ctx, r, plan, catalog);
  plan.tickets = await newSecrets(ctx, r, plan);
  return plan;
}

/** The new positions' rows: their secrets from the event's generator, their validity from the product. */
async function addCreates(
  ctx: EventContext,
  r: OrderRecord,
  plan: ChangePlan,
  catalog: Awaited<ReturnType<typeof loadSalesCatalog>>,
): Promise<void> {
  if (plan.prepared.length === 0) return;
  const { event, db, now } = ctx;
  const generator = await secretGenerator(ctx.env, db, event.id, catalog.settings, now, catalog.signingKey);
  for (const { body, p, positionid, addonTo } of plan.prepared) {
    const item = catalog.items.get(p.itemId)!;
    const validity =
      body.valid_from !== undefined || body.valid_until !== undefined
        ? { validFrom: body.valid_from ?? null, validUntil: body.valid_until ?? null }
        : ticketValidity(item, validityStart(item, now, null), event.timezone);
    const secret = await generator.generate(
      { itemId: p.itemId, variationId: p.variationId, subeventId: p.subeventId, ...validity },
      null,
      false,
    );
    const base = addonTo === null ? undefined : r.positions.find((x) => x.positionid === addonTo);
    plan.creates.push({
      ...positionInsert(p, event.id, { positionid, secret, addonToPositionid: addonTo, voucherId: null, validity }),
      baseName: base?.attendee_name ?? null,
    });
  }
}

/**
 * The new secrets of changed tickets, as pretix's `assign_ticket_secret`: a signed secret encodes
 * the product, date and validity, so it is reissued when they change (the old one revoked); a
 * random secret stays.
 */
async function newSecrets(ctx: EventContext, r: OrderRecord, plan: ChangePlan): Promise<TicketChange[]> {
  const touched = plan.patches.filter((p) =>
    ["itemId", "variationId", "subeventId", "validFrom", "validUntil"].some((k) => k in p.set),
  );
  if (touched.length === 0) return [];
  const gen = await eventSecretGenerator(ctx);
  const out: TicketChange[] = [];
  for (const { id, set } of touched) {
    const pos = r.positions.find((x) => x.id === id)!;
    const facts = { ...secretFacts(pos), ...pick(set) };
    const a = await assignSecret(gen, facts, pos.secret);
    if (a.changed)
      out.push({
        positionId: id,
        secret: pos.secret,
        newSecret: a.secret,
        revoke: a.revoke,
        blockedAfter: (pos.blocked?.length ?? 0) > 0,
      });
  }
  return out;
}

/** The secret's facts among a patch's columns. */
function pick(set: PositionPatch["set"]) {
  const out: Partial<ReturnType<typeof secretFacts>> = {};
  if (set.itemId !== undefined) out.itemId = set.itemId;
  if (set.variationId !== undefined) out.variationId = set.variationId;
  if (set.subeventId !== undefined) out.subeventId = set.subeventId;
  if (set.validFrom !== undefined) out.validFrom = set.validFrom;
  if (set.validUntil !== undefined) out.validUntil = set.validUntil;
  return out;
}

/** The event object decides the whole change and writes it; refusals become 400, a stale change 409. */
/** Whether a change may free a unit the waiting list waits for: a ticket canceled or moved. */
function freesCapacity(plan: ChangePlan): boolean {
  return (
    plan.cancelPositionIds.length > 0 ||
    plan.patches.some((p) => "itemId" in p.set || "variationId" in p.set || "subeventId" in p.set)
  );
}

async function commitChange(
  ctx: EventContext,
  r: OrderRecord,
  plan: ChangePlan,
  opts: ChangeOptions,
): Promise<OrderRecord> {
  const { event, db } = ctx;
  const now = Math.max(Date.now(), r.order.lastModified + 1);
  const decision = await withEventObject<OrderChangeDecision>(ctx.env, event, (s, call) =>
    s.changeOrder(call, plan.stamp, {
      code: r.order.code,
      paid: r.order.status === "p",
      kept: plan.kept,
      demands: plan.demands.map((d) => d.demand),
      ignoreQuota: !opts.checkQuotas,
      write: {
        orderId: r.order.id,
        eventId: event.id,
        code: r.order.code,
        expectedModified: r.order.lastModified,
        now,
        total: plan.total,
        pendingExpires: orderExpiry(event, plan.settings, now),
        patches: plan.patches,
        cancelPositionIds: plan.cancelPositionIds,
        creates: plan.creates,
        feePatches: plan.feePatches,
        cancelFeeIds: plan.cancelFeeIds,
        feeCreates: plan.feeCreates,
        voucherReleases: plan.voucherReleases,
        tickets: plan.tickets,
      },
    }),
  );
  if (!decision.ok && "refusals" in decision) throw validationError(refusalErrors(decision.refusals));
  if (!decision.ok) throw changedMeanwhile(CHANGED_MEANWHILE);
  dispatchWebhooks(ctx.env, [{ eventId: event.id, code: r.order.code }]);
  if (freesCapacity(plan)) await offerFreedCapacity(ctx);
  return decision.order
    ? toOrderRecord(decision.order)
    : (await readAfterWrite(() => findOrder(db, event.id, r.order.code)))!;
}

/** The invoice (reissued: a cancellation and a new one, as pretix) and the mail. */
async function afterChange(
  ctx: EventContext,
  r: OrderRecord,
  after: OrderRecord,
  input: OrderChangeInput,
  plan: ChangePlan,
) {
  const scope = { env: ctx.env, db: ctx.db, event: ctx.event, now: Date.now() };
  if ((input.reissue_invoice ?? true) && r.invoicing.live > 0 && invoiceDirty(plan))
    await reissueInvoices(scope, after);
  else await invoicesAfterOrderChange(scope, after.order.code, after.order.status, { invoicing: after.invoicing });
  if (input.send_email ?? false) await notifyOrder(ctx, "order_changed", after);
}

/** Columns of a position an invoice shows (pretix reissues only when the change touches one of them). */
const INVOICED = new Set(["itemId", "variationId", "subeventId", "price", "taxRate", "taxValue", "taxRuleId"]);

/** Whether the change alters what the order's invoice says (pretix's `_invoice_dirty`). */
function invoiceDirty(plan: ChangePlan): boolean {
  return (
    plan.creates.length > 0 ||
    plan.cancelPositionIds.length > 0 ||
    plan.feePatches.length > 0 ||
    plan.cancelFeeIds.length > 0 ||
    plan.feeCreates.length > 0 ||
    plan.patches.some((p) => Object.keys(p.set).some((k) => INVOICED.has(k)))
  );
}
