/**
 * `npm start [-- --port P --persist-to DIR ...]`: applies the local D1 migrations, puts the PDF fonts
 * into the local bucket once per state directory, writes a random TICKET_SIGNING_KEY_SECRET into
 * `.dev.vars` on first start, and serves the API with `wrangler dev` (every flag is passed on; webhooks
 * may target loopback unless a `--var WEBHOOK_ALLOW_LOOPBACK:...` says otherwise; offline it fetches
 * nothing). While it serves, `server.json` in the state directory tells the operator command it answers.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { seedFonts } from "./fonts.ts";
import { forgetServer, localStateDir, recordServer } from "./local-state.ts";
import { applyMigrations, projectRoot, runWrangler, spawnWrangler, takeOption, wranglerEnv } from "./wrangler.ts";

const args = process.argv.slice(2);

if (args.includes("--help") || args.includes("-h")) {
  const wranglerHelp = await runWrangler(["dev", "--help"]);
  process.stdout.write(`usage: npm start [-- FLAGS]

Applies the local database migrations, puts the PDF fonts into the local file bucket (once per
state directory), then serves the API with \`wrangler dev\` (default http://127.0.0.1:8787).
Every flag goes on to wrangler dev; --persist-to DIR also selects the local state the
migrations go to (default .wrangler/state), and the operator command needs the same one.
Defaults added unless given: --port 8787 --ip 127.0.0.1 --var WEBHOOK_ALLOW_LOOPBACK:1

Its own flags (not passed on):
  --stripe standin     card payments against a local stand-in of Stripe's API (test/stripe/standin.ts)
                       instead of Stripe: any sk_test_ key opens an account of it (docs/payments.md)
  --stripe-port P      the stand-in's port on 127.0.0.1 (default 12111; 0: a free one)

wrangler dev's flags:
${wranglerHelp.stdout}${wranglerHelp.stderr}`);
  process.exit(wranglerHelp.code);
}

const devVars = path.join(projectRoot, ".dev.vars");
const current = existsSync(devVars) ? readFileSync(devVars, "utf8") : "";
if (!/^\s*TICKET_SIGNING_KEY_SECRET\s*=/m.test(current)) {
  const line = `TICKET_SIGNING_KEY_SECRET="${randomBytes(32).toString("base64url")}"\n`;
  appendFileSync(devVars, (current && !current.endsWith("\n") ? "\n" : "") + line);
  process.stderr.write("wrote a new local TICKET_SIGNING_KEY_SECRET to .dev.vars\n");
}

const stripe = takeOption(args, "--stripe");
const stripePort = Number(takeOption(args, "--stripe-port") ?? "12111");
if (stripe !== undefined && stripe !== "standin") {
  process.stderr.write(`--stripe takes one value, standin (got ${stripe}); see npm start -- --help\n`);
  process.exit(2);
}
if (!Number.isInteger(stripePort) || stripePort < 0 || stripePort > 65535) {
  process.stderr.write("--stripe-port must be a port number\n");
  process.exit(2);
}

const persistTo = takeOption([...args], "--persist-to");
const port = takeOption([...args], "--port") ?? "8787";
const ip = takeOption([...args], "--ip") ?? "127.0.0.1";
if (!args.some((a) => a === "--port" || a.startsWith("--port="))) args.push("--port", port);
if (!args.some((a) => a === "--ip" || a.startsWith("--ip="))) args.push("--ip", ip);
if (!args.some((a) => a.includes("WEBHOOK_ALLOW_LOOPBACK"))) args.push("--var", "WEBHOOK_ALLOW_LOOPBACK:1");

try {
  await applyMigrations({ remote: false, persistTo });
  if ((await seedFonts({ remote: false, persistTo })) > 0)
    process.stderr.write("PDF fonts put into the local bucket.\n");
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}

/**
 * wrangler dev's environment: no fetch of the `Request.cf` placeholder from workers.cloudflare.com
 * (offline it printed a stack trace; the service reads nothing of `request.cf`), and its output
 * without the bindings table repeated at every start (./dev-output.ts).
 */
function devEnv(): NodeJS.ProcessEnv {
  const filter = `--import=${pathToFileURL(path.join(import.meta.dirname, "dev-output.ts")).href}`;
  return {
    ...wranglerEnv,
    CLOUDFLARE_CF_FETCH_ENABLED: process.env.CLOUDFLARE_CF_FETCH_ENABLED ?? "false",
    TICKETING_DEV_OUTPUT_FILTER: "1",
    NODE_OPTIONS: [process.env.NODE_OPTIONS, filter].filter(Boolean).join(" "),
  };
}

const stateDir = localStateDir(persistTo);
/** Where the server answers, for the operator command on the same machine. */
const host = ip === "0.0.0.0" || ip === "*" ? "127.0.0.1" : ip === "::" ? "[::1]" : ip.includes(":") ? `[${ip}]` : ip;
mkdirSync(stateDir, { recursive: true });
recordServer(stateDir, { url: `http://${host}:${port}`, pid: process.pid });

if (stripe === "standin") {
  // the tests' stand-in, loaded by path: the Node commands may use it, the Worker never does
  const standinModule = pathToFileURL(path.join(projectRoot, "test", "stripe", "standin.ts")).href;
  const { startStripeStandin } = (await import(standinModule)) as {
    startStripeStandin(port: number): Promise<{ base: string }>;
  };
  const standin = await startStripeStandin(stripePort).catch((e: unknown) => {
    process.stderr.write(`the Stripe stand-in could not listen on port ${stripePort}: ${String(e)}\n`);
    process.exit(1);
  });
  args.push("--var", `STRIPE_API_BASE:${standin.base}`);
  process.stderr.write(
    `Stripe stand-in at ${standin.base} (test/stripe/standin.ts): card payments go there, never to Stripe; any sk_test_ key opens an account of it.\n`,
  );
}

const child = spawnWrangler(["dev", ...args], { env: devEnv() });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => {
  forgetServer(stateDir, process.pid);
  process.exit(code ?? (signal ? 1 : 0));
});
