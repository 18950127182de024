/**
 * `npm run --silent admin -- move-organizer --slug S --to N [--persist-to DIR | --remote]
 * [--wait-seconds W]`: moves an organizer to another organizer group (src/db/organizer-move/),
 * through `wrangler d1 execute`; each step on stderr, safe to run again after any failure.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { type Executor, MoveRefused, moveOrganizer } from "../db/organizer-move/steps.ts";
import {
  applyMigrations,
  databaseBindings,
  runDatabaseCommand,
  takeFlag,
  takeOption,
  wranglerConfigPath,
} from "./wrangler.ts";

/** Seconds added to DIRECTORY_CACHE_SECONDS, for the isolates' clocks and requests under way. */
const MARGIN_SECONDS = 5;

/** DIRECTORY_CACHE_SECONDS of the configuration's [vars] (30 when empty). */
function cacheSeconds(): number {
  const m = /^DIRECTORY_CACHE_SECONDS\s*=\s*"?(\d*)"?/m.exec(readFileSync(wranglerConfigPath(), "utf8"));
  return m?.[1] ? Number(m[1]) : 30;
}

function wranglerExecutor(target: { remote: boolean; persistTo?: string }): Executor {
  return async (binding, statements) => {
    const dir = mkdtempSync(path.join(tmpdir(), "ticketing-move-"));
    const file = path.join(dir, "statements.sql");
    writeFileSync(file, `${statements.join(";\n")};\n`);
    try {
      const args = ["d1", "execute", binding, target.remote ? "--remote" : "--local", "--json", "--file", file];
      if (target.persistTo && !target.remote) args.push("--persist-to", target.persistTo);
      const result = await runDatabaseCommand(args);
      if (result.code !== 0)
        throw new Error(`the database command on ${binding} failed:\n${(result.stdout + result.stderr).trim()}`);
      const start = result.stdout.indexOf("[");
      const parsed = JSON.parse(result.stdout.slice(start)) as { results?: Record<string, unknown>[] }[];
      return parsed.map((r) => r.results ?? []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  };
}

export async function moveOrganizerCommand(args: string[], usage: (message: string) => Error): Promise<void> {
  const remote = takeFlag(args, "--remote");
  const persistTo = takeOption(args, "--persist-to");
  const slug = takeOption(args, "--slug");
  const to = Number(takeOption(args, "--to"));
  const wait = takeOption(args, "--wait-seconds");
  if (args.length) throw usage(`unexpected arguments: ${args.join(" ")}`);
  if (!slug) throw usage("--slug is required");
  if (!Number.isInteger(to) || to < 1) throw usage("--to must be an organizer group's number");
  const waitSeconds = wait === undefined ? cacheSeconds() + MARGIN_SECONDS : Number(wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0) throw usage("--wait-seconds must be 0 or more");
  const groups = (await databaseBindings()).flatMap((d) => (d.group === null ? [] : [d.group]));
  const target = { remote, persistTo };
  await applyMigrations(target);
  try {
    await moveOrganizer({
      slug,
      to,
      groups,
      waitSeconds,
      execute: wranglerExecutor(target),
      log: (line) => process.stderr.write(`${line}\n`),
    });
  } catch (e) {
    if (e instanceof MoveRefused) throw usage(e.message);
    throw e;
  }
}
