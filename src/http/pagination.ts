/**
 * Lists on the wire: `page` and `page_size` (50 per page, `page_size` lowering but never
 * raising it), `ordering` (handed to the list's ordering table, src/db/paging.ts), and the
 * envelope `count`, absolute `next` / `previous`, `results`. Every list route reads its
 * request with `listRequest` and answers with `respondPage`.
 */
import { z } from "zod";
import type { ListRequest, Page } from "../db/paging";
import { notFound } from "../lib/failure";
import type { AppContext } from "./context";

export const PAGE_SIZE = 50;

const INVALID_PAGE = "Invalid page.";

/** Reads `page`, `page_size` and `ordering`. A page that is not a positive integer is a 404. */
export function listRequest(c: AppContext): ListRequest {
  const rawPage = c.req.query("page");
  let page = 1;
  if (rawPage !== undefined && rawPage !== "") {
    if (!/^\d{1,9}$/.test(rawPage) || Number(rawPage) < 1) throw notFound(INVALID_PAGE);
    page = Number(rawPage);
  }
  let pageSize = PAGE_SIZE;
  const rawSize = c.req.query("page_size");
  if (rawSize !== undefined && /^\d{1,9}$/.test(rawSize) && Number(rawSize) > 0) {
    pageSize = Math.min(Number(rawSize), PAGE_SIZE);
  }
  return { page, pageSize, ordering: c.req.query("ordering") };
}

function withPage(url: URL, page: number): string {
  const u = new URL(url);
  if (page <= 1) u.searchParams.delete("page");
  else u.searchParams.set("page", String(page));
  return u.toString();
}

export type Envelope<T> = { count: number; next: string | null; previous: string | null; results: T[] };

/** The envelope's schema around a resource's response schema. */
export function envelopeSchema<T extends z.ZodType>(item: T) {
  return z.object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(item),
  });
}

/**
 * The envelope of a page. A page past the end answers 404 (the first page of an empty list is
 * an empty 200).
 */
export function envelope<T>(c: AppContext, req: ListRequest, count: number, results: T[]): Envelope<T> {
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

/** The JSON answer of a list: the page's rows serialized into the envelope. */
export function respondPage<R, J>(c: AppContext, req: ListRequest, page: Page<R>, serialize: (row: R) => J): Response {
  return c.json(envelope(c, req, page.count, page.rows.map(serialize)));
}
