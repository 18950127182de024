/**
 * Lists: the pagination envelope (`count`, absolute `next` / `previous`, `results`), 50 per
 * page, `page_size` lowering but never raising it; and `ordering` with per-resource
 * allow-lists and `-` for descending.
 */
import { asc, desc, type SQL } from "drizzle-orm";
import type { AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import type { AppContext } from "./context";
import { notFound } from "../domain/failure";

export const PAGE_SIZE = 50;

export type PageRequest = { page: number; pageSize: number; limit: number; offset: number };

const INVALID_PAGE = "Invalid page.";

/** Reads `page` and `page_size`. A page that is not a positive integer is a 404. */
export function pageRequest(c: AppContext): PageRequest {
  const rawPage = c.req.query("page");
  let page = 1;
  if (rawPage !== undefined && rawPage !== "") {
    if (!/^\d{1,9}$/.test(rawPage) || Number(rawPage) < 1) throw notFound(INVALID_PAGE);
    page = Number(rawPage);
  }
  let pageSize = PAGE_SIZE;
  const rawSize = c.req.query("page_size");
  if (rawSize !== undefined && /^\d+$/.test(rawSize) && Number(rawSize) > 0) {
    pageSize = Math.min(Number(rawSize), PAGE_SIZE);
  }
  return { page, pageSize, limit: pageSize, offset: (page - 1) * pageSize };
}

function withPage(url: URL, page: number): string {
  const u = new URL(url);
  if (page <= 1) u.searchParams.delete("page");
  else u.searchParams.set("page", String(page));
  return u.toString();
}

export type Envelope<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/**
 * Builds the envelope. A page past the end answers 404 (the first page of an empty list is
 * an empty 200).
 */
export function envelope<T>(c: AppContext, req: PageRequest, count: number, results: T[]): Envelope<T> {
  const pages = Math.max(1, Math.ceil(count / req.pageSize));
  if (req.page > pages) throw notFound(INVALID_PAGE);
  const url = new URL(c.req.url);
  return {
    count,
    next: req.page < pages ? withPage(url, req.page + 1) : null,
    previous: req.page > 1 ? withPage(url, req.page - 1) : null,
    results,
  };
}

export type OrderingFields = Record<string, AnySQLiteColumn | SQL>;

/**
 * Reads `ordering` (comma-separated, `-` reverses). Fields outside the allow-list are
 * ignored; with none left the default applies. `tiebreaker` keeps pages stable.
 */
export function ordering(c: AppContext, allowed: OrderingFields, defaults: string, tiebreaker: AnySQLiteColumn): SQL[] {
  const parse = (text: string) =>
    text
      .split(",")
      .map((f) => f.trim())
      .filter((f) => f !== "" && (f.startsWith("-") ? f.slice(1) : f) in allowed);
  let fields = parse(c.req.query("ordering") ?? "");
  if (fields.length === 0) fields = parse(defaults);
  const out = fields.map((f) => (f.startsWith("-") ? desc(allowed[f.slice(1)]!) : asc(allowed[f]!)));
  out.push(asc(tiebreaker));
  return out;
}
