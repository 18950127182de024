/** Minimal HTML for the few customer-facing pages the service serves itself. */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
}

/** Tagged template that escapes interpolated values unless they are `raw(...)`. */
export type Raw = { __html: string };
export const raw = (html: string): Raw => ({ __html: html });

export function html(strings: TemplateStringsArray, ...values: unknown[]): Raw {
  let out = strings[0] ?? "";
  values.forEach((v, i) => {
    const piece = Array.isArray(v)
      ? v.map((x) => (typeof x === "object" && x && "__html" in x ? (x as Raw).__html : escapeHtml(String(x)))).join("")
      : typeof v === "object" && v && "__html" in v
        ? (v as Raw).__html
        : escapeHtml(String(v ?? ""));
    out += piece + (strings[i + 1] ?? "");
  });
  return raw(out);
}

export function page(title: string, body: Raw, opts: { color?: string } = {}): string {
  const color = opts.color ?? "#3b1c4a";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body{font-family:system-ui,-apple-system,sans-serif;margin:0;background:#f5f5f7;color:#222}
header{background:${color};color:#fff;padding:1rem 1.5rem}
header h1{margin:0;font-size:1.3rem}
main{max-width:40rem;margin:1.5rem auto;background:#fff;padding:1.5rem;border-radius:.5rem;box-shadow:0 1px 3px rgba(0,0,0,.1)}
label{display:block;margin:.8rem 0 .3rem}
input[type=text],input[type=email]{width:100%;padding:.5rem;box-sizing:border-box;border:1px solid #bbb;border-radius:.3rem}
button,.button{display:inline-block;margin-top:1rem;background:${color};color:#fff;border:0;padding:.6rem 1.2rem;border-radius:.3rem;font-size:1rem;text-decoration:none;cursor:pointer}
.error{background:#fde8e8;color:#8a1f1f;padding:.7rem;border-radius:.3rem}
.ok{background:#e7f6ea;color:#1d5b2a;padding:.7rem;border-radius:.3rem}
table{width:100%;border-collapse:collapse}td,th{text-align:left;padding:.3rem 0;border-bottom:1px solid #eee}
.muted{color:#777;font-size:.9rem}
</style></head>
<body><header><h1>${escapeHtml(title)}</h1></header><main>${body.__html}</main></body></html>`;
}
