/**
 * The shop's words in English and German (as the waiting page's, pages/waiting-room-texts.ts):
 * the language asked for with `locale`, else the browser's (Accept-Language), within the event's
 * languages (`locales`); else the event's first of the two, else English. Placeholders: `{name}`.
 */
import type { TextLanguage } from "../../rules/checkin-texts";
import { fill, queueLanguage } from "../waiting-room-texts";

export { fill, LANGUAGE_TAGS } from "../waiting-room-texts";

export const SHOP_TEXTS = {
  en: {
    chooseDate: "Choose a date",
    noDates: "No upcoming dates.",
    changeDate: "Choose another date",
    products: "Tickets and products",
    nothingOnSale: "Nothing is on sale at the moment.",
    quantity: "Quantity",
    quantityOf: "Quantity of {name}",
    inclTax: "incl. {rate}% tax",
    soldOut: "Sold out",
    reserved: "Reserved in other carts at the moment: try again in a few minutes.",
    left: "{n} left",
    voucherOnly: "Only with a voucher.",
    seated:
      "Sold with a seat: this shop does not sell seats yet. Seats are sold through the organizer's own shop (the API).",
    addonsFor: "Add-ons for each {name}",
    addonRule: "{category}: choose {min} to {max}",
    addonOf: "Add {name} to each {base}",
    included: "included",
    includes: "Includes: {list}",
    voucher: "Voucher code",
    redeem: "Redeem voucher",
    voucherApplied: "Voucher {code} applied: the prices shown include it.",
    addToCart: "Add to cart",
    cart: "Your cart",
    cartEmpty: "Your cart is empty.",
    held: "Reserved for you until {time} ({minutes} minutes).",
    heldFor: "Reserved for you for another {time}.",
    heldOver: "Your reservation has run out: the products may go to other buyers. Add them again to buy them.",
    remove: "Remove {name}",
    total: "Total",
    checkout: "Checkout",
    removed: "The product was removed from your cart.",
    added: "Added to your cart.",
    notChanged: "Your cart was not changed.",
    presaleBefore: "The sale starts on {time}.",
    presaleAfter: "The sale has ended.",
    // refusals (rules/shop.ts, services/shop/shop-cart.ts)
    quantity_max: "You can buy at most {n} of this product in one order.",
    quantity_min: "This product is sold in at least {n} per order.",
    addon_max: "Choose at most {n} add-ons of this kind.",
    addon_min: "Choose at least {n} add-ons of this kind.",
    addon_invalid: "This add-on cannot be chosen with this product.",
    unknown_product: "One of the chosen products cannot be bought here.",
    nothing_chosen: "Choose at least one product.",
    too_many: "An order may hold at most {n} products.",
    voucher_unknown: "This voucher code is not known.",
    voucher_misfit: "This voucher is not valid for the chosen products.",
    window_before: "The sale has not started yet.",
    window_after: "The sale has ended.",
    refused: "This could not be added: {reason}",
  },
  de: {
    chooseDate: "Datum wählen",
    noDates: "Keine kommenden Termine.",
    changeDate: "Anderes Datum wählen",
    products: "Tickets und Produkte",
    nothingOnSale: "Zurzeit ist nichts im Verkauf.",
    quantity: "Anzahl",
    quantityOf: "Anzahl {name}",
    inclTax: "inkl. {rate} % MwSt.",
    soldOut: "Ausverkauft",
    reserved: "Zurzeit in anderen Warenkörben reserviert: Versuchen Sie es in einigen Minuten erneut.",
    left: "noch {n}",
    voucherOnly: "Nur mit Gutschein.",
    seated:
      "Mit Sitzplatz: Dieser Shop verkauft noch keine Sitzplätze. Sitzplätze gibt es über den eigenen Shop des Veranstalters (die API).",
    addonsFor: "Zusatzprodukte je {name}",
    addonRule: "{category}: {min} bis {max} wählen",
    addonOf: "{name} zu jedem {base} hinzufügen",
    included: "inklusive",
    includes: "Enthält: {list}",
    voucher: "Gutscheincode",
    redeem: "Gutschein einlösen",
    voucherApplied: "Gutschein {code} eingelöst: Die angezeigten Preise enthalten ihn.",
    addToCart: "In den Warenkorb",
    cart: "Ihr Warenkorb",
    cartEmpty: "Ihr Warenkorb ist leer.",
    held: "Für Sie reserviert bis {time} ({minutes} Minuten).",
    heldFor: "Für Sie reserviert für weitere {time}.",
    heldOver:
      "Ihre Reservierung ist abgelaufen: Die Produkte können an andere gehen. Legen Sie sie erneut in den Warenkorb, um sie zu kaufen.",
    remove: "{name} entfernen",
    total: "Summe",
    checkout: "Zur Kasse",
    removed: "Das Produkt wurde aus Ihrem Warenkorb entfernt.",
    added: "Zum Warenkorb hinzugefügt.",
    notChanged: "Ihr Warenkorb wurde nicht geändert.",
    presaleBefore: "Der Verkauf beginnt am {time}.",
    presaleAfter: "Der Verkauf ist beendet.",
    quantity_max: "Von diesem Produkt können Sie höchstens {n} pro Bestellung kaufen.",
    quantity_min: "Dieses Produkt gibt es nur ab {n} Stück pro Bestellung.",
    addon_max: "Wählen Sie höchstens {n} Zusatzprodukte dieser Art.",
    addon_min: "Wählen Sie mindestens {n} Zusatzprodukte dieser Art.",
    addon_invalid: "Dieses Zusatzprodukt kann zu diesem Produkt nicht gewählt werden.",
    unknown_product: "Eines der gewählten Produkte kann hier nicht gekauft werden.",
    nothing_chosen: "Wählen Sie mindestens ein Produkt.",
    too_many: "Eine Bestellung kann höchstens {n} Produkte enthalten.",
    voucher_unknown: "Dieser Gutscheincode ist nicht bekannt.",
    voucher_misfit: "Dieser Gutschein gilt nicht für die gewählten Produkte.",
    window_before: "Der Verkauf hat noch nicht begonnen.",
    window_after: "Der Verkauf ist beendet.",
    refused: "Das konnte nicht hinzugefügt werden: {reason}",
  },
} as const satisfies Record<TextLanguage, Record<string, string>>;

export type ShopTexts = { readonly [K in keyof (typeof SHOP_TEXTS)["en"]]: string };

/** The shop's language for this request (see the header), within the event's `locales`. */
export function shopLanguage(
  locale: string | undefined,
  acceptLanguage: string | undefined,
  eventLocales: unknown,
): TextLanguage {
  const offered = (Array.isArray(eventLocales) ? (eventLocales as string[]) : ["en"])
    .map((l) => l.split("-")[0]!.toLowerCase())
    .filter((l): l is TextLanguage => l === "en" || l === "de");
  const asked = queueLanguage(locale, acceptLanguage);
  if (offered.includes(asked)) return asked;
  return offered[0] ?? "en";
}

/** A refusal's message (a code with its parameter, or `text:` and the sale's own words) in the page's language. */
export function refusalText(t: ShopTexts, message: string): string {
  if (message.startsWith("text:")) return fill(t.refused, { reason: message.slice(5) });
  const [code, param] = message.split(":") as [string, string | undefined];
  const words = (t as Record<string, string>)[code] ?? code;
  return words.replace("{n}", param ?? "");
}
