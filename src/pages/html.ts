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

/** The pages' style sheet; COLOR is the accent color (checked to be #rrggbb). */
const STYLE = `
body{font-family:system-ui,-apple-system,sans-serif;margin:0;background:#f5f5f7;color:#222}
header{background:COLOR;color:#fff;padding:1rem 1.5rem}
header h1{margin:0;font-size:1.3rem}header p{margin:.3rem 0 0;opacity:.85}
main{max-width:40rem;margin:1.5rem auto;background:#fff;padding:1.5rem;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
main h2{font-size:1.1rem;margin:1.5rem 0 .5rem}main h2:first-child{margin-top:0}
a{color:COLOR}
label{display:block;margin:.8rem 0 .3rem}
input[type=text],input[type=email]{width:100%;padding:.5rem;box-sizing:border-box;border:1px solid #bbb;border-radius:.3rem}
button,.button{display:inline-block;margin-top:1rem;background:COLOR;color:#fff;border:0;padding:.6rem 1.2rem;border-radius:.3rem;font-size:1rem;text-decoration:none;cursor:pointer}
.error{background:#fde8e8;color:#8a1f1f;padding:.7rem;border-radius:.3rem}
.ok{background:#e7f6ea;color:#1d5b2a;padding:.7rem;border-radius:.3rem}
.note{background:#fff7e0;color:#6b4e00;padding:.7rem;border-radius:.3rem}
table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:.3rem 0;border-bottom:1px solid #eee;vertical-align:top}
td.amount,th.amount{text-align:right;white-space:nowrap}
.muted{color:#777;font-size:.9rem}
.status{display:inline-block;padding:.1rem .5rem;border-radius:.8rem;font-size:.9rem;background:#eee}
.status-p{background:#e7f6ea;color:#1d5b2a}.status-n{background:#fff7e0;color:#6b4e00}.status-e,.status-c{background:#fde8e8;color:#8a1f1f}
ul.plain{list-style:none;padding:0}ul.plain li{padding:.4rem 0;border-bottom:1px solid #eee}
footer{max-width:40rem;margin:0 auto 2rem;padding:0 1.5rem;color:#777;font-size:.85rem}
footer a{color:#555;margin-right:1rem}
`;

export type PageOptions = {
  /** Accent color (`#rrggbb`; anything else falls back to the default). */
  color?: string;
  /** Text of the page header; the title when not given. */
  heading?: string;
  /** A line under the heading (e.g. the organizer of an event). */
  subheading?: string;
  footer?: Raw;
};

export function page(title: string, body: Raw, opts: PageOptions = {}): string {
  const color = opts.color && COLOR.test(opts.color) ? opts.color : "#3b1c4a";
  const sub = opts.subheading ? html`<p>${opts.subheading}</p>` : "";
  const footer = opts.footer ? html`<footer>${opts.footer}</footer>` : "";
  const style = raw(STYLE.replaceAll("COLOR", color));
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${style}</style></head>
<body><header><h1>${opts.heading ?? title}</h1>${sub}</header><main>${body}</main>${footer}</body></html>`.toString();
}
