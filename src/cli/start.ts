/**
 * `npm start [-- --port P --persist-to DIR ...]`: applies the local D1 migrations and puts the
 * PDF fonts into the local bucket (src/cli/fonts.ts; once per state directory), then serves
 * the API with `wrangler dev` on http://127.0.0.1:8787. Every flag is passed to wrangler dev;
 * `--persist-to` also selects the database the migrations go to.
 *
 * Local secrets live in `.dev.vars` (git-ignored; wrangler dev reads it): on first start a random
 * TICKET_SIGNING_KEY_SECRET is written there, so that events can use signed ticket secrets
 * locally. Keep the file with the local state: keys sealed with it open only with it.
 *
 * Running locally, webhooks may
 * target the loopback interface (`WEBHOOK_ALLOW_LOOPBACK=1`, also over http) unless a
 * `--var WEBHOOK_ALLOW_LOOPBACK:...` says otherwise.
 */
import { randomBytes } from "node:crypto";
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { seedFonts } from "./fonts.ts";
import { applyMigrations, projectRoot, spawnWrangler, takeOption } from "./wrangler.ts";

const devVars = path.join(projectRoot, ".dev.vars");
const current = existsSync(devVars) ? readFileSync(devVars, "utf8") : "";
if (!/^\s*TICKET_SIGNING_KEY_SECRET\s*=/m.test(current)) {
  const line = `TICKET_SIGNING_KEY_SECRET="${randomBytes(32).toString("base64url")}"\n`;
  appendFileSync(devVars, (current && !current.endsWith("\n") ? "\n" : "") + line);
  process.stderr.write("wrote a new local TICKET_SIGNING_KEY_SECRET to .dev.vars\n");
}

const args = process.argv.slice(2);
const persistTo = takeOption([...args], "--persist-to");
if (!args.some((a) => a === "--port" || a.startsWith("--port="))) args.push("--port", "8787");
if (!args.some((a) => a === "--ip" || a.startsWith("--ip="))) args.push("--ip", "127.0.0.1");
if (!args.some((a) => a.includes("WEBHOOK_ALLOW_LOOPBACK"))) args.push("--var", "WEBHOOK_ALLOW_LOOPBACK:1");

try {
  await applyMigrations({ remote: false, persistTo });
  if ((await seedFonts({ remote: false, persistTo })) > 0)
    process.stderr.write("PDF fonts put into the local bucket.\n");
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}

const child = spawnWrangler(["dev", ...args]);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
