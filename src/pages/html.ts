/**
 * HTML of the customer-facing pages, rendered with hono/html: every interpolated value is
 * escaped unless it is HTML built the same way (or `raw`).
 */
import { html as honoHtml, raw } from "hono/html";
import type { HtmlEscapedString } from "hono/utils/html";

/** HTML that is safe to interpolate (escaped, or built with `html`). */
export type Raw = HtmlEscapedString;
export { raw };

/** Tagged template that escapes interpolated values (arrays are joined); synchronous: pages interpolate no promises. */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  return honoHtml(strings, ...values) as Raw;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;

/** WCAG relative luminance of a `#rrggbb` color. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

/** WCAG contrast ratio of two `#rrggbb` colors (1 to 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The colors derived from the organizer's accent color so that text stays readable (WCAG AA,
 * 4.5:1): white text on the accent when it is dark enough, else near-black; links in the accent
 * color on white when it is dark enough, else in the text color (they stay underlined).
 */
function palette(accent: string): { accent: string; onAccent: string; link: string } {
  const dark = contrastRatio(accent, "#ffffff") >= 4.5;
  return { accent, onAccent: dark ? "#ffffff" : "#111111", link: dark ? accent : "#222222" };
}

/**
 * The pages' style sheet; {accent}, {onAccent} and {link} come from palette(). Small screens
 * first: the content box fills a phone's width, long words (addresses, codes) wrap instead of
 * widening the page, and form controls are comfortable to tap.
 */
const STYLE = `
body{font-family:system-ui,-apple-system,sans-serif;margin:0;background:#f5f5f7;color:#222;line-height:1.4;overflow-wrap:break-word}
header{background:{accent};color:{onAccent};padding:1rem 1.5rem}
header h1{margin:0;font-size:1.3rem}header p{margin:.3rem 0 0}
main{max-width:40rem;margin:1.5rem auto;background:#fff;padding:1.5rem;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
@media (max-width:42rem){header{padding:1rem}main{margin:0 0 1.5rem;border-radius:0;padding:1rem}footer{padding:0 1rem}}
main h2{font-size:1.1rem;margin:1.5rem 0 .5rem}main h2:first-child{margin-top:0}
a{color:{link}}
label{display:block;margin:.8rem 0 .3rem}
input[type=radio],input[type=checkbox]{width:1.1rem;height:1.1rem;margin:0 .3rem 0 0;vertical-align:-.15rem}
input[type=text],input[type=email],input[type=password],input[type=number],input[type=tel],input[type=date],input[type=time],input[type=datetime-local],textarea{width:100%;padding:.6rem;box-sizing:border-box;border:1px solid #767676;border-radius:.3rem;font:inherit}
button,.button{display:inline-block;margin-top:1rem;background:{accent};color:{onAccent};border:0;padding:.7rem 1.2rem;border-radius:.3rem;font:inherit;font-size:1rem;text-decoration:none;cursor:pointer}
.error{background:#fde8e8;color:#8a1f1f;padding:.7rem;border-radius:.3rem}
.ok{background:#e7f6ea;color:#1d5b2a;padding:.7rem;border-radius:.3rem}
.note{background:#fff7e0;color:#6b4e00;padding:.7rem;border-radius:.3rem}
.instructions{white-space:pre-line;background:#f5f5f7;padding:.7rem;border-radius:.3rem;margin:1rem 0}
table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:.3rem .5rem .3rem 0;border-bottom:1px solid #eee;vertical-align:top}
td:last-child,th:last-child{padding-right:0}
td.amount,th.amount{text-align:right;white-space:nowrap}
.muted{color:#595959;font-size:.9rem}
.status{display:inline-block;padding:.1rem .5rem;border-radius:.8rem;font-size:.9rem;background:#eee}
.status-p{background:#e7f6ea;color:#1d5b2a}.status-n{background:#fff7e0;color:#6b4e00}.status-e,.status-c{background:#fde8e8;color:#8a1f1f}
ul.plain{list-style:none;padding:0}ul.plain li{padding:.4rem 0;border-bottom:1px solid #eee}
footer{max-width:40rem;margin:0 auto 2rem;padding:0 1.5rem;color:#595959;font-size:.85rem}
footer a{color:#444;margin-right:1rem;display:inline-block;padding:.2rem 0}
main.bare{margin:0 auto;box-shadow:none}main.bare h1{margin:0 0 1rem;font-size:1.3rem}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:.4rem 1rem;margin:1rem 0}dl.facts dt{color:#595959}dl.facts dd{margin:0;font-weight:600}
fieldset{border:1px solid #ddd;border-radius:.3rem;margin:1rem 0;padding:.5rem 1rem 1rem}legend{font-weight:600;padding:0 .3rem}label.choice{display:block;margin:.5rem 0}
[hidden]{display:none!important}
`;

export type PageOptions = {
  /** Accent color (`#rrggbb`; anything else falls back to the default). */
  color?: string;
  /** Text of the page header; the title when not given. */
  heading?: string;
  /** A line under the heading (e.g. the organizer of an event). */
  subheading?: string;
  footer?: Raw;
  /** The document's language (`lang`); English when not given. */
  lang?: string;
  /**
   * Without the page chrome (header band and footer): for a page framed by an integrator's
   * site, which has its own; the heading then opens the main content.
   */
  bare?: boolean;
  /** Scripts of the service itself, by path, run as modules (the page's policy allows no others). */
  scripts?: string[];
};

export function page(title: string, body: Raw, opts: PageOptions = {}): string {
  const colors = palette(opts.color && COLOR.test(opts.color) ? opts.color : "#3b1c4a");
  const sub = opts.subheading ? html`<p>${opts.subheading}</p>` : "";
  const footer = opts.footer ? html`<footer>${opts.footer}</footer>` : "";
  const style = raw(STYLE.replace(/\{(accent|onAccent|link)\}/g, (_, k: keyof typeof colors) => colors[k]));
  const scripts = (opts.scripts ?? []).map((src) => html`<script type="module" src="${src}"></script>`);
  const heading = opts.heading ?? title;
  const content = opts.bare
    ? html`<main class="bare"><h1>${heading}</h1>${body}</main>`
    : html`<header><h1>${heading}</h1>${sub}</header><main>${body}</main>${footer}`;
  return html`<!doctype html>
<html lang="${opts.lang ?? "en"}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${style}</style>${scripts}</head>
<body>${content}</body></html>`.toString();
}
