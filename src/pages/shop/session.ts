/**
 * What the shop's pages carry from one request to the next: the visitor's cart id and the
 * waiting room's admission token. Both travel in the query or a form field (`cart`,
 * `admission`), so the shop works framed on another site where the browser keeps no cookie;
 * a cookie on the event's path keeps them for a visitor who comes back to the bare URL.
 */
import { getCookie, setCookie } from "hono/cookie";
import type { AppContext } from "../../http/context";
import { type Nav, withNav } from "../storefront";

export type ShopSession = { cartId: string | null; admission: string | null };

/** How long the cookies live: longer than any cart or admission, which expire by themselves. */
const COOKIE_MAX_AGE_SECONDS = 24 * 3600;
const CART_COOKIE = "shop_cart";
const ADMISSION_COOKIE = "shop_admission";
const CART_ID = /^[A-Za-z0-9]{16,64}@shop$/;
const ADMISSION = /^[A-Za-z0-9._~-]{1,2000}$/;

function pick(pattern: RegExp, ...values: (string | undefined)[]): string | null {
  for (const v of values) if (v !== undefined && pattern.test(v)) return v;
  return null;
}

/** The session of this request: a form field, then the query, then the cookie; malformed values count as none. */
export function readShopSession(c: AppContext, form: Record<string, unknown> = {}): ShopSession {
  const field = (name: string) => (typeof form[name] === "string" ? (form[name] as string) : undefined);
  return {
    cartId: pick(CART_ID, field("cart"), c.req.query("cart"), getCookie(c, CART_COOKIE)),
    admission: pick(ADMISSION, field("admission"), c.req.query("admission"), getCookie(c, ADMISSION_COOKIE)),
  };
}

/** Keeps the session in cookies on the event's path (`eventPath`: `/{organizer}/{event}/`). */
export function keepShopSession(c: AppContext, eventPath: string, s: ShopSession): void {
  const secure = new URL(c.req.url).protocol === "https:";
  const options = { path: eventPath, httpOnly: true, sameSite: "Lax", secure, maxAge: COOKIE_MAX_AGE_SECONDS } as const;
  if (s.cartId !== null) setCookie(c, CART_COOKIE, s.cartId, options);
  if (s.admission !== null) setCookie(c, ADMISSION_COOKIE, s.admission, options);
}

/** `url` with the navigation parameters and the session in its query: every shop link and redirect. */
export function shopLink(url: string, nav: Nav, s: ShopSession): string {
  const extra: Record<string, string> = {};
  if (s.cartId !== null) extra.cart = s.cartId;
  if (s.admission !== null) extra.admission = s.admission;
  return withNav(url, nav, extra);
}
