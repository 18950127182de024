import { readFile } from "node:fs/promises";
import path from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { Response } from "miniflare";
import { defineConfig } from "vitest/config";
import { FONT_FACES } from "../src/lib/pdf/fonts.ts";
import NodeLongestFirst from "./sequencer.ts";
import { startStripeStandin } from "./stripe/standin.ts";

const root = path.resolve(import.meta.dirname, "..");
const TEST_SIGNING_SECRET = "test-only-ticket-signing-key-secret-0123456789";

/**
 * The PDF fonts for the tests: a binding (FONTS) served from Node, `GET /<file name>` answers
 * the font file from its package; tests put the fonts into R2 as `npm run fonts` does
 * (test/helpers/documents.ts). Read on demand, so the runtime does not start with 50 MB of
 * bindings.
 */
const fontFiles = new Map<string, string>(
  Object.values(FONT_FACES).map((f) => [f.file, path.join(root, "node_modules", f.pkg, f.dir, f.file)]),
);
async function serveFont(request: { url: string }) {
  const file = fontFiles.get(decodeURIComponent(new URL(request.url).pathname.slice(1)));
  return file ? new Response(await readFile(file)) : new Response(null, { status: 404 });
}

export default defineConfig(async () => {
  const migrations = await readD1Migrations(path.join(root, "migrations"));
  const directoryMigrations = await readD1Migrations(path.join(root, "migrations", "directory"));
  // the local stand-in of Stripe's HTTP API the service's Stripe SDK talks to (STRIPE_API_BASE)
  const stripe = await startStripeStandin();
  return {
    root,
    test: {
      sequence: { sequencer: NodeLongestFirst },
      projects: [
        {
          plugins: [
            cloudflareTest({
              wrangler: { configPath: path.join(root, "wrangler.toml") },
              miniflare: {
                // a deployment secret of the tests (signed ticket secrets seal their keys with it)
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  TEST_DIRECTORY_MIGRATIONS: directoryMigrations,
                  TICKET_SIGNING_KEY_SECRET: TEST_SIGNING_SECRET,
                  STRIPE_API_BASE: stripe.base,
                },
                serviceBindings: { FONTS: serveFont },
              },
            }),
          ],
          test: {
            name: "workers",
            root,
            // EXPORT_BENCH=1 adds the export measurement (test/measure, not part of the suite)
            include: [
              "test/api/**/*.test.ts",
              "test/unit/**/*.test.ts",
              ...(process.env.EXPORT_BENCH === "1" ? ["test/measure/**/*.test.ts"] : []),
            ],
            setupFiles: ["test/setup.ts"],
            // One workerd runs the files one after another, and they share its D1 and Durable
            // Object storage (docs/testing.md, "One runtime per project").
            isolate: false,
            // the fuzz test's size and seed (test/api/fuzz.test.ts, docs/testing.md, "Fuzz test")
            provide: {
              fuzzRuns: process.env.FUZZ_RUNS ?? "",
              fuzzSeed: process.env.FUZZ_SEED ?? "",
              fuzzOnly: process.env.FUZZ_ONLY ?? "",
              // the ledger's random walk (test/api/transactions-ledger.test.ts)
              ledgerRuns: process.env.LEDGER_RUNS ?? "",
              ledgerSeed: process.env.LEDGER_SEED ?? "",
            },
            // parallel-load tests share two cores with the rest of the suite
            testTimeout: 30_000,
            // every request writes an access line (src/lib/log.ts): shown for failing tests only
            silent: "passed-only",
          },
        },
        {
          // The same worker with the deployment configuration set (limits, public base URL,
          // the D1 round-trip counting of the debugging aid).
          plugins: [
            cloudflareTest({
              wrangler: { configPath: path.join(root, "wrangler.toml") },
              miniflare: {
                bindings: {
                  TEST_MIGRATIONS: migrations,
                  TEST_DIRECTORY_MIGRATIONS: directoryMigrations,
                  TICKET_SIGNING_KEY_SECRET: TEST_SIGNING_SECRET,
                  STRIPE_API_BASE: stripe.base,
                  RATE_LIMIT_REQUESTS: "100",
                  RATE_LIMIT_WINDOW_SECONDS: "3600",
                  MAX_BODY_BYTES: "2048",
                  UPLOAD_MAX_BYTES: "1024",
                  UPLOAD_ALLOWED_TYPES: "image/png, application/pdf",
                  PUBLIC_BASE_URL: "https://tickets.example.org/",
                  MAIL_TRANSPORT: "cloudflare",
                  MAIL_FROM: "tickets@example.org",
                  EVENT_OBJECT_TIMEOUT_MS: "400",
                  DEBUG_D1_ROUND_TRIPS: "1",
                },
              },
            }),
          ],
          test: {
            name: "workers-configured",
            root,
            include: ["test/configured/**/*.test.ts"],
            setupFiles: ["test/setup.ts"],
            isolate: false,
            // a hundred requests in a row: slow when the machine is busy
            testTimeout: 30_000,
            silent: "passed-only",
          },
        },
        {
          test: {
            name: "node",
            root,
            environment: "node",
            include: ["test/node/**/*.test.ts"],
            // Two files at a time, after the workers projects (which run one workerd each, one
            // file after another): the long files mostly wait on the processes they start (npm
            // start, the operator command, wrangler), so a second file uses the idle core.
            // test/sequencer.ts starts the longest ones first.
            maxWorkers: 2,
            sequence: { groupOrder: 1 },
            testTimeout: 180_000,
            hookTimeout: 180_000,
          },
        },
      ],
    },
  };
});
