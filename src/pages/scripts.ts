/**
 * The service's own browser scripts (the waiting page's, the shop's, the embed script): served
 * as JavaScript with an entity tag, a digest of the text computed once per isolate, and
 * revalidated after five minutes, so a deployment with another script changes its tag.
 */
import type { AppContext } from "../http/context";

/** The shop's script (shop/shop.browser.js): the cart's countdown, and Escape in the embed script's frame. */
export const SHOP_SCRIPT_PATH = "/static/shop.js";

const tags = new Map<string, Promise<string>>();

function etagOf(script: string): Promise<string> {
  let tag = tags.get(script);
  if (tag === undefined) {
    tag = crypto.subtle
      .digest("SHA-256", new TextEncoder().encode(script))
      .then((d) => `"${[...new Uint8Array(d).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`);
    tags.set(script, tag);
  }
  return tag;
}

/** The script's answer: 304 when the client has this text, else the text; `extra`: headers of its own. */
export async function serveScript(c: AppContext, script: string, extra: Record<string, string> = {}) {
  const etag = await etagOf(script);
  const headers = {
    "Content-Type": "text/javascript; charset=UTF-8",
    "Cache-Control": "public, max-age=300",
    ETag: etag,
    ...extra,
  };
  if (c.req.header("If-None-Match") === etag) return c.body(null, 304, headers);
  return c.body(script, 200, headers);
}
