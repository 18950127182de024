/**
 * Placing the shop's checkout: the form becomes the order input the API takes and goes to the
 * same `createOrder` (consuming the cart, with the visitor's admission). The shop's own checks
 * are what pretix's checkout forms ask beyond the API (required answers, attendee fields and
 * invoice address, a payment method); everything else is order creation's, its errors mapped
 * back to the form's fields.
 */
import type { FieldErrors } from "../../lib/failure";
import { isFailure } from "../../lib/failure";
import { parseDateTime } from "../../lib/datetime";
import { formatMoney } from "../../lib/money";
import type { EventContext } from "../context";
import { CART_GONE, createOrder } from "../orders/order-create";
import { type OrderInput, orderInput } from "../orders/order-input";
import type { OrderRecord } from "../orders/order-reads";
import type { SaleCaller } from "../waiting-room/gate";
import type { CheckoutLine, CheckoutQuestion, CheckoutView } from "./checkout";

/** The posted form: every field's values (checkboxes of a multiple choice give several). */
export type CheckoutForm = Record<string, string[]>;

/** A problem of a field: one of the shop's own (the page words it in its language), or order creation's message. */
export type CheckoutProblem = { code: "required" | "payment" | "name_or_company" } | { message: string };

/** Problems by form field name; "" holds those of no field. */
export type CheckoutErrors = Record<string, CheckoutProblem[]>;

export type CheckoutOutcome =
  | { placed: OrderRecord }
  | { invalid: CheckoutErrors }
  /** Refused by what the event object decides (quota, seats, vouchers) or the catalog: the cart cannot become this order. */
  | { refused: { line: number | null; message: string }[] }
  /** An on-sale queue guards the sale and the visitor has no valid admission. */
  | { queue: string }
  /** The cart is no longer held: ordered already (a second submit), or expired meanwhile. */
  | { gone: true };

/** The form's field names, one place for the page and the mapping of errors. */
export const FIELDS = {
  email: "email",
  payment: "payment",
  name: (i: number) => `p${i}-name`,
  attendeeEmail: (i: number) => `p${i}-email`,
  answer: (i: number, q: number) => `p${i}-q${q}`,
  invoice: (k: string) => `ia-${k}`,
};

/** The invoice address's fields the form has. */
export const INVOICE_FIELDS = ["company", "name", "street", "zipcode", "city", "country", "vat_id"] as const;

/** Position fields whose errors mean the cart cannot be ordered as it is, not a mistake in the form. */
const REFUSAL_FIELDS = new Set(["item", "variation", "seat", "voucher", "subevent", "price", "non_field_errors"]);

const one = (form: CheckoutForm, key: string) => (form[key]?.[0] ?? "").trim();

class Collector {
  readonly errors: CheckoutErrors = {};
  add(field: string, p: CheckoutProblem) {
    (this.errors[field] ??= []).push(p);
  }
  has() {
    return Object.keys(this.errors).length > 0;
  }
}

type Answer = { question: number; answer?: string; options?: number[] };

/** One answer from the form, in the API's form; null when left empty. */
function answerOf(form: CheckoutForm, key: string, q: CheckoutQuestion, timeZone: string): Answer | null {
  const values = (form[key] ?? []).map((v) => v.trim()).filter((v) => v !== "");
  if (q.type === "M" || q.type === "C")
    return values.length
      ? { question: q.id, options: values.map((v) => (/^\d{1,16}$/.test(v) ? Number(v) : -1)) }
      : null;
  if (q.type === "B") return values.includes("true") ? { question: q.id, answer: "true" } : null;
  const text = values[0] ?? "";
  if (text === "") return null;
  if (q.type === "W") {
    // a browser's local date and time, meant in the event's time zone
    const ms = parseDateTime(text, timeZone);
    return { question: q.id, answer: ms === null ? text : new Date(ms).toISOString() };
  }
  return { question: q.id, answer: text };
}

/** A line's answers (with the question of each, in order) and its required ones left empty. */
function answersOf(form: CheckoutForm, line: CheckoutLine, timeZone: string, errors: Collector) {
  const answers: Answer[] = [];
  for (const q of line.questions) {
    if (q.type === "F") continue;
    const key = FIELDS.answer(line.index, q.id);
    const a = answerOf(form, key, q, timeZone);
    if (a) answers.push(a);
    else if (q.type === "B" && !q.required) answers.push({ question: q.id, answer: "false" });
    else if (q.required) errors.add(key, { code: "required" });
  }
  return answers;
}

function positionsOf(view: CheckoutView, form: CheckoutForm, timeZone: string, errors: Collector) {
  const { asks } = view;
  return view.lines.map((line) => {
    const base = line.position;
    const name = one(form, FIELDS.name(line.index));
    const email = one(form, FIELDS.attendeeEmail(line.index));
    const personal = line.admission && line.addonTo === null;
    if (personal && asks.namesRequired && name === "") errors.add(FIELDS.name(line.index), { code: "required" });
    if (personal && asks.emailsRequired && email === "")
      errors.add(FIELDS.attendeeEmail(line.index), { code: "required" });
    return {
      ...base,
      // the order input's money is the wire's decimal text, as the API takes it
      price: base.price === undefined || base.price === null ? undefined : formatMoney(base.price),
      positionid: line.index + 1,
      ...(line.addonTo !== null ? { addon_to: line.addonTo + 1 } : {}),
      ...(personal && asks.namesAsked && name ? { attendee_name: name } : {}),
      ...(personal && asks.emailsAsked && email ? { attendee_email: email } : {}),
      answers: answersOf(form, line, timeZone, errors),
    };
  });
}

function invoiceAddressOf(view: CheckoutView, form: CheckoutForm, errors: Collector): Record<string, unknown> | null {
  const { asks } = view;
  if (!asks.invoiceAsked) return null;
  const fields = Object.fromEntries(INVOICE_FIELDS.map((k) => [k, one(form, FIELDS.invoice(k))]));
  if (!asks.invoiceVatId) delete fields.vat_id;
  const given = Object.values(fields).some((v) => v !== "");
  if (!given && !asks.invoiceRequired) return null;
  if (asks.invoiceRequired) {
    for (const k of ["street", "zipcode", "city", "country"])
      if (fields[k] === "") errors.add(FIELDS.invoice(k), { code: "required" });
    if (asks.invoiceCompanyRequired && fields.company === "")
      errors.add(FIELDS.invoice("company"), { code: "required" });
    if (asks.invoiceNameRequired && fields.name === "") errors.add(FIELDS.invoice("name"), { code: "required" });
    if (fields.name === "" && fields.company === "") errors.add(FIELDS.invoice("name"), { code: "name_or_company" });
  }
  const isBusiness = one(form, FIELDS.invoice("is_business")) === "true" || fields.company !== "";
  return { is_business: isBusiness, ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== "")) };
}

/** The order input of the form, with the shop's own problems of it. */
export function checkoutInput(
  ctx: EventContext,
  view: CheckoutView,
  form: CheckoutForm,
): { input: Record<string, unknown>; errors: CheckoutErrors } {
  const errors = new Collector();
  const email = one(form, FIELDS.email);
  if (email === "") errors.add(FIELDS.email, { code: "required" });
  const provider = one(form, FIELDS.payment);
  if (!(view.providers as string[]).includes(provider)) errors.add(FIELDS.payment, { code: "payment" });
  const input = {
    email: email || null,
    locale: view.locale,
    sales_channel: "web",
    payment_provider: provider || null,
    consume_carts: [view.cartId],
    invoice_address: invoiceAddressOf(view, form, errors),
    positions: positionsOf(view, form, ctx.event.timezone, errors),
  };
  return { input, errors: errors.errors };
}

/** Each message of field errors with its path (`["positions", 0, "answers", 1, "question"]`). */
function flatten(errors: FieldErrors | FieldErrors[] | string[], path: (string | number)[] = []) {
  const out: { path: (string | number)[]; message: string }[] = [];
  if (Array.isArray(errors)) {
    errors.forEach((e, i) => {
      if (typeof e === "string") out.push({ path, message: e });
      else out.push(...flatten(e, [...path, i]));
    });
  } else {
    for (const [k, v] of Object.entries(errors)) out.push(...flatten(v, [...path, k]));
  }
  return out;
}

/** The form field an error of order creation belongs to; null: a refusal of the cart. */
function fieldOf(path: (string | number)[], input: { positions: { answers: Answer[] }[] }): string | null {
  const [top, i, field, j] = path;
  if (top === "email") return FIELDS.email;
  if (top === "payment_provider") return FIELDS.payment;
  if (top === "invoice_address" && typeof i === "string")
    return FIELDS.invoice(i === "name_parts" ? "name" : i === "is_business" ? "company" : i);
  if (top !== "positions" || typeof i !== "number") return "";
  if (field === "attendee_name" || field === "attendee_name_parts") return FIELDS.name(i);
  if (field === "attendee_email") return FIELDS.attendeeEmail(i);
  if (field === "answers" && typeof j === "number") {
    const q = input.positions[i]?.answers[j]?.question;
    return q === undefined ? "" : FIELDS.answer(i, q);
  }
  return typeof field === "string" && REFUSAL_FIELDS.has(field) ? null : "";
}

/** Errors of order creation (or of its input's schema) as the form's, or the refusal of the cart. */
function mapErrors(
  flat: { path: (string | number)[]; message: string }[],
  input: { positions: { answers: Answer[] }[] },
): CheckoutOutcome {
  const refused: { line: number | null; message: string }[] = [];
  const errors = new Collector();
  for (const { path, message } of flat) {
    const field = fieldOf(path, input);
    const line = typeof path[1] === "number" ? path[1] : null;
    if (field === null && !refused.some((r) => r.line === line && r.message === message))
      refused.push({ line, message });
    else if (field !== null) errors.add(field, { message });
  }
  if (refused.length) return { refused };
  return { invalid: errors.errors };
}

/**
 * Places the checkout's order: the shop's checks, then the API's input schema, then
 * `createOrder` (services/orders/order-create.ts). Nothing is created unless it all passes.
 */
export async function placeCheckout(
  ctx: EventContext,
  view: CheckoutView,
  form: CheckoutForm,
  caller: SaleCaller,
): Promise<CheckoutOutcome> {
  const { input, errors } = checkoutInput(ctx, view, form);
  const shaped = input as { positions: { answers: Answer[] }[] };
  if (Object.keys(errors).length) return { invalid: errors };
  const parsed = orderInput.safeParse(input);
  if (!parsed.success)
    return mapErrors(
      parsed.error.issues.map((x) => ({ path: x.path as (string | number)[], message: x.message })),
      shaped,
    );
  try {
    // every position of the cart still held, or nothing is ordered (a second submit finds none)
    const opts = { cartHolds: view.lines.length };
    return { placed: await createOrder(ctx, parsed.data as OrderInput, caller, opts) };
  } catch (e) {
    if (isFailure(e, "queue_required")) return { queue: e.message };
    if (isFailure(e, "changed") && e.message === CART_GONE) return { gone: true };
    if (!isFailure(e, "invalid")) throw e;
    if (e.fields) return mapErrors(flatten(e.fields), shaped);
    const body = e.body;
    return { invalid: { "": (Array.isArray(body) ? body : [e.message]).map((m) => ({ message: String(m) })) } };
  }
}
