/**
 * The interactive API reference (`GET /api/docs`), served entirely by the service: Scalar's
 * reference UI from its npm package (`@scalar/api-reference`, pinned in package.json), whose
 * self-contained browser bundle is part of the Worker (wrangler.toml `[[rules]]`: imported as
 * text). Nothing is loaded from another host, so the page works offline and behind firewalls.
 * The page shows a plain link to the description (`openapi.json`) that stays when the script
 * cannot run.
 */
import type { Hono } from "hono";
import type { AppEnv } from "./context";
import scalarBundle from "../../node_modules/@scalar/api-reference/dist/browser/standalone.js";

/** The script's path (beside the page). */
export const REFERENCE_SCRIPT_PATH = "/api/docs/api-reference.js";

/**
 * The page's policy: everything from the service itself. Scalar writes its styles into the
 * document and shows data: images; the "try it" client calls the API on this origin.
 */
const PAGE_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/**
 * Scalar's settings: its default fonts would come from Scalar's font host (off: the system's
 * fonts), and its telemetry, its AI agent and its developer toolbar (shown on localhost) would
 * talk to Scalar's services: off. The Token and Device schemes are prefilled with their word, so
 * that a copied curl example sends `Authorization: Token …`.
 */
const SETTINGS = {
  withDefaultFonts: false,
  telemetry: false,
  agent: { disabled: true },
  mcp: { disabled: true },
  showDeveloperTools: "never",
  // Scalar's curl and "try it" send an apiKey's value as the whole header: with the scheme's word
  authentication: {
    preferredSecurityScheme: "Token",
    securitySchemes: { Token: { value: "Token YOUR_SECRET_TOKEN" }, Device: { value: "Device YOUR_DEVICE_TOKEN" } },
  },
};

/**
 * The page: a header with the plain link, then Scalar's mount point. Scalar's HTML interface
 * reads the description's URL and the settings from the `api-reference` element's attributes,
 * so the page has no inline script.
 */
export function referencePage(opts: { title: string; descriptionUrl: string }): string {
  const settings = JSON.stringify(SETTINGS);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeAttr(opts.title)}</title>
<style>
.api-description-link { margin: 0; padding: 0.5rem 1rem; font: 14px/1.4 system-ui, sans-serif; border-bottom: 1px solid #ddd; }
</style>
</head>
<body>
<p class="api-description-link">The API description (OpenAPI 3.1): <a href="${escapeAttr(opts.descriptionUrl)}">openapi.json</a></p>
<noscript><p class="api-description-link">The interactive reference needs JavaScript; the description above has every operation.</p></noscript>
<script id="api-reference" data-url="${escapeAttr(opts.descriptionUrl)}" data-configuration="${escapeAttr(settings)}"></script>
<script src="${REFERENCE_SCRIPT_PATH}"></script>
</body>
</html>
`;
}

let bundleTag: Promise<string> | null = null;

/** The bundle's entity tag: a digest of its text, computed once per isolate. */
function scriptTag(): Promise<string> {
  bundleTag ??= crypto.subtle
    .digest("SHA-256", new TextEncoder().encode(scalarBundle))
    .then((d) => `"${[...new Uint8Array(d).slice(0, 12)].map((b) => b.toString(16).padStart(2, "0")).join("")}"`);
  return bundleTag;
}

/** `GET /api/docs` and its script, on `app`. */
export function mountReference(app: Hono<AppEnv>, opts: { title: string; descriptionUrl: string }): void {
  const html = referencePage(opts);
  app.get("/api/docs", (c) =>
    c.body(html, 200, {
      "Content-Type": "text/html; charset=UTF-8",
      "Cache-Control": "public, max-age=300",
      "Content-Security-Policy": PAGE_POLICY,
      "X-Content-Type-Options": "nosniff",
      "Referrer-Policy": "same-origin",
    }),
  );
  app.get(REFERENCE_SCRIPT_PATH, async (c) => {
    const etag = await scriptTag();
    const headers = {
      "Content-Type": "text/javascript; charset=UTF-8",
      // revalidated after an hour: a deployment with another version of the bundle changes its tag
      "Cache-Control": "public, max-age=3600",
      ETag: etag,
      "X-Content-Type-Options": "nosniff",
    };
    if (c.req.header("If-None-Match") === etag) return c.body(null, 304, headers);
    return c.body(scalarBundle, 200, headers);
  });
}
