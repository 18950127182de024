/**
 * The shop's cart on its page: the held positions with their add-ons, prices, the time left
 * (from the cart rows' expiry) and the way on to the checkout; and the form fields of a cart
 * request turned into the lines services/shop/shop-cart.ts adds.
 */
import type { TextLanguage } from "../../rules/checkin-texts";
import type { ShopCatalog } from "../../services/shop/shop-catalog";
import { cartExpiry, type ShopCartEntry, type ShopLine } from "../../services/shop/shop-cart";
import type { I18n } from "../../lib/i18n";
import { html, type Raw } from "../html";
import { money, text } from "../storefront";
import { fill, LANGUAGE_TAGS, type ShopTexts } from "./texts";

export type CartView = {
  t: ShopTexts;
  lang: TextLanguage;
  entries: ShopCartEntry[];
  labels: ShopCatalog["labels"];
  currency: string;
  timeZone: string;
  now: number;
  removeAction: string;
  hidden: Raw;
  checkoutUrl: string;
};

function label(labels: CartView["labels"], lang: TextLanguage, r: { itemId: number; variationId: number | null }) {
  const name = (id: number, m: Map<number, I18n>) => text(m.get(id) ?? null, lang);
  const item = name(r.itemId, labels.items);
  return r.variationId === null ? item : `${item} – ${name(r.variationId, labels.variations)}`;
}

function timeText(ms: number, lang: TextLanguage, timeZone: string): string {
  try {
    return new Intl.DateTimeFormat(LANGUAGE_TAGS[lang], { hour: "2-digit", minute: "2-digit", timeZone }).format(ms);
  } catch {
    return new Date(ms).toISOString().slice(11, 16);
  }
}

/** The cart: its positions (each with a labelled remove button), total, time left and the checkout link. */
export function cartPanel(v: CartView): Raw {
  if (!v.entries.length)
    return html`<section id="cart" aria-labelledby="cart-heading"><h2 id="cart-heading">${v.t.cart}</h2><p class="muted">${v.t.cartEmpty}</p></section>`;
  const expiry = cartExpiry(v.entries)!;
  const minutes = Math.max(0, Math.ceil((expiry - v.now) / 60_000));
  const total = v.entries.reduce((s, e) => s + e.position.price + e.children.reduce((c, r) => c + r.price, 0), 0);
  const rows = v.entries.map((e) => {
    const name = label(v.labels, v.lang, e.position);
    const children = e.children.map(
      (r) =>
        html`<br><span class="muted">+ ${label(v.labels, v.lang, r)}${r.price ? ` (${money(r.price, v.currency)})` : ""}</span>`,
    );
    return html`<tr><td>${name}${children}</td><td class="amount">${money(e.position.price + e.children.reduce((c, r) => c + r.price, 0), v.currency)}</td>
<td class="amount"><form method="post" action="${v.removeAction}">${v.hidden}<input type="hidden" name="position" value="${e.position.id}"><button type="submit" class="link" aria-label="${fill(v.t.remove, { name })}">×</button></form></td></tr>`;
  });
  return html`<section id="cart" aria-labelledby="cart-heading"><h2 id="cart-heading">${v.t.cart}</h2>
<table>${rows}<tr><th>${v.t.total}</th><th class="amount">${money(total, v.currency)}</th><th></th></tr></table>
<p class="note" id="cart-timer" data-expires="${expiry}" data-left="${v.t.heldFor}" data-expired="${v.t.heldOver}">${fill(v.t.held, { time: timeText(expiry, v.lang, v.timeZone), minutes })}</p>
<p><a class="button" href="${v.checkoutUrl}">${v.t.checkout}</a></p>
</section>`;
}

const COUNT = /^[0-9]{1,4}$/;

/**
 * The lines of a cart form: `item_<id>` and `variation_<id>_<variation>` quantities, and
 * `addon_<base>_<item>[_<variation>]` per base position. Malformed and zero fields are ignored.
 */
export function parseLines(form: Record<string, unknown>): ShopLine[] {
  const lines: ShopLine[] = [];
  const addons: { base: number; itemId: number; variationId: number | null; count: number }[] = [];
  for (const [key, raw] of Object.entries(form)) {
    const value = typeof raw === "string" ? raw.trim() : "";
    if (!COUNT.test(value) || Number(value) === 0) continue;
    const count = Number(value);
    let m = /^item_([0-9]{1,15})$/.exec(key);
    if (m) lines.push({ itemId: Number(m[1]), variationId: null, count, addons: [] });
    m = /^variation_([0-9]{1,15})_([0-9]{1,15})$/.exec(key);
    if (m) lines.push({ itemId: Number(m[1]), variationId: Number(m[2]), count, addons: [] });
    m = /^addon_([0-9]{1,15})_([0-9]{1,15})(?:_([0-9]{1,15}))?$/.exec(key);
    if (m) addons.push({ base: Number(m[1]), itemId: Number(m[2]), variationId: m[3] ? Number(m[3]) : null, count });
  }
  for (const line of lines) line.addons = addons.filter((a) => a.base === line.itemId).map(({ base: _, ...a }) => a);
  return lines;
}
