/**
 * The checkout form's HTML (pages/shop/checkout.ts): the cart with its prices and time left, the
 * contact address, the attendee fields and questions per position, the invoice address and the
 * payment choice. Every input has its label; a field's error sits next to it (aria-describedby),
 * and the values entered come back with the errors. No script: the form posts.
 */
import type { CheckoutErrors, CheckoutForm, CheckoutProblem } from "../../services/shop/checkout-place";
import { FIELDS } from "../../services/shop/checkout-place";
import type { CheckoutLine, CheckoutQuestion, CheckoutView } from "../../services/shop/checkout";
import { html, type Raw } from "../html";
import { money, text } from "../storefront";
import type { CheckoutTexts } from "./checkout-texts";
import { fill } from "../waiting-room-texts";

/** What a part of the form is rendered with. */
export type FormState = {
  t: CheckoutTexts;
  locale: string;
  currency: string;
  values: CheckoutForm;
  errors: CheckoutErrors;
};

const problemText = (t: CheckoutTexts, p: CheckoutProblem) =>
  "message" in p
    ? p.message
    : p.code === "required"
      ? t.required
      : p.code === "payment"
        ? t.choosePayment
        : t.nameOrCompany;

/** The error of a field (its id `{name}-error`), or nothing. */
function errorOf(s: FormState, name: string): Raw | string {
  const list = s.errors[name];
  if (!list?.length) return "";
  return html`<p class="error" id="${name}-error">${list.map((p) => problemText(s.t, p)).join(" ")}</p>`;
}

/** aria-describedby (help and error) and aria-invalid of a field. */
function described(s: FormState, name: string, help: boolean): Raw {
  const ids = [help ? `${name}-help` : "", s.errors[name]?.length ? `${name}-error` : ""].filter(Boolean);
  return html`${ids.length ? html` aria-describedby="${ids.join(" ")}"` : ""}${s.errors[name]?.length ? html` aria-invalid="true"` : ""}`;
}

const entered = (s: FormState, name: string) => s.values[name]?.[0] ?? "";

type InputOptions = { type?: string; required?: boolean; help?: string; autocomplete?: string; extra?: Raw };

/** A labelled single input with its help and error. */
function input(s: FormState, name: string, label: string, o: InputOptions = {}): Raw {
  const opt = o.required ? "" : html` <span class="muted">${s.t.optional}</span>`;
  const help = o.help ? html`<span class="muted" id="${name}-help">${o.help}</span>` : "";
  return html`<label for="${name}">${label}${opt}</label>${help}
<input type="${o.type ?? "text"}" id="${name}" name="${name}" value="${entered(s, name)}"${o.required ? html` required` : ""}${
    o.autocomplete ? html` autocomplete="${o.autocomplete}"` : ""
  }${o.extra ?? ""}${described(s, name, Boolean(o.help))}>${errorOf(s, name)}`;
}

/** A question's input, by its type (the answer types of the API; file uploads are not taken here). */
function questionField(s: FormState, line: CheckoutLine, q: CheckoutQuestion): Raw {
  const name = FIELDS.answer(line.index, q.id);
  const label = text(q.text, s.locale);
  const helpText = [text(q.help, s.locale), q.dependent ? s.t.dependent : ""].filter(Boolean).join(" ");
  const help = helpText || undefined;
  switch (q.type) {
    case "F":
      return html`<p><strong>${label}</strong><br><span class="muted">${s.t.fileUnsupported}</span></p>`;
    case "S": {
      const opt = q.required ? "" : html` <span class="muted">${s.t.optional}</span>`;
      return html`<label for="${name}">${label}${opt}</label>${help ? html`<span class="muted" id="${name}-help">${help}</span>` : ""}
<textarea id="${name}" name="${name}" rows="3"${q.required ? html` required` : ""}${described(s, name, Boolean(help))}>${entered(s, name)}</textarea>${errorOf(s, name)}`;
    }
    case "B": {
      const checked = (s.values[name] ?? []).includes("true");
      return html`<fieldset${described(s, name, Boolean(help))}><legend>${label}${q.required ? "" : html` <span class="muted">${s.t.optional}</span>`}</legend>${help ? html`<span class="muted" id="${name}-help">${help}</span>` : ""}
<label class="choice"><input type="checkbox" name="${name}" value="true"${checked ? " checked" : ""}${q.required ? html` required` : ""}> ${s.t.yes}</label>${errorOf(s, name)}</fieldset>`;
    }
    case "C":
    case "M":
      return choiceField(s, name, label, q, help);
    default:
      return input(s, name, label, { ...questionInput(q), required: q.required, ...(help ? { help } : {}) });
  }
}

/** The input type and attributes of a typed question. */
function questionInput(q: CheckoutQuestion): InputOptions {
  switch (q.type) {
    case "N":
      return { type: "number", extra: html` step="any" inputmode="decimal"` };
    case "D":
      return { type: "date" };
    case "H":
      return { type: "time" };
    case "W":
      return { type: "datetime-local" };
    case "TEL":
      return { type: "tel", autocomplete: "tel" };
    case "CC":
      return { extra: html` maxlength="2" autocapitalize="characters"`, autocomplete: "country" };
    default:
      return {};
  }
}

/** A choice (radio buttons) or multiple choice (checkboxes) in a fieldset. */
function choiceField(s: FormState, name: string, label: string, q: CheckoutQuestion, help: string | undefined): Raw {
  const chosen = new Set(s.values[name] ?? []);
  const type = q.type === "C" ? "radio" : "checkbox";
  const options = q.options.map(
    (o) =>
      html`<label class="choice"><input type="${type}" name="${name}" value="${o.id}"${chosen.has(String(o.id)) ? " checked" : ""}${
        q.required && type === "radio" ? html` required` : ""
      }> ${text(o.answer, s.locale)}</label>`,
  );
  return html`<fieldset${described(s, name, Boolean(help))}><legend>${label}${q.required ? "" : html` <span class="muted">${s.t.optional}</span>`}</legend>${help ? html`<span class="muted" id="${name}-help">${help}</span>` : ""}
${options}${errorOf(s, name)}</fieldset>`;
}

/** The cart as a table: each position with its add-ons nested, prices as the order computes them, the total. */
export function cartTable(s: FormState, view: CheckoutView): Raw {
  const rows = view.lines.map((l) => {
    const details = [
      l.row.seatName ? `${s.t.seat}: ${l.row.seatName}` : "",
      l.voucherCode ? `${s.t.voucher}: ${l.voucherCode}` : "",
    ].filter(Boolean);
    const name = html`${text(l.itemName, s.locale)}${l.variationName ? ` – ${text(l.variationName, s.locale)}` : ""}`;
    return html`<tr><td>${l.addonTo !== null ? html`<span class="muted">+ ${s.t.addon}:</span> ` : ""}${name}${
      details.length ? html`<br><span class="muted">${details.join(" · ")}</span>` : ""
    }</td><td class="amount">${money(l.price, s.currency)}</td></tr>`;
  });
  return html`<table><caption class="muted">${s.t.yourCart}</caption><thead><tr><th scope="col">${s.t.product}</th><th scope="col" class="amount">${s.t.price}</th></tr></thead><tbody>${rows}</tbody>
<tfoot><tr><th scope="row">${s.t.total}</th><th class="amount">${money(view.total, s.currency)}</th></tr>${
    view.taxTotal > 0
      ? html`<tr><td class="muted">${s.t.includedTax}</td><td class="amount muted">${money(view.taxTotal, s.currency)}</td></tr>`
      : ""
  }</tfoot></table>`;
}

/** The attendee fields and questions of each position that has any. */
export function positionFieldsets(s: FormState, view: CheckoutView): Raw[] {
  const { asks } = view;
  let n = 0;
  return view.lines.flatMap((l) => {
    const personal = l.admission && l.addonTo === null;
    const questions = l.questions.map((q) => questionField(s, l, q));
    const name = personal && asks.namesAsked;
    const email = personal && asks.emailsAsked;
    if (!name && !email && !questions.length) return [];
    n++;
    const legend = fill(s.t.attendee, { n, item: text(l.itemName, s.locale) });
    return [
      html`<fieldset class="position"><legend>${legend}</legend>
${name ? input(s, FIELDS.name(l.index), s.t.attendeeName, { required: asks.namesRequired, autocomplete: "off" }) : ""}
${email ? input(s, FIELDS.attendeeEmail(l.index), s.t.attendeeEmail, { type: "email", required: asks.emailsRequired, autocomplete: "off" }) : ""}
${questions}</fieldset>`,
    ];
  });
}

/** The invoice address, when the event asks for it. */
export function invoiceFieldset(s: FormState, view: CheckoutView): Raw | string {
  const { asks } = view;
  if (!asks.invoiceAsked) return "";
  const req = asks.invoiceRequired;
  const f = FIELDS.invoice;
  const business = (s.values[f("is_business")] ?? []).includes("true");
  return html`<fieldset><legend>${s.t.invoice}</legend>${req ? "" : html`<p class="muted">${s.t.invoiceOptional}</p>`}
<label class="choice" for="${f("is_business")}"><input type="checkbox" id="${f("is_business")}" name="${f("is_business")}" value="true"${business ? " checked" : ""}> ${s.t.isBusiness}</label>
${input(s, f("company"), s.t.company, { required: asks.invoiceCompanyRequired, autocomplete: "organization" })}
${input(s, f("name"), s.t.name, { required: asks.invoiceNameRequired, autocomplete: "name" })}
${input(s, f("street"), s.t.street, { required: req, autocomplete: "street-address" })}
${input(s, f("zipcode"), s.t.zipcode, { required: req, autocomplete: "postal-code" })}
${input(s, f("city"), s.t.city, { required: req, autocomplete: "address-level2" })}
${input(s, f("country"), s.t.country, { required: req, autocomplete: "country", extra: html` maxlength="2" autocapitalize="characters"` })}
${asks.invoiceVatId ? input(s, f("vat_id"), s.t.vatId) : ""}</fieldset>`;
}

/** The payment choice from the event's providers (the manual payment's instructions follow on its payment page, with the order's code). */
export function paymentFieldset(s: FormState, view: CheckoutView): Raw {
  const name = FIELDS.payment;
  if (view.providers.length === 1 && view.providers[0] === "free")
    return html`<h2>${s.t.payment}</h2><p>${s.t.free}</p><input type="hidden" name="${name}" value="free">`;
  const chosen = entered(s, name) || view.providers[0];
  const words: Record<string, [string, string]> = {
    manual: [s.t.providerManual, s.t.providerManualHelp],
    stripe: [s.t.providerStripe, s.t.providerStripeHelp],
    giftcard: [s.t.providerGiftcard, s.t.providerGiftcardHelp],
    free: [s.t.providerFree, ""],
  };
  const options = view.providers.map((p) => {
    const [label, help] = words[p] ?? [p, ""];
    return html`<label class="choice"><input type="radio" name="${name}" value="${p}"${p === chosen ? " checked" : ""} required> <strong>${label}</strong><br><span class="muted">${help}</span></label>`;
  });
  return html`<fieldset${described(s, name, false)}><legend>${s.t.payment}</legend>${options}${errorOf(s, name)}</fieldset>`;
}
