/**
 * Debian's Chromium driven by playwright-core, never a browser a test tool downloads itself,
 * and what every page visited gets checked for:
 * - a screenshot at a desktop and at a phone-sized viewport (SCREENSHOT_DIR, ignored by git,
 *   kept by CI as artifacts);
 * - no horizontal overflow at phone size (the document is not wider than the viewport);
 * - axe-core's accessibility rules: no serious or critical violation.
 *
 * The customer's context runs with JavaScript disabled (the pages are plain HTML forms).
 * axe-core needs JavaScript, so it checks the same document — the HTML the customer's page
 * shows — in a second context of the same browser with JavaScript on.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { projectRoot } from "../../src/cli/wrangler.ts";

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/** Where the screenshots and the accessibility report land (see .gitignore and docs/testing.md). */
export const SCREENSHOT_DIR = path.resolve(projectRoot, process.env.BROWSER_ARTIFACTS ?? "artifacts/browser");

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** The flags a closed network needs: no background connections, no component or sync traffic. */
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

export type AxeViolation = {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[]; failureSummary?: string }[];
};

export type PageReport = {
  name: string;
  url: string;
  phoneScrollWidth: number;
  /** How long the screenshots and the axe-core check took. */
  ms: { screenshots: number; axe: number };
  violations: { id: string; impact: string | null; help: string; targets: string[] }[];
};

export type Browsing = {
  browser: Browser;
  /** The customer's context: JavaScript off, desktop viewport. */
  customer: BrowserContext;
  /** A new page of the customer's context. */
  newPage(): Promise<Page>;
  /**
   * Screenshots (desktop, phone), the phone-size overflow check and axe-core, for the page as
   * it is shown now. Overflow and serious or critical violations are problems (takeProblems).
   */
  inspect(page: Page, name: string): Promise<PageReport>;
  /** Screenshots only (desktop, phone): for the integrator's pages that embed the service's. */
  screenshot(page: Page, name: string): Promise<void>;
  /** The problems found since the last call (a test's afterEach fails on any). */
  takeProblems(): string[];
  reports: PageReport[];
  close(): Promise<void>;
};

/** Debian's Chromium, headless, with a fresh, empty user data directory of its own. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `no Chromium at ${CHROMIUM}: install Debian's package (apt-get install -y chromium) or set CHROMIUM_PATH; this test never downloads a browser`,
    );
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Empties SCREENSHOT_DIR: once per run, before the first file (global-setup.ts). */
export function clearScreenshots(): void {
  rmSync(SCREENSHOT_DIR, { recursive: true, force: true });
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
}

export async function openBrowser(): Promise<Browsing> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const browser = await launchChromium();
  const customer = await browser.newContext({ javaScriptEnabled: false, viewport: DESKTOP });
  const checker = await browser.newContext({ javaScriptEnabled: true, viewport: DESKTOP });
  const reports: PageReport[] = [];
  let problems: string[] = [];
  let counter = 0;

  // One page of the checker context: axe-core is loaded into it once (half a megabyte to
  // compile), and each document is written into it in turn (the window, axe with it, stays).
  let axePage: Page | null = null;
  async function axe(html: string): Promise<AxeViolation[]> {
    axePage ??= await checker.newPage();
    // the customer's document: its HTML with its inline style sheet, nothing else to load
    await axePage.setContent(html, { waitUntil: "load" });
    // (page code as strings: this project's Node-side type check has no DOM types)
    if ((await axePage.evaluate("typeof axe")) !== "object") await axePage.evaluate(axeSource);
    const result = (await axePage.evaluate(`axe.run(document, { resultTypes: ["violations"] })`)) as {
      violations: AxeViolation[];
    };
    return result.violations;
  }

  /** Desktop and phone screenshots; the document's width at phone size. */
  async function photograph(page: Page, file: string): Promise<number> {
    await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${file}.desktop.png`), fullPage: true });
    const desktop = page.viewportSize() ?? DESKTOP;
    try {
      await page.setViewportSize(PHONE);
      const width = (await page.evaluate("document.scrollingElement.scrollWidth")) as number;
      await page.screenshot({ path: path.join(SCREENSHOT_DIR, `${file}.phone.png`), fullPage: true });
      return width;
    } finally {
      await page.setViewportSize(desktop);
    }
  }

  const nextFile = (name: string) => `${String(++counter).padStart(2, "0")}-${name}`;

  async function inspect(page: Page, name: string): Promise<PageReport> {
    const file = nextFile(name);
    const url = page.url();
    const html = await page.content();
    const t0 = Date.now();
    const phoneScrollWidth = await photograph(page, file);
    const t1 = Date.now();
    const found = await axe(html);
    const ms = { screenshots: t1 - t0, axe: Date.now() - t1 };
    const violations = found.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map(
        (n) => `${JSON.stringify(n.target)}${n.failureSummary ? `: ${n.failureSummary.replace(/\s+/g, " ")}` : ""}`,
      ),
    }));
    const report = { name: file, url, phoneScrollWidth, ms, violations };
    reports.push(report);
    writeFileSync(path.join(SCREENSHOT_DIR, "report.json"), `${JSON.stringify(reports, null, 2)}\n`);

    if (phoneScrollWidth > PHONE.width)
      problems.push(`${file}: ${phoneScrollWidth}px wide at a ${PHONE.width}px phone viewport (horizontal scrolling)`);
    for (const v of violations.filter((v) => v.impact === "serious" || v.impact === "critical")) {
      problems.push(`${file}: axe ${v.impact} ${v.id} (${v.help})\n    ${v.targets.join("\n    ")}`);
    }
    return report;
  }

  return {
    browser,
    customer,
    newPage: () => customer.newPage(),
    inspect,
    async screenshot(page, name) {
      await photograph(page, nextFile(name));
    },
    takeProblems() {
      const taken = problems;
      problems = [];
      return taken;
    },
    reports,
    close: () => browser.close(),
  };
}
