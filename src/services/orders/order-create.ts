/**
 * Order creation (docs/api.md; pretix docs orders.rst for what docs/api.md
 * leaves open, docs/open-points.md row 28): the one service that creates an order (its input: order-input.ts).
 */
import { dispatchWebhooks } from "../../lib/queues";
import type { FeeInsert, OrderWrite, PositionInsert } from "../../db/inventory";
import { findOrder, toOrderRecord, type OrderRecord } from "../../db/orders";
import { secretsTakenByOthers } from "../../db/sales-catalog";
import { i18nText, type I18n } from "../../lib/i18n";
import type { MailInsert } from "../../db/mail";
import { withEventObject } from "../../objects/client";
import type { OrderDecision } from "../../objects/event/types";
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
import { checkPositionIds, invoiceAddressErrors, invoiceAddressOf, type OrderInput } from "./order-input";
import type { Demand } from "../../rules/inventory/index";
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
import { tax } from "../../rules/pricing";
import { secretGenerator, SIG1 } from "../tickets/ticket-secrets";
import { orderRefusalErrors } from "../../rules/refusals";
import { loadSalesCatalog } from "./sales-catalog";
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
  (ctx: EventContext, input: OrderInput, caller: SaleCaller): Promise<OrderRecord> =>
    replicaFirst(ctx, (c, fromReplica) => placeOrderOnce(c, input, caller, fromReplica)),
);

/** One attempt of `createOrder`; `fromReplica`: its reads may trail the primary (replica-first.ts). */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: split by h-orders (issue 36)
async function placeOrderOnce(
  ctx: EventContext,
  input: OrderInput,
  caller: SaleCaller,
  fromReplica: boolean,
): Promise<OrderRecord> {
  const { event, organizer: org, db, now } = ctx;
  const candidates = input.code ? [input.code] : [newOrderCode(), newOrderCode(), newOrderCode()];
  const refs = collectRefs(input.positions as PositionInput[]);
  const catalog = await loadSalesCatalog(db, org.id, event.id, {
    ...refs,
    taxRuleIds: (input.fees ?? []).map((f) => f.tax_rule).filter((x): x is number => typeof x === "number"),
    eventSeatingPlanId: event.seatingPlanId,
    customer: input.customer ?? null,
    orderCodes: candidates,
    secrets: input.positions.flatMap((p) => (p.secret === undefined ? [] : [p.secret])),
    signingKeyScheme: SIG1,
  });
  const settings = catalog.settings;
  const channel = input.sales_channel ?? "web";
  const gate = input.positions.map((p) => ({ subeventId: p.subevent ?? null, channel }));
  const admission = await passSaleGate(ctx, catalog.queues, gate, caller);
  const errors = new Problems();

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
  if (input.expires !== undefined && input.expires <= now)
    errors.add("expires", "Expiration date must be in the future.");
  if (input.code && catalog.takenOrderCodes.has(input.code)) errors.add("code", "This order code is already in use.");
  if (input.customer && catalog.customerId === null) errors.add("customer", "No customer with this identifier exists.");
  const addressErrors = invoiceAddressErrors(input.invoice_address);
  if (addressErrors) errors.nest("invoice_address", addressErrors);
  const feeErrors: FieldErrors[] = [];
  for (const f of input.fees ?? []) {
    const e: FieldErrors = {};
    if (f.tax_rule != null && !catalog.taxRules.has(f.tax_rule))
      e.tax_rule = [
        catalog.foreign.taxRules.has(f.tax_rule)
          ? "The specified tax rate does not belong to this event."
          : invalidPk(f.tax_rule),
      ];
    feeErrors.push(e);
  }
  const { addonTo, errors: idErrors } = checkPositionIds(input.positions);

  const prepared: PreparedPosition[] = [];
  const positionErrors: FieldErrors[] = [];
  input.positions.forEach((p, i) => {
    const own = new Problems();
    own.merge(idErrors[i]!);
    const r = preparePosition(
      p as PositionInput,
      i,
      { event, catalog, kind: "order", isAddon: addonTo[i] !== null, isBundled: false, now },
      own,
    );
    if (r) prepared.push(r);
    if (p.secret !== undefined && catalog.takenSecrets.has(p.secret)) own.add("secret", SECRET_TAKEN);
    positionErrors.push(own.errors);
  });
  const secrets = input.positions.map((p) => p.secret);
  const dupSecret = secrets.filter((s, i) => s !== undefined && secrets.indexOf(s) !== i);
  if (dupSecret.length) errors.add("positions", "Two positions have the same secret.");

  errors.nest("positions", positionErrors);
  errors.nest("fees", feeErrors);
  errors.throwIfAny();

  discountPositions(prepared, catalog, { now, salesChannel: channel, currency: event.currency });
  const fees: FeeInsert[] = (input.fees ?? []).map((f) => {
    const rule = f.tax_rule != null ? catalog.taxRules.get(f.tax_rule)! : null;
    const t = tax(f.value, rule, event.currency, true);
    return {
      feeType: f.fee_type,
      value: t.gross,
      description: f.description ?? "",
      internalType: f.internal_type ?? "",
      taxRate: t.taxRate,
      taxValue: t.taxValue,
      taxRuleId: t.taxRuleId,
      canceled: false,
    };
  });
  const total = prepared.reduce((s, p) => s + p.price.gross, 0) + fees.reduce((s, f) => s + (f.value ?? 0), 0);
  if (total < 0) throw badRequest("The order total may not be negative.");
  // pretix's shop asks for approval when a product requires it; its API takes `require_approval` as given
  const requireApproval =
    input.require_approval ?? prepared.some((p) => catalog.items.get(p.itemId)?.requireApproval === true);
  const { paid, payment } = newPayment(input, total, now, requireApproval);
  const code = candidates.find((c) => !catalog.takenOrderCodes.has(c));
  if (!code) throw fieldError("code", "Could not find a free order code; please retry.");
  const secret = newOrderSecret();
  const expires = input.expires ?? orderExpiry(event, settings, now);

  const invoiceAddress = invoiceAddressOf(input.invoice_address, now);

  // every ticket gets its secret from the event's generator (a secret given in the input is kept)
  const generator = await secretGenerator(ctx.env, db, event.id, settings, now, catalog.signingKey);
  const validity = prepared.map((p, i): Validity => {
    const given = input.positions[i]!;
    if (given.valid_from !== undefined || given.valid_until !== undefined)
      return { validFrom: given.valid_from ?? null, validUntil: given.valid_until ?? null };
    const item = catalog.items.get(p.itemId)!;
    return ticketValidity(item, validityStart(item, now, given.requested_valid_from ?? null), event.timezone);
  });
  const ticketSecrets = await Promise.all(
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

  const positions: PositionInsert[] = prepared.map((p, i) =>
    positionInsert(p, event.id, {
      positionid: i + 1,
      secret: ticketSecrets[i]!,
      addonToPositionid: addonTo[i] === null ? null : addonTo[i]! + 1,
      voucherId: p.voucher?.id ?? null,
      validity: validity[i]!,
    }),
  );
  const url = orderUrl(ctx.baseUrl, org.slug, event.slug, code, secret);
  const status = paid ? "p" : "n";
  const mails: MailInsert[] = [];
  if (sendsMail(input, channel) && input.email) {
    const facts: OrderMailFacts = {
      organizerId: org.id,
      organizerName: org.name,
      eventId: event.id,
      eventName: event.name,
      locale,
      code,
      email: input.email,
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
    // as pretix's order creation: the order mail ("free" for a free order paid by `free`), and
    // for an order created paid otherwise the payment mail after it; a new order has no invoice
    // yet, the order mail carries the one placing it creates
    const free = paid && total === 0 && payment?.provider === "free";
    mails.push(
      orderMail(
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
      ),
    );
    if (paid && !free) mails.push(orderMail("order_paid", facts, now));
  }
  const write: OrderWrite = {
    order: {
      eventId: event.id,
      code,
      status,
      testmode: input.testmode ?? false,
      secret,
      email: input.email ?? null,
      phone: input.phone ?? null,
      locale,
      salesChannel: channel,
      datetime: now,
      expires,
      total,
      comment: input.comment ?? "",
      checkinAttention: input.checkin_attention ?? false,
      requireApproval,
      invoiceAddress,
      customerId: catalog.customerId ?? null,
      lastModified: now,
    },
    positions,
    fees,
    payments: payment ? [payment] : [],
    consumeCartIds: input.consume_carts ?? [],
    mails,
  };
  const demands: Demand[] = prepared.map((p) => p.demand);
  // answered by the event object before D1 has it, unless D1 must decide on the client's code or
  // secrets, or an invoice follows the order in this request (docs/scaling.md)
  const answerHere =
    !input.code &&
    secrets.every((x) => x === undefined) &&
    !(
      wantsAutomaticInvoice(status, settings) &&
      invoiceQualified({ total, requireApproval, salesChannel: channel }, settings)
    );
  const decision = await withEventObject<OrderDecision>(ctx.env, event, (s) =>
    s.placeOrder(catalog.stamp, {
      code,
      demands,
      paid,
      consumeCartIds: write.consumeCartIds,
      ignoreQuota: input.force ?? false,
      write,
      admission,
      answerHere,
      ...(answerHere ? { scanRows: scanRowTemplates(write, catalog, event.slug) } : {}),
      catalogFromReplica: fromReplica,
    }),
  ).catch(async (e: unknown) => {
    // D1 refuses a secret another order took since the catalog was read (its unique index): the
    // client's input, answered as the check above answers it
    const given = secrets.filter((x): x is string => x !== undefined);
    if (isFailure(e, "unavailable") && given.length) {
      const taken = await secretsTakenByOthers(db, event.id, given, code);
      if (taken.size) throw secretsTaken(input.positions, taken);
    }
    throw e;
  });
  if (!decision.ok && decision.staleCatalog) throw new StaleCatalog();
  if (!decision.ok && decision.admissionUsed) throw admissionUsedUp(admission!);
  if (!decision.ok)
    throw decidedByObject(
      validationError(
        orderRefusalErrors(decision.refusals, prepared.length, {
          item: (i) => i18nText(catalog.items.get(prepared[i]!.itemId)?.name),
          seat: (i) => {
            const seat = prepared[i]!.seat;
            return seat ? seatName(seat) : "";
          },
          voucher: (i) => input.positions[i]!.voucher ?? "",
        }),
      ),
    );
  // answered by the object: D1, the mails and the webhook calls follow it there
  if (decision.answered)
    return answeredOrderRecord(decision.answered, catalog, catalog.customerId ? (input.customer ?? null) : null);
  // the order's webhook calls were written with it; the queue delivers them
  dispatchWebhooks(ctx.env, [{ eventId: event.id, code }]);
  const record = decision.order
    ? toOrderRecord(decision.order)
    : (await readAfterWrite(() => findOrder(db, event.id, code)))!;
  // invoice_generate "True" (or "paid" for an order created paid): the invoice follows the order
  await invoicesAfterOrderChange({ env: ctx.env, db, event, now }, code, record.order.status, {
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
