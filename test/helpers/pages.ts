/**
 * Customer pages through the real worker: GET and form POSTs without credentials (the order's
 * secret in the URL is the credential), plus the shop set-up the page tests share.
 */
import { expect } from "vitest";
import { exports } from "cloudflare:workers";
import { BASE, type Json } from "../harness";
import { type Shop, shop } from "./sales";

export type PageResponse = { status: number; headers: Headers; text: string; location: string | null };

/** A request as a browser sends it, without following redirects (their Location is checked). */
export async function fetchPage(
  method: string,
  url: string,
  init: { body?: string; headers?: Record<string, string> } = {},
): Promise<PageResponse> {
  const full = url.startsWith("http") ? url : `${BASE}${url}`;
  const res = await exports.default.fetch(
    new Request(full, { method, redirect: "manual", body: init.body, headers: init.headers }),
  );
  return { status: res.status, headers: res.headers, text: await res.text(), location: res.headers.get("Location") };
}

export const getPage = (url: string): Promise<PageResponse> => fetchPage("GET", url);

export const postForm = (url: string, fields: Record<string, string> = {}): Promise<PageResponse> =>
  fetchPage("POST", url, {
    body: new URLSearchParams(fields).toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });

/** `url` with query parameters added. */
export function withQuery(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

export type OrderShop = Shop & { ticket: Json; ticketQuota: Json };

/** A shop with one ticket (20.00 EUR unless given) on a quota of `size`. */
export async function ticketShop(
  opts: { size?: number; price?: string; event?: Record<string, unknown> } = {},
): Promise<OrderShop> {
  const s = await shop({ event: opts.event });
  const ticket = await s.item({ name: { en: "Festival pass" }, default_price: opts.price ?? "20.00" });
  const ticketQuota = await s.quota({ size: opts.size ?? 10, items: [ticket.id] });
  return { ...s, ticket, ticketQuota };
}

export async function placeOrder(s: OrderShop, body: Record<string, unknown> = {}): Promise<Json> {
  const res = await s.client.post(`${s.path}/orders/`, {
    email: "buyer@example.org",
    positions: [{ item: s.ticket.id }],
    ...body,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function readOrder(s: Shop, code: string): Promise<Json> {
  const res = await s.client.get(`${s.path}/orders/${code}/`);
  expect(res.status).toBe(200);
  return res.body;
}

export async function giftCard(s: Shop, value: string, extra: Record<string, unknown> = {}): Promise<Json> {
  const secret = `GC-${Math.random().toString(36).slice(2, 12).toUpperCase()}`;
  const res = await s.client.post(`/api/v1/organizers/${s.orgSlug}/giftcards/`, {
    secret,
    currency: "EUR",
    value,
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

export async function cardState(s: Shop, id: number): Promise<{ value: string; transactions: Json[] }> {
  const card = await s.client.get(`/api/v1/organizers/${s.orgSlug}/giftcards/${id}/`);
  const tx = await s.client.get(`/api/v1/organizers/${s.orgSlug}/giftcards/${id}/transactions/`);
  return { value: card.body.value, transactions: tx.body.results };
}

/** Enables the redirection plugin with the given base URLs (one a line). */
export async function allowReturnUrls(s: Shop, prefix: string, plugins: string[] = []): Promise<void> {
  const ev = await s.client.patch(`${s.path}/`, { plugins: ["pretix.plugins.returnurl", ...plugins] });
  expect(ev.status, JSON.stringify(ev.body)).toBe(200);
  const st = await s.client.patch(`${s.path}/settings/`, { returnurl_prefix: prefix });
  expect(st.status, JSON.stringify(st.body)).toBe(200);
}

/** Visible text of a page (tags removed, whitespace collapsed), for content assertions. */
export function textOf(html: string): string {
  return html
    .replace(/<style[\s\S]*?<\/style>/g, " ")
    .replace(/<[^>]+>/g, " ")
    .replace(/&amp;/g, "&")
    .replace(/&#39;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&nbsp;/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}
