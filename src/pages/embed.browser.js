/*
 * The embed script organizers paste on their own site (served at /widget/v1.js; docs/embedding.md).
 * It turns each `.ticketing-widget` element into a buy button or the event's product list, and
 * opens the shop (the event's public URL) in an overlay dialog with a frame (`iframe=1`) or in a
 * new window. No third-party requests, no inline styles (a constructed style sheet), nothing
 * evaluated: a host page whose CSP allows this origin in script-src and frame-src runs it.
 */
// biome-ignore lint/suspicious/noRedundantUseStrict: a classic script (not a module): strict keeps the block's functions out of the host's globals
"use strict";
{
  const CLASS = "ticketing-widget";

  const TEXTS = {
    en: {
      buy: "Buy tickets",
      shop: "Ticket shop",
      close: "Close",
      loading: "Loading tickets…",
      failed: "The tickets could not be loaded.",
      open: "Open the ticket shop",
      from: "from {price}",
      free: "Free",
      left: "{n} left",
      reserved: "Reserved",
      soldOut: "Sold out",
      voucherOnly: "Only with a voucher",
      nothing: "Nothing is on sale at the moment.",
      newWindow: "(opens in a new window)",
    },
    de: {
      buy: "Tickets kaufen",
      shop: "Ticketshop",
      close: "Schließen",
      loading: "Tickets werden geladen…",
      failed: "Die Tickets konnten nicht geladen werden.",
      open: "Zum Ticketshop",
      from: "ab {price}",
      free: "Kostenlos",
      left: "noch {n}",
      reserved: "Reserviert",
      soldOut: "Ausverkauft",
      voucherOnly: "Nur mit Gutschein",
      nothing: "Zurzeit ist nichts im Verkauf.",
      newWindow: "(öffnet ein neues Fenster)",
    },
  };

  // every selector inside :where(): no specificity, so any rule of the host page wins
  const CSS = `
:where(.${CLASS}-button){display:inline-block;font:inherit;font-weight:600;padding:.6em 1.2em;border:0;border-radius:.4em;background:#1d4ed8;color:#fff;text-decoration:none;cursor:pointer}
:where(.${CLASS}-button:focus-visible,.${CLASS}-close:focus-visible){outline:3px solid #f59e0b;outline-offset:2px}
:where(.${CLASS}-list){border:1px solid #d1d5db;border-radius:.5em;padding:1em;max-width:40em}
:where(.${CLASS}-title){font-weight:700;margin:0 0 .5em}
:where(.${CLASS}-category){font-weight:600;margin:.8em 0 .2em}
:where(.${CLASS}-products){list-style:none;margin:0 0 1em;padding:0}
:where(.${CLASS}-product){display:flex;flex-wrap:wrap;gap:.2em 1em;justify-content:space-between;padding:.4em 0;border-bottom:1px solid #e5e7eb}
:where(.${CLASS}-product .${CLASS}-products){flex-basis:100%;margin:0 0 0 1em}
:where(.${CLASS}-note){flex-basis:100%;color:#4b5563;font-size:.9em}
:where(.${CLASS}-price){white-space:nowrap}
:where(.${CLASS}-hidden){position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
:where(.${CLASS}-state){color:#4b5563;font-size:.9em}
:where(.${CLASS}-dialog){padding:0;border:0;border-radius:.5em;width:min(960px,calc(100vw - 2em));height:calc(100vh - 4em);max-width:none;max-height:none;overflow:hidden;box-shadow:0 10px 40px rgba(0,0,0,.4)}
:where(.${CLASS}-dialog[open]){display:flex;flex-direction:column}
:where(.${CLASS}-dialog)::backdrop{background:rgba(0,0,0,.6)}
:where(.${CLASS}-bar){display:flex;align-items:center;justify-content:space-between;gap:1em;padding:.4em .6em .4em 1em;background:#f3f4f6;color:#111827}
:where(.${CLASS}-bar-title){margin:0;font-size:1em;font-weight:600;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}
:where(.${CLASS}-close){font:inherit;padding:.4em .8em;border:1px solid #6b7280;border-radius:.4em;background:#fff;color:#111827;cursor:pointer}
:where(.${CLASS}-frame){flex:1;width:100%;border:0;background:#fff}
:where(html.${CLASS}-open){overflow:hidden}
@media (max-width:640px){:where(.${CLASS}-dialog){width:100vw;height:100vh;height:100dvh;border-radius:0;margin:0}}
`;

  const lang = () => {
    const l = (document.documentElement.lang || navigator.language || "en").slice(0, 2).toLowerCase();
    return Object.hasOwn(TEXTS, l) ? l : "en";
  };
  const t = () => TEXTS[lang()];
  const fill = (text, values) => text.replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));

  let styled = false;

  /** The style sheet, once: constructed (outside the host's style-src), else a style element. */
  function addStyles() {
    if (styled) return;
    styled = true;
    try {
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS);
      document.adoptedStyleSheets = [...document.adoptedStyleSheets, sheet];
    } catch {
      // an older browser: a style element (a host CSP without 'unsafe-inline' in style-src leaves it unstyled)
      const style = document.createElement("style");
      style.textContent = CSS;
      document.head.appendChild(style);
    }
  }

  /** The event's shop as an absolute http(s) URL ending in a slash, or null. */
  function eventUrl(raw) {
    try {
      const url = new URL(raw, document.baseURI);
      if (url.protocol !== "https:" && url.protocol !== "http:") return null;
      url.hash = "";
      url.search = "";
      if (!url.pathname.endsWith("/")) url.pathname += "/";
      return url;
    } catch {
      return null;
    }
  }

  /** The shop's URL to open: framed ones keep `iframe=1`; a voucher and a date pass along. */
  function shopUrl(event, options) {
    const url = eventUrl(event);
    if (!url) throw new Error(`TicketingWidget: not an http(s) URL: ${event}`);
    if (options.target !== "window") url.searchParams.set("iframe", "1");
    if (options.voucher) url.searchParams.set("voucher", options.voucher);
    if (options.subevent) url.searchParams.set("subevent", String(options.subevent));
    return url.href;
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = `${CLASS}-${className}`;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ---- the overlay ----

  let overlay = null;

  /** The dialog, made once: a bar with its title and close button, and the frame. */
  function dialog() {
    if (overlay) return overlay;
    addStyles();
    const box = el("dialog", "dialog");
    box.setAttribute("aria-modal", "true");
    box.setAttribute("aria-labelledby", `${CLASS}-dialog-title`);
    const bar = el("div", "bar");
    const title = el("p", "bar-title");
    title.id = `${CLASS}-dialog-title`;
    const close = el("button", "close");
    close.type = "button";
    const frame = el("iframe", "frame");
    frame.setAttribute("allow", "payment");
    bar.append(title, close);
    box.append(bar, frame);
    document.body.appendChild(box);
    overlay = { box, title, close, frame, returnTo: null };
    close.addEventListener("click", closeShop);
    // Escape: the browser's cancel of a modal dialog, closed our way (focus goes back)
    box.addEventListener("cancel", (e) => {
      e.preventDefault();
      closeShop();
    });
    // Escape inside the shop reaches the shop's document, not this one: the shop may ask to close
    window.addEventListener("message", (e) => {
      if (e.source === frame.contentWindow && e.data?.ticketingWidget === "close") closeShop();
    });
    // a click on the backdrop (outside the dialog's box) closes it too
    box.addEventListener("click", (e) => {
      if (e.target === box) closeShop();
    });
    return overlay;
  }

  function closeShop() {
    if (!overlay?.box.open) return;
    // the frame stays: opened again, the shop shows where the visitor left it
    overlay.box.close();
    document.documentElement.classList.remove(`${CLASS}-open`);
    const back = overlay.returnTo;
    overlay.returnTo = null;
    if (back && typeof back.focus === "function" && back.isConnected) back.focus();
  }

  /** Opens the shop of `event` (its public URL): in the overlay, or a new window (`target: "window"`). */
  function openShop(event, options = {}) {
    const framed = options.target !== "window" && typeof HTMLDialogElement === "function";
    const url = shopUrl(event, { ...options, target: framed ? "frame" : "window" });
    if (!framed) {
      window.open(url, "_blank", "noopener");
      return;
    }
    const o = dialog();
    const texts = t();
    o.returnTo = document.activeElement;
    o.title.textContent = options.title || texts.shop;
    o.close.textContent = texts.close;
    o.frame.title = options.title ? `${texts.shop}: ${options.title}` : texts.shop;
    if (o.frame.getAttribute("src") !== url) o.frame.src = url;
    document.documentElement.classList.add(`${CLASS}-open`);
    if (!o.box.open) o.box.showModal();
    o.close.focus();
  }

  // ---- the elements organizers paste ----

  /** What an element asks for: its data attributes (docs/embedding.md). */
  function settingsOf(node) {
    const d = node.dataset;
    return {
      event: d.event,
      mode: d.mode === "list" ? "list" : "button",
      target: d.target === "window" ? "window" : "frame",
      voucher: d.voucher || "",
      subevent: /^[0-9]+$/.test(d.subevent || "") ? d.subevent : "",
      label: d.label || "",
      title: d.title || "",
    };
  }

  /** The button (frame) or link (window) that opens the shop. */
  function opener(s, label) {
    const texts = t();
    if (s.target === "window") {
      const link = el("a", "button", label);
      link.href = shopUrl(s.event, s);
      link.target = "_blank";
      link.rel = "noopener";
      link.append(el("span", "hidden", ` ${texts.newWindow}`));
      return link;
    }
    const button = el("button", "button", label);
    button.type = "button";
    button.addEventListener("click", () => openShop(s.event, s));
    return button;
  }

  function priceText(p, free, currency) {
    const texts = t();
    const amount = Number(p);
    if (amount === 0 && !free) return texts.free;
    let shown;
    try {
      shown = new Intl.NumberFormat(lang(), { style: "currency", currency }).format(amount);
    } catch {
      shown = `${currency} ${p}`;
    }
    return free ? fill(texts.from, { price: shown }) : shown;
  }

  function stateText(o) {
    const texts = t();
    if (o.availability_state === null || o.availability_state === undefined) return "";
    if (o.availability_state >= 100)
      return o.available_number === null ? "" : fill(texts.left, { n: o.available_number });
    return o.availability_state >= 20 ? texts.reserved : texts.soldOut;
  }

  /** One product's row: name, price and availability (per variation when it has some). */
  function productRow(item, currency) {
    const row = el("li", "product");
    row.append(el("span", "name", item.name));
    const offers = item.variations.length ? null : item;
    if (offers) {
      row.append(el("span", "price", priceText(item.price, item.free_price, currency)));
      const state = stateText(item);
      if (state) row.append(el("span", "state", state));
    }
    const notes = [item.require_voucher ? t().voucherOnly : "", item.description || ""].filter(Boolean);
    if (notes.length) row.append(el("span", "note", notes.join(" · ")));
    if (item.variations.length) {
      const list = el("ul", "products");
      for (const v of item.variations) list.append(productRow({ ...v, name: v.value, variations: [] }, currency));
      row.append(list);
    }
    return row;
  }

  /** The product list of `data` (the product list JSON) in `root`, then the button to the shop. */
  function showList(root, s, data) {
    const texts = t();
    const section = el("section", "list");
    const titleId = `${CLASS}-list-${Math.random().toString(36).slice(2)}`;
    section.setAttribute("aria-labelledby", titleId);
    const title = el("p", "title", data.name);
    title.id = titleId;
    section.append(title);
    let count = 0;
    for (const group of data.items_by_category) {
      if (group.name) section.append(el("p", "category", group.name));
      const list = el("ul", "products");
      for (const item of group.items) list.append(productRow(item, data.currency));
      count += group.items.length;
      section.append(list);
    }
    if (!count) section.append(el("p", "note", texts.nothing));
    section.append(opener({ ...s, title: s.title || data.name }, s.label || texts.buy));
    root.replaceChildren(section);
  }

  async function loadList(root, s, fallback) {
    const url = eventUrl(s.event);
    url.pathname += "widget/product_list";
    url.searchParams.set("locale", lang());
    if (s.subevent) url.searchParams.set("subevent", s.subevent);
    root.setAttribute("aria-busy", "true");
    try {
      const res = await fetch(url.href, { credentials: "omit" });
      if (!res.ok) throw new Error(`product list: ${res.status}`);
      showList(root, s, await res.json());
    } catch (e) {
      const note = el("p", "note", t().failed);
      root.replaceChildren(note, ...fallback);
      console.warn("TicketingWidget:", e);
    } finally {
      root.removeAttribute("aria-busy");
    }
  }

  /** Turns the widget elements below `scope` (not yet built) into buttons or lists. */
  function build(scope = document) {
    for (const node of scope.querySelectorAll(`.${CLASS}:not([data-built])`)) {
      const s = settingsOf(node);
      if (!s.event || !eventUrl(s.event)) continue;
      node.setAttribute("data-built", "");
      addStyles();
      // the organizer's fallback link: its words label the button, and it comes back if the list fails
      const fallback = [...node.childNodes];
      const label = s.label || node.textContent.trim() || t().buy;
      if (s.mode === "list") {
        node.replaceChildren(el("p", "note", t().loading));
        loadList(node, s, fallback);
      } else node.replaceChildren(opener(s, label));
    }
  }

  if (!window.TicketingWidget) {
    window.TicketingWidget = { open: openShop, close: closeShop, build };
    if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", () => build());
    else build();
  }
}
