/**
 * Order creation (docs/api.md; pretix docs orders.rst for what docs/api.md
 * leaves open, docs/open-points.md row 28): the one service that creates an order (its input: order-input.ts).
 */
import { dispatchWebhooks } from "../../lib/queues";
import type { FeeInsert, OrderWrite, PositionInsert } from "../../db/order-writes";
import { findOrder, toOrderRecord, type OrderRecord } from "../../db/orders";
import { secretsTakenByOthers } from "../../db/sales-catalog";
import { i18nText, type I18n } from "../../lib/i18n";
import type { MailInsert } from "../../db/mail";
import { withEventObject } from "../../objects/client";
import type { AdmissionClaim, OrderDecision } from "../../objects/event/types";
import type { EventContext } from "../context";
import { readAfterWrite, survivingD1Faults } from "../faults";
import { decidedByObject, replicaFirst, StaleCatalog } from "./replica-first";
import { SALES_CHANNELS } from "../../rules/events";
import {
  badRequest,
  Failure,
  type FieldErrors,
  fieldError,
  invalidPk,
  isFailure,
  Problems,
  validationError,
} from "../../lib/failure";
import {
  invoiceQualified,
  invoicesAfterOrderChange,
  mailCarriesInvoice,
  wantsAutomaticInvoice,
} from "../invoices/invoices";
import { answeredOrderRecord, scanRowTemplates } from "./order-answer";
import { checkPositionIds, feeInsert, invoiceAddressErrors, invoiceAddressOf, type OrderInput } from "./order-input";
import { orderMail, type OrderMailFacts } from "../mail/order-mails";
import { isPaymentProvider, newOrderCode, newOrderSecret, orderExpiry } from "../../rules/orders";
import { manualPaymentText } from "../../rules/payments";
import {
  collectRefs,
  discountPositions,
  positionInsert,
  preparePosition,
  type PositionInput,
  type PreparedPosition,
  seatName,
} from "./positions";
import { ticketValidity, type Validity, validityStart } from "../../rules/checkin";
import { secretGenerator, SIG1 } from "../tickets/ticket-secrets";
import { orderRefusalErrors } from "../../rules/refusals";
import { loadSalesCatalog, type SalesCatalog } from "./sales-catalog";
import { admissionUsedUp, passSaleGate, type SaleCaller } from "../waiting-room/gate";
import { orderUrl } from "../../rules/urls";

/** A refusal pretix answers with a bare list of messages (raised outside its serializers' fields). */
const bareRefusal = (message: string) => new Failure("invalid", message, { body: [message] });

/**
 * The payment a new order gets, as pretix decides it: a free order is paid with a confirmed
 * `free` payment unless it was created paid with another provider; `free` is refused for an
 * order that is not free; a paid order needs a provider; a pending order gets a payment in state
 * `created` when it names a provider, none otherwise.
 */
function newPayment(
  input: OrderInput,
  total: number,
  now: number,
  requireApproval: boolean,
): { paid: boolean; payment: OrderWrite["payments"][number] | null } {
  let provider = input.payment_provider ?? null;
  const info = input.payment_info ?? {};
  if (total === 0 && input.status === "p" && !provider) provider = "free";
  // a free order waiting for approval stays pending: approving it pays it (services/orders/order-actions.ts)
  if (total === 0 && input.status !== "p" && !requireApproval)
    return {
      paid: true,
      payment: {
        localId: 1,
        state: "confirmed",
        amount: 0,
        provider: "free",
        created: now,
        paymentDate: now,
        info: {},
      },
    };
  if (provider === "free" && total !== 0)
    throw bareRefusal('You cannot use the "free" payment provider for non-free orders.');
  if (input.status === "p") {
    if (!provider) throw bareRefusal("You cannot create a paid order without a payment provider.");
    return {
      paid: true,
      payment: {
        localId: 1,
        state: "confirmed",
        amount: total,
        provider,
        created: now,
        paymentDate: input.payment_date ?? now,
        info,
      },
    };
  }
  return {
    paid: false,
    payment: provider
      ? { localId: 1, state: "created", amount: total, provider, created: now, paymentDate: null, info }
      : null,
  };
}

/**
 * Whether the order's mails go out: `send_email` (or the older `send_mail`) when given; `null`
 * leaves it to the sales channel, as pretix's `mail_sales_channel_placed_paid` does by default
 * (mails for `web` only).
 */
function sendsMail(input: OrderInput, channel: string): boolean {
  const flag = input.send_email !== undefined ? input.send_email : input.send_mail;
  return flag === null ? channel === "web" : (flag ?? false);
}

/**
 * Creates an order, atomically: the positions are checked against the catalog and priced
 * (services/orders/positions.ts, pricing.ts), the event object decides on quota, seats and vouchers and
 * writes the whole order in one D1 transaction, or nothing. Behind an active on-sale queue only
 * with an admission (services/waiting-room/gate.ts), counted by the object. Not checked, as docs/api.md says:
 * time frames, minimum and maximum amounts, adding bundled products, fee calculation (fees
 * are taken from the input).
 */
export const createOrder = survivingD1Faults(
  (ctx: EventContext, input: OrderInput, caller: SaleCaller, opts: PlaceOptions = {}): Promise<OrderRecord> =>
    replicaFirst(ctx, (c, fromReplica) => placeOrderOnce(c, input, caller, fromReplica, opts)),
);

/**
 * `cartHolds`: how many positions of `consume_carts` must still be held (the shop's checkout:
 * all of its cart's); fewer, and the order is refused with `changed` (CART_GONE), nothing created.
 */
export type PlaceOptions = { cartHolds?: number };

/** The refusal of an order whose cart is no longer held: ordered already, or expired. */
export const CART_GONE = "The cart of this order is no longer reserved: it was ordered already, or it expired.";

/**
 * One attempt of `createOrder`, in the phases of pretix's `_perform_order`: read, check, price,
 * build the order, let the event object decide on quota (and write), then what follows a placed
 * order. `fromReplica`: its reads may trail the primary (replica-first.ts).
 */
async function placeOrderOnce(
  ctx: EventContext,
  input: OrderInput,
  caller: SaleCaller,
  fromReplica: boolean,
  opts: PlaceOptions,
): Promise<OrderRecord> {
  const codes = input.code ? [input.code] : [newOrderCode(), newOrderCode(), newOrderCode()];
  const catalog = await readCatalog(ctx, input, codes);
  const gate = input.positions.map((p) => ({ subeventId: p.subevent ?? null, channel: channelOf(input) }));
  const admission = await passSaleGate(ctx, catalog.queues, gate, caller);
  const checked = checkOrder(ctx, input, catalog);
  const priced = priceOrder(ctx, input, catalog, checked);
  const write = await buildOrder(ctx, input, catalog, checked, priced, codes);
  const placed = { catalog, checked, priced, write, admission, fromReplica, cartHolds: opts.cartHolds };
  const decision = await decideAtObject(ctx, input, placed);
  return afterPlacement(ctx, input, placed, decision);
}

/** The sales channel of the order (pretix's default: `web`). */
const channelOf = (input: OrderInput) => input.sales_channel ?? "web";

/** Read: everything the order is checked and priced against, in one batch (sales-catalog.ts). */
function readCatalog(ctx: EventContext, input: OrderInput, codes: string[]): Promise<SalesCatalog> {
  return loadSalesCatalog(ctx.db, ctx.organizer.id, ctx.event.id, {
    ...collectRefs(input.positions as PositionInput[]),
    taxRuleIds: (input.fees ?? []).map((f) => f.tax_rule).filter((x): x is number => typeof x === "number"),
    eventSeatingPlanId: ctx.event.seatingPlanId,
    customer: input.customer ?? null,
    orderCodes: codes,
    secrets: input.positions.flatMap((p) => (p.secret === undefined ? [] : [p.secret])),
    signingKeyScheme: SIG1,
  });
}

/** An order that passed its checks: its channel, locale and prepared positions (with their bases). */
type CheckedOrder = {
  channel: string;
  locale: string;
  prepared: PreparedPosition[];
  addonTo: (number | null)[];
};

/** Check: the order's fields, its fees and each position; every error at once, in the request's shape. */
function checkOrder(ctx: EventContext, input: OrderInput, catalog: SalesCatalog): CheckedOrder {
  const errors = new Problems();
  const channel = channelOf(input);
  const locale = checkOrderFields(ctx, input, catalog, errors);
  const { addonTo, errors: idErrors } = checkPositionIds(input.positions);
  const prepared: PreparedPosition[] = [];
  const at = { event: ctx.event, catalog, kind: "order" as const, isBundled: false, now: ctx.now };
  const positionErrors = input.positions.map((p, i) => {
    const own = new Problems();
    own.merge(idErrors[i]!);
    const r = preparePosition(p as PositionInput, i, { ...at, isAddon: addonTo[i] !== null }, own);
    if (r) prepared.push(r);
    if (p.secret !== undefined && catalog.takenSecrets.has(p.secret)) own.add("secret", SECRET_TAKEN);
    return own.errors;
  });
  const secrets = input.positions.map((p) => p.secret);
  if (secrets.some((s, i) => s !== undefined && secrets.indexOf(s) !== i))
    errors.add("positions", "Two positions have the same secret.");
  errors.nest("positions", positionErrors);
  errors.nest("fees", feeErrors(input, catalog));
  errors.throwIfAny();
  return { channel, locale, prepared, addonTo };
}

/** The order's own fields, checked into `errors`; returns the order's locale. */
function checkOrderFields(ctx: EventContext, input: OrderInput, catalog: SalesCatalog, errors: Problems): string {
  const settings = catalog.settings;
  const channel = channelOf(input);
  // a preview would be written as a real order here: refused rather than done silently
  if (input.simulate) errors.add("simulate", "This service does not simulate orders: send the order without simulate.");
  const locales = (settings.locales as string[] | undefined) ?? ["en"];
  const locale = input.locale ?? (settings.locale as string | undefined) ?? locales[0] ?? "en";
  if (!locales.includes(locale)) errors.add("locale", `"${locale}" is not a valid choice.`);
  if (!Object.hasOwn(SALES_CHANNELS, channel))
    errors.add("sales_channel", `Object with identifier=${channel} does not exist.`);
  const provider = input.payment_provider ?? null;
  if (provider !== null && !isPaymentProvider(provider))
    errors.add("payment_provider", "The given payment provider is not known.");
  if (input.expires !== undefined && input.expires <= ctx.now)
    errors.add("expires", "Expiration date must be in the future.");
  if (input.code && catalog.takenOrderCodes.has(input.code)) errors.add("code", "This order code is already in use.");
  if (input.customer && catalog.customerId === null) errors.add("customer", "No customer with this identifier exists.");
  const addressErrors = invoiceAddressErrors(input.invoice_address);
  if (addressErrors) errors.nest("invoice_address", addressErrors);
  return locale;
}

/** Each fee's errors: its tax rule must be one of the event's. */
function feeErrors(input: OrderInput, catalog: SalesCatalog): FieldErrors[] {
  return (input.fees ?? []).map((f): FieldErrors => {
    if (f.tax_rule == null || catalog.taxRules.has(f.tax_rule)) return {};
    const foreign = catalog.foreign.taxRules.has(f.tax_rule);
    return { tax_rule: [foreign ? "The specified tax rate does not belong to this event." : invalidPk(f.tax_rule)] };
  });
}

/** What the order costs and how it is paid. */
type PricedOrder = {
  fees: FeeInsert[];
  total: number;
  requireApproval: boolean;
  paid: boolean;
  payment: OrderWrite["payments"][number] | null;
};

/** Price: automatic discounts, the fees with their taxes, the total, approval and the first payment. */
function priceOrder(ctx: EventContext, input: OrderInput, catalog: SalesCatalog, checked: CheckedOrder): PricedOrder {
  const { event, now } = ctx;
  const { prepared, channel } = checked;
  discountPositions(prepared, catalog, { now, salesChannel: channel, currency: event.currency });
  const fees = (input.fees ?? []).map((f) =>
    feeInsert(f, f.tax_rule != null ? catalog.taxRules.get(f.tax_rule)! : null, event.currency),
  );
  const total = prepared.reduce((s, p) => s + p.price.gross, 0) + fees.reduce((s, f) => s + (f.value ?? 0), 0);
  if (total < 0) throw badRequest("The order total may not be negative.");
  // pretix's shop asks for approval when a product requires it; its API takes `require_approval` as given
  const requireApproval =
    input.require_approval ?? prepared.some((p) => catalog.items.get(p.itemId)?.requireApproval === true);
  const { paid, payment } = newPayment(input, total, now, requireApproval);
  return { fees, total, requireApproval, paid, payment };
}

/** Build: the order as it will be written: its code and secret, tickets, mails and payment. */
async function buildOrder(
  ctx: EventContext,
  input: OrderInput,
  catalog: SalesCatalog,
  checked: CheckedOrder,
  priced: PricedOrder,
  codes: string[],
): Promise<OrderWrite> {
  const { event, now } = ctx;
  const code = codes.find((c) => !catalog.takenOrderCodes.has(c));
  if (!code) throw fieldError("code", "Could not find a free order code; please retry.");
  const secret = newOrderSecret();
  const positions = await positionRows(ctx, input, catalog, checked);
  const status = priced.paid ? "p" : "n";
  const url = orderUrl(ctx.baseUrl, ctx.organizer.slug, event.slug, code, secret);
  const mails =
    sendsMail(input, checked.channel) && input.email
      ? newOrderMails(ctx, input.email, catalog, checked, priced, { code, url })
      : [];
  return {
    order: {
      eventId: event.id,
      code,
      status,
      testmode: input.testmode ?? false,
      secret,
      email: input.email ?? null,
      phone: input.phone ?? null,
      locale: checked.locale,
      salesChannel: checked.channel,
      datetime: now,
      expires: input.expires ?? orderExpiry(event, catalog.settings, now),
      total: priced.total,
      comment: input.comment ?? "",
      checkinAttention: input.checkin_attention ?? false,
      requireApproval: priced.requireApproval,
      invoiceAddress: invoiceAddressOf(input.invoice_address, now),
      customerId: catalog.customerId ?? null,
      lastModified: now,
    },
    positions,
    fees: priced.fees,
    payments: priced.payment ? [priced.payment] : [],
    consumeCartIds: input.consume_carts ?? [],
    mails,
  };
}

/** The positions' rows: every ticket gets its validity and its secret from the event's generator (a secret given in the input is kept). */
async function positionRows(
  ctx: EventContext,
  input: OrderInput,
  catalog: SalesCatalog,
  { prepared, addonTo }: CheckedOrder,
): Promise<PositionInsert[]> {
  const { event, now } = ctx;
  const generator = await secretGenerator(ctx.env, ctx.db, event.id, catalog.settings, now, catalog.signingKey);
  const validity = prepared.map((p, i): Validity => {
    const given = input.positions[i]!;
    if (given.valid_from !== undefined || given.valid_until !== undefined)
      return { validFrom: given.valid_from ?? null, validUntil: given.valid_until ?? null };
    const item = catalog.items.get(p.itemId)!;
    return ticketValidity(item, validityStart(item, now, given.requested_valid_from ?? null), event.timezone);
  });
  const secrets = await Promise.all(
    prepared.map(
      (p, i) =>
        input.positions[i]!.secret ??
        generator.generate(
          {
            itemId: p.itemId,
            variationId: p.variationId,
            subeventId: p.subeventId,
            validFrom: validity[i]!.validFrom,
            validUntil: validity[i]!.validUntil,
          },
          null,
          false,
        ),
    ),
  );
  return prepared.map((p, i) =>
    positionInsert(p, event.id, {
      positionid: i + 1,
      secret: secrets[i]!,
      addonToPositionid: addonTo[i] === null ? null : addonTo[i]! + 1,
      voucherId: p.voucher?.id ?? null,
      validity: validity[i]!,
    }),
  );
}

/**
 * The mails of a new order, as pretix's order creation sends them: the order mail ("free" for a
 * free order paid by `free`), and for an order created paid otherwise the payment mail after it;
 * a new order has no invoice yet, the order mail carries the one placing it creates.
 */
function newOrderMails(
  ctx: EventContext,
  email: string,
  catalog: SalesCatalog,
  { prepared, locale, channel }: CheckedOrder,
  { total, paid, payment, requireApproval }: PricedOrder,
  { code, url }: { code: string; url: string },
): MailInsert[] {
  const { organizer: org, event, now } = ctx;
  const settings = catalog.settings;
  const facts: OrderMailFacts = {
    organizerId: org.id,
    organizerName: org.name,
    eventId: event.id,
    eventName: event.name,
    locale,
    code,
    email,
    url,
    total,
    currency: event.currency,
    lines: prepared.map((p) => ({
      item: catalog.items.get(p.itemId)!.name,
      variation: p.variationId !== null ? (catalog.variations.get(p.variationId)?.value ?? null) : null,
      price: p.price.gross,
    })),
    fromName: (settings.mail_from_name as string | null) ?? null,
    replyTo: (settings.contact_mail as string | null) ?? null,
  };
  const free = paid && total === 0 && payment?.provider === "free";
  const status = paid ? "p" : "n";
  const placed = orderMail(
    requireApproval && !paid ? "order_placed_require_approval" : free ? "order_free" : "order_placed",
    {
      ...facts,
      paid,
      attachInvoice: mailCarriesInvoice(settings, { total, requireApproval, salesChannel: channel }, status, 0),
      paymentInfo:
        !paid && payment?.provider === "manual"
          ? manualPaymentText(settings.payment_manual_email_instructions as I18n | null, locale, {
              code,
              total,
              currency: event.currency,
            })
          : undefined,
    },
    now,
  );
  return paid && !free ? [placed, orderMail("order_paid", facts, now)] : [placed];
}

/** What the event object is asked to place. */
type Placement = {
  catalog: SalesCatalog;
  checked: CheckedOrder;
  priced: PricedOrder;
  write: OrderWrite;
  admission: AdmissionClaim | null;
  fromReplica: boolean;
  cartHolds?: number | undefined;
};

/**
 * Quota: the event object decides on quota, seats, vouchers and the admission, and records the
 * order; a refusal becomes the field errors pretix answers.
 */
async function decideAtObject(
  ctx: EventContext,
  input: OrderInput,
  { catalog, checked, priced, write, admission, fromReplica, cartHolds }: Placement,
): Promise<Extract<OrderDecision, { ok: true }>> {
  const { event } = ctx;
  const { prepared } = checked;
  const code = write.order.code;
  const given = input.positions.flatMap((p) => (p.secret === undefined ? [] : [p.secret]));
  // answered by the event object before D1 has it, unless D1 must decide on the client's code or
  // secrets, or an invoice follows the order in this request (docs/scaling.md)
  const order = { total: priced.total, requireApproval: priced.requireApproval, salesChannel: checked.channel };
  const answerHere =
    !input.code &&
    given.length === 0 &&
    !(wantsAutomaticInvoice(write.order.status, catalog.settings) && invoiceQualified(order, catalog.settings));
  const decision = await withEventObject<OrderDecision>(ctx.env, event, (s, call) =>
    s.placeOrder(call, catalog.stamp, {
      code,
      demands: prepared.map((p) => p.demand),
      paid: priced.paid,
      consumeCartIds: write.consumeCartIds,
      ignoreQuota: input.force ?? false,
      write,
      admission,
      answerHere,
      ...(answerHere ? { scanRows: scanRowTemplates(write, catalog, event.slug) } : {}),
      catalogFromReplica: fromReplica,
      ...(cartHolds !== undefined ? { cartHolds } : {}),
    }),
  ).catch(async (e: unknown) => {
    // D1 refuses a secret another order took since the catalog was read (its unique index): the
    // client's input, answered as the check above answers it
    if (isFailure(e, "unavailable") && given.length) {
      const taken = await secretsTakenByOthers(ctx.db, event.id, given, code);
      if (taken.size) throw secretsTaken(input.positions, taken);
    }
    throw e;
  });
  if (decision.ok) return decision;
  if (decision.staleCatalog) throw new StaleCatalog();
  if (decision.admissionUsed) throw admissionUsedUp(admission!);
  if (decision.cartGone) throw new Failure("changed", CART_GONE);
  const refusals = orderRefusalErrors(decision.refusals, prepared.length, {
    item: (i) => i18nText(catalog.items.get(prepared[i]!.itemId)?.name),
    seat: (i) => {
      const seat = prepared[i]!.seat;
      return seat ? seatName(seat) : "";
    },
    voucher: (i) => input.positions[i]!.voucher ?? "",
  });
  throw decidedByObject(validationError(refusals));
}

/**
 * What follows a placed order: answered by the object, D1, the mails and the webhook calls follow
 * it there; written before its answer, its webhook calls are dispatched here and its invoice follows.
 */
async function afterPlacement(
  ctx: EventContext,
  input: OrderInput,
  { catalog, write }: Placement,
  decision: Extract<OrderDecision, { ok: true }>,
): Promise<OrderRecord> {
  const { env, db, event, now } = ctx;
  const code = write.order.code;
  if (decision.answered)
    return answeredOrderRecord(decision.answered, catalog, catalog.customerId ? (input.customer ?? null) : null);
  // the order's webhook calls were written with it; the queue delivers them
  dispatchWebhooks(env, [{ eventId: event.id, code }]);
  const record = decision.order
    ? toOrderRecord(decision.order)
    : (await readAfterWrite(() => findOrder(db, event.id, code)))!;
  // invoice_generate "True" (or "paid" for an order created paid): the invoice follows the order
  await invoicesAfterOrderChange({ env, db, event, now }, code, record.order.status, {
    invoicing: record.invoicing,
    record,
  });
  return record;
}

/** pretix's answer to a position secret another ticket of the event has. */
const SECRET_TAKEN = "You cannot assign a position secret that already exists.";

function secretsTaken(positions: OrderInput["positions"], taken: Set<string>) {
  return validationError({
    positions: positions.map(
      (p): FieldErrors => (p.secret !== undefined && taken.has(p.secret) ? { secret: [SECRET_TAKEN] } : {}),
    ),
  });
}
