/** `npm run migrate [-- --persist-to DIR | --remote]`: applies the D1 migrations. */
import { applyMigrations, takeFlag, takeOption } from "./wrangler.ts";

const args = process.argv.slice(2);
const remote = takeFlag(args, "--remote");
const persistTo = takeOption(args, "--persist-to");
try {
  await applyMigrations({ remote, persistTo });
} catch (e) {
  process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
