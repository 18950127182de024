/**
 * `npm start [-- --port P --persist-to DIR ...]`: applies the local D1 migrations, then serves
 * the API with `wrangler dev` on http://127.0.0.1:8787. Every flag is passed to wrangler dev;
 * `--persist-to` also selects the database the migrations go to. Running locally, webhooks may
 * target the loopback interface (`WEBHOOK_ALLOW_LOOPBACK=1`, also over http) unless a
 * `--var WEBHOOK_ALLOW_LOOPBACK:...` says otherwise.
 */
import { applyMigrations, spawnWrangler, takeOption } from "./wrangler.ts";

const args = process.argv.slice(2);
const persistTo = takeOption([...args], "--persist-to");
if (!args.some((a) => a === "--port" || a.startsWith("--port="))) args.push("--port", "8787");
if (!args.some((a) => a === "--ip" || a.startsWith("--ip="))) args.push("--ip", "127.0.0.1");
if (!args.some((a) => a.includes("WEBHOOK_ALLOW_LOOPBACK"))) args.push("--var", "WEBHOOK_ALLOW_LOOPBACK:1");

try {
  await applyMigrations({ remote: false, persistTo });
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}

const child = spawnWrangler(["dev", ...args]);
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
