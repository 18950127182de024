/**
 * The shop page's products (docs/customer-pages.md "The shop"): by category, each with its
 * price and tax, availability and a labelled quantity field within its limits; variations,
 * add-ons as nested choices, bundles as included; the voucher field. A refusal's message stands
 * next to its field, tied to it with aria-describedby. Pure rendering of services/shop/.
 */
import type { TextLanguage } from "../../rules/checkin-texts";
import type { ShopAddonGroup, ShopCatalog, ShopChoice, ShopProduct } from "../../services/shop/shop-catalog";
import { html, type Raw } from "../html";
import { money, text } from "../storefront";
import { fill, refusalText, type ShopTexts } from "./texts";

/** What the products part of the page shows. */
export type CatalogView = {
  t: ShopTexts;
  lang: TextLanguage;
  catalog: ShopCatalog;
  currency: string;
  /** The form's values as sent (a refused request shows them again). */
  values: Record<string, string>;
  /** Refusal messages by field key (`item_<id>`, `voucher`, `cart`). */
  errors: Record<string, string[]>;
  /** The form's action and its hidden fields (session, date, locale, navigation). */
  cartAction: string;
  hidden: Raw;
  /** The voucher form: the shop's URL (a GET) and its hidden fields. */
  voucherAction: string;
  voucherHidden: Raw;
};

/** The error messages of a field: a paragraph with the id the field refers to. */
export function fieldErrors(v: Pick<CatalogView, "t" | "errors">, key: string): Raw {
  const list = [...new Set(v.errors[key] ?? [])];
  if (!list.length) return html``;
  return html`<p class="error" id="${`err-${key}`}">${list.map((m, i) => html`${i ? html`<br>` : ""}${refusalText(v.t, m)}`)}</p>`;
}

const describedBy = (v: CatalogView, key: string, ...more: string[]) => {
  const ids = [...(v.errors[key]?.length ? [`err-${key}`] : []), ...more];
  return ids.length ? ids.join(" ") : undefined;
};

function priceText(v: CatalogView, c: ShopChoice): string {
  const amount = money(c.price.gross, v.currency);
  if (c.price.taxRate === 0 || c.price.gross === 0) return amount;
  const rate = (c.price.taxRate / 100).toLocaleString(v.lang === "de" ? "de-DE" : "en-GB");
  return `${amount} (${fill(v.t.inclTax, { rate })})`;
}

function stateText(v: CatalogView, c: ShopChoice): string {
  if (c.state === 100) return c.left !== null ? fill(v.t.left, { n: c.left }) : "";
  return c.state === 20 ? v.t.reserved : v.t.soldOut;
}

/** A quantity field for one choice (none when it cannot be bought now). */
function quantityField(
  v: CatalogView,
  opts: { name: string; id: string; label: string; max: number; errorKey: string; info: string },
): Raw {
  const value = v.values[opts.name] ?? "0";
  return html`<label for="${opts.id}">${opts.label}</label>
<input type="number" inputmode="numeric" class="qty" id="${opts.id}" name="${opts.name}" min="0" max="${opts.max}" step="1" value="${value}"${describedBy(v, opts.errorKey, opts.info) ? html` aria-describedby="${describedBy(v, opts.errorKey, opts.info)}"` : ""}>`;
}

/** One choice: its label, price, availability and quantity field. */
function choiceRow(v: CatalogView, p: ShopProduct, c: ShopChoice, field: string, labelName: string): Raw {
  const info = `info-${field}`;
  const state = stateText(v, c);
  const name = c.label ? `${labelName} – ${text(c.label, v.lang)}` : labelName;
  const buyable = c.state === 100 && !p.seated && p.max > 0;
  return html`<div class="choice" data-item="${c.itemId}" data-variation="${c.variationId ?? ""}">
${c.label ? html`<strong>${text(c.label, v.lang)}</strong> ` : ""}<span class="amount" id="${info}">${priceText(v, c)}${state ? html` · <span class="avail">${state}</span>` : ""}</span>
${buyable ? quantityField(v, { name: field, id: `q-${field}`, label: fill(v.t.quantityOf, { name }), max: p.max, errorKey: `item_${p.id}`, info }) : ""}
</div>`;
}

/** The add-on categories of a product: per base position, as nested quantity fields. */
function addonGroups(v: CatalogView, p: ShopProduct): Raw {
  if (!p.addons.length) return html``;
  const base = text(p.name, v.lang);
  const group = (g: ShopAddonGroup) =>
    html`<fieldset class="addons"><legend>${fill(v.t.addonRule, { category: text(g.name, v.lang), min: g.minCount, max: g.maxCount })}</legend>
${g.products.flatMap((a) =>
  a.choices.map((c) => {
    const field = `addon_${p.id}_${a.id}${c.variationId === null ? "" : `_${c.variationId}`}`;
    const name = c.label ? `${text(a.name, v.lang)} – ${text(c.label, v.lang)}` : text(a.name, v.lang);
    const price = g.priceIncluded ? v.t.included : priceText(v, c);
    const buyable = c.state === 100;
    return html`<div class="choice"><strong>${name}</strong> <span class="amount" id="${`info-${field}`}">${price}${buyable ? "" : html` · ${stateText(v, c)}`}</span>
${buyable ? quantityField(v, { name: field, id: `q-${field}`, label: fill(v.t.addonOf, { name, base }), max: g.multiAllowed ? g.maxCount : Math.min(1, g.maxCount), errorKey: `item_${p.id}`, info: `info-${field}` }) : ""}</div>`;
  }),
)}</fieldset>`;
  return html`<div class="addon-block"><p class="muted">${fill(v.t.addonsFor, { name: base })}</p>${p.addons.map(group)}</div>`;
}

function bundleLine(v: CatalogView, p: ShopProduct): Raw {
  if (!p.bundles.length) return html``;
  const list = p.bundles
    .map(
      (b) =>
        `${b.count > 1 ? `${b.count} × ` : ""}${text(b.name, v.lang)}${b.variation ? ` – ${text(b.variation, v.lang)}` : ""}`,
    )
    .join(", ");
  return html`<p class="muted">${fill(v.t.includes, { list })}</p>`;
}

/** One product with its choices, add-ons, bundles and the messages about it. */
function productBlock(v: CatalogView, p: ShopProduct): Raw {
  const name = text(p.name, v.lang);
  const description = text(p.description, v.lang);
  const fieldOf = (c: ShopChoice) => (c.variationId === null ? `item_${p.id}` : `variation_${p.id}_${c.variationId}`);
  return html`<section class="product" id="${`product-${p.id}`}" aria-labelledby="${`name-${p.id}`}">
<h3 id="${`name-${p.id}`}">${name}</h3>
${description ? html`<p class="muted">${description}</p>` : ""}
${p.requireVoucher ? html`<p class="muted">${v.t.voucherOnly}</p>` : ""}
${bundleLine(v, p)}
${p.seated ? html`<p class="note">${v.t.seated}</p>` : ""}
${p.choices.map((c) => choiceRow(v, p, c, fieldOf(c), name))}
${p.seated ? "" : addonGroups(v, p)}
${fieldErrors(v, `item_${p.id}`)}
</section>`;
}

/** The voucher field: a GET form to the shop, which shows the prices with the voucher. */
export function voucherForm(v: CatalogView): Raw {
  const code = v.catalog.voucher?.code ?? "";
  const applied = v.catalog.voucher?.row && !v.errors.voucher?.length;
  return html`<form method="get" action="${v.voucherAction}" class="voucher">${v.voucherHidden}
<label for="voucher">${v.t.voucher}</label>
<input type="text" id="voucher" name="voucher" value="${code}" autocomplete="off"${v.errors.voucher?.length ? html` aria-describedby="err-voucher" aria-invalid="true"` : ""}>
${fieldErrors(v, "voucher")}
${applied ? html`<p class="ok" role="status">${fill(v.t.voucherApplied, { code })}</p>` : ""}
<button type="submit">${v.t.redeem}</button>
</form>`;
}

/** The products form: every section, and the button that adds the choice to the cart. */
export function productsForm(v: CatalogView): Raw {
  const sections = v.catalog.sections;
  if (!sections.length) return html`<p class="muted">${v.t.nothingOnSale}</p>`;
  const voucher = v.catalog.voucher?.row
    ? html`<input type="hidden" name="voucher" value="${v.catalog.voucher.code}">`
    : "";
  return html`<form method="post" action="${v.cartAction}" class="products" novalidate>${v.hidden}${voucher}
${fieldErrors(v, "cart")}
${sections.map(
  (
    s,
  ) => html`${s.category ? html`<h2>${text(s.category.name, v.lang)}</h2>${text(s.category.description, v.lang) ? html`<p class="muted">${text(s.category.description, v.lang)}</p>` : ""}` : html`<h2>${v.t.products}</h2>`}
${s.products.map((p) => productBlock(v, p))}`,
)}
<button type="submit">${v.t.addToCart}</button>
</form>`;
}
