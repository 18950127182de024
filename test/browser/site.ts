/**
 * The integrator's site, listening on 127.0.0.1 on a port of its own and addressed as
 * `http://localhost:PORT` (another origin than the service's; `returnurl_prefix` accepts plain
 * http only for localhost, as pretix does): the page customers come back to through
 * `return_url`, and pages that embed the service's pages in iframes. Plain node:http.
 */
import http from "node:http";
import type net from "node:net";

export type Site = {
  /** `http://localhost:PORT` */
  base: string;
  /** Serves `body` as an HTML page at `path` from now on. */
  setPage(path: string, body: string): void;
  /** Every request the site received (method and path with query), in order. */
  requests: string[];
  close(): Promise<void>;
};

export function escapeHtml(s: string): string {
  return s
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

/** The return page: shows the query parameters it was called with (`error` among them). */
function returnPage(url: URL): string {
  const params = [...url.searchParams].map(
    ([k, v]) => `<li><code>${escapeHtml(k)}</code> = <code id="param-${escapeHtml(k)}">${escapeHtml(v)}</code></li>`,
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Back at the shop</title></head>
<body><main><h1>Back at the shop</h1><ul>${params.join("")}</ul></main></body></html>`;
}

export function startSite(): Promise<Site> {
  const pages = new Map<string, string>();
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    requests.push(`${req.method} ${url.pathname}${url.search}`);
    const body = url.pathname.startsWith("/return/") ? returnPage(url) : pages.get(url.pathname);
    if (body === undefined) {
      res.writeHead(404, { "Content-Type": "text/plain" }).end("not found");
      return;
    }
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" }).end(body);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({
        base: `http://localhost:${port}`,
        setPage: (path, body) => pages.set(path, body),
        requests,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}
