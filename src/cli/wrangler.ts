/**
 * Runs the project's own wrangler with the Node that runs this script, so nothing beyond `npm install`
 * is needed. For the operator scripts and their tests: `useWranglerConfig(path)` reads another
 * configuration file, and TICKETING_WRANGLER names a JavaScript file run instead of wrangler
 * (test/node/deploy.test.ts puts a stand-in there, so no test reaches Cloudflare).
 */
import { spawn, type SpawnOptions } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { idRangeSql } from "../db/id-ranges.ts";
import { bindingGroup } from "../lib/group-names.ts";

export const projectRoot = path.resolve(import.meta.dirname, "..", "..");
const require = createRequire(import.meta.url);
const wranglerBin =
  process.env.TICKETING_WRANGLER ||
  path.join(path.dirname(require.resolve("wrangler/package.json", { paths: [projectRoot] })), "bin", "wrangler.js");

let configPath: string | null = null;

/** Every following wrangler command reads this configuration file (null: the project's wrangler.toml). */
export function useWranglerConfig(file: string | null): void {
  configPath = file === null ? null : path.resolve(file);
}

/** The configuration file the commands read. */
export function wranglerConfigPath(): string {
  return configPath ?? path.join(projectRoot, "wrangler.toml");
}

/** The arguments as wrangler gets them (the configuration file added when it is not the project's). */
export function withConfig(args: string[]): string[] {
  return configPath === null ? args : [...args, "--config", configPath];
}

export const wranglerEnv = { ...process.env, WRANGLER_SEND_METRICS: "false" };

export type Captured = { code: number; stdout: string; stderr: string };

/** Runs wrangler without a terminal (no prompts), capturing its output. */
export function runWrangler(args: string[]): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin, ...withConfig(args)], {
      cwd: projectRoot,
      env: { ...wranglerEnv, CI: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/**
 * A local database command that met the running server's write lock (SQLite's busy error, or
 * the commit that failed because of it). Local `d1 execute` runs a file as one batch, which is
 * one transaction: a refused attempt wrote nothing and can simply run again.
 */
const LOCKED = /SQLITE_BUSY|database is locked|session commit token/;

/** runWrangler for database commands: retried while the local database is locked by the server. */
export async function runDatabaseCommand(args: string[], attempts = 10): Promise<Captured> {
  for (let attempt = 1; ; attempt++) {
    const result = await runWrangler(args);
    if (result.code === 0 || attempt >= attempts || !LOCKED.test(result.stdout + result.stderr)) return result;
    await new Promise((r) => setTimeout(r, 150 * attempt + Math.floor(Math.random() * 150)));
  }
}

/** Starts wrangler attached to this terminal. */
export function spawnWrangler(args: string[], opts: SpawnOptions = {}) {
  return spawn(process.execPath, [wranglerBin, ...withConfig(args)], {
    cwd: projectRoot,
    env: wranglerEnv,
    stdio: "inherit",
    ...opts,
  });
}

/** Runs wrangler without prompts, its output going to this terminal; resolves with its exit code. */
export function runWranglerVisibly(args: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [wranglerBin, ...withConfig(args)], {
      cwd: projectRoot,
      env: { ...wranglerEnv, CI: "1" },
      stdio: ["ignore", "inherit", "inherit"],
    });
    child.on("error", reject);
    child.on("close", (code) => resolve(code ?? 1));
  });
}

/** Removes `--name value` / `--name=value` from args and returns the value. */
export function takeOption(args: string[], name: string): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === name) {
      const value = args[i + 1];
      args.splice(i, 2);
      return value;
    }
    if (a.startsWith(`${name}=`)) {
      args.splice(i, 1);
      return a.slice(name.length + 1);
    }
  }
  return undefined;
}

export function takeFlag(args: string[], name: string): boolean {
  const i = args.indexOf(name);
  if (i < 0) return false;
  args.splice(i, 1);
  return true;
}

/** The D1 bindings of the configuration: the directory, then each organizer group's database. */
export async function databaseBindings(): Promise<{ binding: string; group: number | null }[]> {
  const wrangler = (await import("wrangler")) as unknown as {
    experimental_readRawConfig(args: { config: string }): { rawConfig: { d1_databases?: { binding: string }[] } };
  };
  const raw = wrangler.experimental_readRawConfig({ config: wranglerConfigPath() }).rawConfig;
  return (raw.d1_databases ?? []).map((d) => ({ binding: d.binding, group: bindingGroup(d.binding) }));
}

/**
 * `wrangler d1 migrations apply` for every local database (or the deployed ones): the directory
 * and each organizer group's; then each group's id range (src/db/id-ranges.ts).
 */
export async function applyMigrations(target: { remote: boolean; persistTo?: string }): Promise<void> {
  const where = [target.remote ? "--remote" : "--local"];
  if (target.persistTo && !target.remote) where.push("--persist-to", target.persistTo);
  // each database on its own: the commands run side by side
  const applied = await Promise.all(
    (await databaseBindings()).map(async ({ binding, group }) => {
      const result = await runDatabaseCommand(["d1", "migrations", "apply", binding, ...where]);
      if (result.code !== 0) {
        process.stderr.write(result.stdout + result.stderr);
        throw new Error(`applying the database migrations of ${binding} failed`);
      }
      if (!/(\d+) commands? executed successfully/.test(result.stdout)) return false;
      // new tables start in the group's id range (none for group 1)
      const range = group === null ? "" : idRangeSql(group);
      if (range === "") return true;
      const ids = await runDatabaseCommand([
        "d1",
        "execute",
        binding,
        ...where,
        "--command",
        range.replace(/\n/g, " "),
      ]);
      if (ids.code !== 0) {
        process.stderr.write(ids.stdout + ids.stderr);
        throw new Error(`setting the id range of ${binding} failed`);
      }
      return true;
    }),
  );
  process.stderr.write(applied.some(Boolean) ? "Database migrations applied.\n" : "Databases are up to date.\n");
}
