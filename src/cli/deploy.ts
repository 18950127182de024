/**
 * `npm run deploy [-- options]`: from nothing to the service running on Cloudflare, with the project's
 * own wrangler. It reads what to create from wrangler.toml (a binding added there is deployed too),
 * checks before it creates, and stops at the first failing command; steps and options (`--dry-run`,
 * `--organizer`, `--organizer-name`, `--location`, `--config`): docs/deploying.md.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { idRangeSql } from "../db/id-ranges.ts";
import { bindingGroup, groupBinding, ID_RANGE } from "../lib/group-names.ts";
import {
  type Captured,
  projectRoot,
  runWrangler,
  runWranglerVisibly,
  takeFlag,
  takeOption,
  useWranglerConfig,
  withConfig,
  wranglerConfigPath,
} from "./wrangler.ts";

class DeployError extends Error {}

/** What wrangler.toml asks for. */
type Plan = {
  worker: string;
  databases: { binding: string; name: string; id: string | null; migrations: boolean }[];
  buckets: string[];
  queues: string[];
  secrets: string[];
};

type RawConfig = {
  name?: string;
  d1_databases?: { binding: string; database_name?: string; database_id?: string; migrations_dir?: string }[];
  r2_buckets?: { bucket_name?: string }[];
  queues?: { producers?: { queue: string }[]; consumers?: { queue: string; dead_letter_queue?: string }[] };
  secrets?: { required?: string[] };
};

/** wrangler.toml as wrangler reads it (its own parser, through its API). */
async function readPlan(file: string): Promise<Plan> {
  const wrangler = (await import("wrangler")) as unknown as {
    experimental_readRawConfig(args: { config: string }): { rawConfig: RawConfig };
  };
  const raw = wrangler.experimental_readRawConfig({ config: file }).rawConfig;
  if (!raw.name) throw new DeployError(`${file} names no Worker (name = "...")`);
  const unique = (names: (string | undefined)[]) => [...new Set(names.filter((n): n is string => !!n))];
  return {
    worker: raw.name,
    databases: (raw.d1_databases ?? []).map((d) => {
      if (!d.database_name) throw new DeployError(`the D1 binding ${d.binding} has no database_name`);
      return {
        binding: d.binding,
        name: d.database_name,
        id: d.database_id ?? null,
        migrations: d.migrations_dir !== undefined,
      };
    }),
    buckets: unique((raw.r2_buckets ?? []).map((b) => b.bucket_name)),
    queues: unique([
      ...(raw.queues?.producers ?? []).map((p) => p.queue),
      ...(raw.queues?.consumers ?? []).map((c) => c.queue),
      ...(raw.queues?.consumers ?? []).map((c) => c.dead_letter_queue),
    ]),
    secrets: unique(raw.secrets?.required ?? []),
  };
}

// ---- output

const out = (line = "") => process.stdout.write(`${line}\n`);
const step = (title: string) => out(`\n==> ${title}`);
const say = (text: string) => out(`    ${text}`);

function shellQuote(arg: string): string {
  if (/^[\w@%+=:,./-]+$/.test(arg)) return arg;
  if (arg.includes("'") && !/["$`\\!]/.test(arg)) return `"${arg}"`;
  return `'${arg.replace(/'/g, "'\\''")}'`;
}

function commandLine(args: string[]): string {
  return ["wrangler", ...withConfig(args)].map(shellQuote).join(" ");
}

// ---- running

let dryRun = false;

/** A read-only check, its output captured. */
async function check(args: string[]): Promise<Captured> {
  say(`$ ${commandLine(args)}`);
  return runWrangler(args);
}

/** A command that changes something; its output goes to the terminal. */
async function act(args: string[], what: string): Promise<void> {
  say(`$ ${commandLine(args)}`);
  if (dryRun) return;
  const code = await runWranglerVisibly(args);
  if (code !== 0)
    throw new DeployError(`${what} failed (wrangler exited with ${code}); fix the cause and run npm run deploy again`);
}

function failed(what: string, r: Captured): DeployError {
  return new DeployError(`${what} failed:\n${(r.stdout + r.stderr).trim()}`);
}

function jsonOf<T>(text: string): T {
  const start = text.search(/[[{]/);
  if (start < 0) throw new Error("no JSON in the output");
  return JSON.parse(text.slice(start)) as T;
}

// ---- the steps

/** Secrets that wrangler.toml does not require (a deploy works without them) but features need. */
const FEATURE_SECRETS: Record<string, string> = {
  TICKET_SIGNING_KEY_SECRET:
    "on-sale queues, card payments (organizers' Stripe keys are sealed with it) and signed ticket secrets",
};

function sayFeatureSecrets(plan: Plan): void {
  for (const [name, features] of Object.entries(FEATURE_SECRETS)) {
    if (plan.secrets.includes(name)) continue;
    say(
      `${name}: required for ${features}; unless the Worker has it already, set it once with \`npm exec -- wrangler secret put ${name}\` (at least 32 random characters; docs/configuration.md)`,
    );
  }
}

async function preflight(plan: Plan): Promise<Record<string, string>> {
  step("Cloudflare account");
  if (dryRun) {
    say(`$ ${commandLine(["whoami"])}`);
  } else {
    const who = await check(["whoami"]);
    if (who.code !== 0)
      throw new DeployError(
        "wrangler is not logged in to Cloudflare: run `npm exec -- wrangler login` (or set CLOUDFLARE_API_TOKEN), then npm run deploy again",
      );
    say("logged in");
  }

  step(`Secrets of the Worker "${plan.worker}"`);
  sayFeatureSecrets(plan);
  if (plan.secrets.length === 0) {
    say("wrangler.toml requires none ([secrets] required)");
    return {};
  }
  if (dryRun) {
    say(`$ ${commandLine(["secret", "list", "--format", "json"])}`);
    say(
      `missing ones among ${plan.secrets.join(", ")} are taken from the environment variables of the same names and uploaded with the deploy`,
    );
    return {};
  }
  const listed = await check(["secret", "list", "--format", "json"]);
  let present: string[] = [];
  if (listed.code === 0) present = jsonOf<{ name: string }[]>(listed.stdout).map((s) => s.name);
  else if (/does not exist|\b10007\b/.test(listed.stdout + listed.stderr))
    say(`the Worker does not exist yet: every secret is uploaded with its first deploy`);
  else throw failed("listing the Worker's secrets", listed);
  const missing = plan.secrets.filter((name) => !present.includes(name));
  for (const name of plan.secrets.filter((n) => present.includes(n))) say(`${name}: set on the Worker, kept`);
  const values: Record<string, string> = {};
  const absent: string[] = [];
  for (const name of missing) {
    const value = process.env[name];
    if (value === undefined || value === "") absent.push(name);
    else {
      values[name] = value;
      say(`${name}: from the environment, uploaded with the deploy`);
    }
  }
  if (absent.length) {
    throw new DeployError(
      `the secret${absent.length > 1 ? "s" : ""} ${absent.join(", ")} ${absent.length > 1 ? "are" : "is"} not set on the Worker: give ${absent.length > 1 ? "them" : "it"} as environment variable${absent.length > 1 ? "s" : ""}, e.g. ${absent[0]}=... npm run deploy (nothing was changed)`,
    );
  }
  return values;
}

type D1Listing = { uuid: string; name: string }[];

async function listDatabases(): Promise<D1Listing> {
  const r = await check(["d1", "list", "--json"]);
  if (r.code !== 0) throw failed("listing the D1 databases", r);
  return jsonOf<D1Listing>(r.stdout);
}

/** Sets database_id of the [[d1_databases]] entry with this binding in the configuration file. */
function writeDatabaseId(toml: string, binding: string, id: string): string {
  const blocks = toml.split(/^(?=\[)/m);
  let done = false;
  const updated = blocks.map((block) => {
    if (done || !/^\[\[d1_databases\]\]/.test(block) || !new RegExp(`^binding\\s*=\\s*"${binding}"`, "m").test(block))
      return block;
    done = true;
    const line = `database_id = "${id}"`;
    if (/^database_id\s*=.*$/m.test(block)) return block.replace(/^database_id\s*=.*$/m, line);
    return block.replace(/^(binding\s*=.*)$/m, `$1\n${line}`);
  });
  if (!done) throw new DeployError(`no [[d1_databases]] entry with binding = "${binding}" in the configuration file`);
  return updated.join("");
}

/** What a database is for: the organizer directory, an organizer group's data, or another binding. */
function databaseRole(binding: string): string {
  if (binding === "DIRECTORY") return "the organizer directory";
  const group = bindingGroup(binding);
  return group === null ? "" : `organizer group ${group}`;
}

async function databases(plan: Plan, location: string | undefined): Promise<void> {
  if (dryRun && plan.databases.length) {
    step("D1 databases");
    for (const db of plan.databases) {
      const role = databaseRole(db.binding);
      say(`${db.name} (binding ${db.binding}${role ? `: ${role}` : ""}): created if it is missing`);
    }
  }
  for (const db of plan.databases) {
    const role = databaseRole(db.binding);
    step(`D1 database "${db.name}" (binding ${db.binding}${role ? `, ${role}` : ""})`);
    const create = ["d1", "create", db.name, ...(location ? ["--location", location] : [])];
    if (dryRun) {
      say(`$ ${commandLine(["d1", "list", "--json"])}`);
      say(`if it is missing: $ ${commandLine(create)}`);
      say(
        `then its id goes into ${path.relative(process.cwd(), wranglerConfigPath()) || wranglerConfigPath()} (database_id)`,
      );
      continue;
    }
    let found = (await listDatabases()).find((d) => d.name === db.name);
    if (found) say(`exists (id ${found.uuid})`);
    else {
      say("missing: creating it");
      await act(create, `creating the D1 database ${db.name}`);
      found = (await listDatabases()).find((d) => d.name === db.name);
      if (!found) throw new DeployError(`the D1 database ${db.name} was created but is not listed`);
      say(`created (id ${found.uuid})`);
    }
    const file = wranglerConfigPath();
    if (db.id === found.uuid) say(`${path.basename(file)} has its id already`);
    else {
      writeFileSync(file, writeDatabaseId(readFileSync(file, "utf8"), db.binding, found.uuid));
      say(
        `${path.basename(file)}: database_id of ${db.binding} set to ${found.uuid}${db.id ? ` (was ${db.id})` : ""}; commit this change`,
      );
    }
  }
}

async function buckets(plan: Plan): Promise<void> {
  if (plan.buckets.length === 0) return;
  step(`R2 bucket${plan.buckets.length > 1 ? "s" : ""} ${plan.buckets.join(", ")}`);
  if (dryRun) {
    say(`$ ${commandLine(["r2", "bucket", "list"])}`);
    for (const b of plan.buckets) say(`if it is missing: $ ${commandLine(["r2", "bucket", "create", b])}`);
    return;
  }
  const r = await check(["r2", "bucket", "list"]);
  if (r.code !== 0) throw failed("listing the R2 buckets", r);
  const existing = new Set([...r.stdout.matchAll(/^name:\s+(\S+)\s*$/gm)].map((m) => m[1]!));
  for (const b of plan.buckets) {
    if (existing.has(b)) say(`${b}: exists`);
    else {
      say(`${b}: missing, creating it`);
      await act(["r2", "bucket", "create", b], `creating the R2 bucket ${b}`);
    }
  }
}

async function queues(plan: Plan): Promise<void> {
  if (plan.queues.length === 0) return;
  step(`Queues ${plan.queues.join(", ")} (dead-letter queues included)`);
  for (const q of plan.queues) {
    if (dryRun) {
      say(`$ ${commandLine(["queues", "info", q])}`);
      say(`if it is missing: $ ${commandLine(["queues", "create", q])}`);
      continue;
    }
    const r = await check(["queues", "info", q]);
    if (r.code === 0) say(`${q}: exists`);
    else if (/does not exist/.test(r.stdout + r.stderr)) {
      say(`${q}: missing, creating it`);
      await act(["queues", "create", q], `creating the queue ${q}`);
    } else throw failed(`looking up the queue ${q}`, r);
  }
}

async function migrations(plan: Plan): Promise<void> {
  for (const db of plan.databases.filter((d) => d.migrations)) {
    step(`Database migrations on the remote database (binding ${db.binding})`);
    await act(["d1", "migrations", "apply", db.binding, "--remote"], "applying the migrations");
    // an organizer group's tables hand out ids in the group's own range (src/db/id-ranges.ts);
    // the statements only ever raise a sequence, so every deploy runs them again
    const group = bindingGroup(db.binding);
    const range = group === null ? "" : idRangeSql(group);
    if (range === "") continue;
    say(`the ids of organizer group ${group} start above ${(group! - 1) * ID_RANGE}:`);
    await act(
      ["d1", "execute", db.binding, "--remote", "--command", range.replace(/\n/g, " ")],
      `setting the id range of ${db.binding}`,
    );
  }
}

async function deploy(plan: Plan, secrets: Record<string, string>): Promise<void> {
  step(`Worker "${plan.worker}"`);
  const names = Object.keys(secrets);
  if (names.length === 0 || dryRun) {
    if (dryRun && plan.secrets.length) say(`(with --secrets-file FILE when secrets are missing on the Worker)`);
    await act(["deploy"], "wrangler deploy");
    return;
  }
  const dir = mkdtempSync(path.join(tmpdir(), "ticketing-deploy-"));
  const file = path.join(dir, "secrets.json");
  try {
    writeFileSync(file, JSON.stringify(secrets), { mode: 0o600 });
    say(`uploading the secret${names.length > 1 ? "s" : ""} ${names.join(", ")} with it`);
    await act(["deploy", "--secrets-file", file], "wrangler deploy");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

/** Runs the operator command (src/cli/admin.ts) with the same wrangler and configuration. */
function admin(args: string[]): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const config =
      wranglerConfigPath() === path.join(projectRoot, "wrangler.toml") ? [] : ["--config", wranglerConfigPath()];
    const child = spawn(process.execPath, [path.join(projectRoot, "src", "cli", "admin.ts"), ...args, ...config], {
      cwd: projectRoot,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/** The rows a `d1 execute --remote --json --command` answers (the check is shown, never skipped). */
async function query(binding: string, sql: string): Promise<Record<string, unknown>[]> {
  const r = await check(["d1", "execute", binding, "--remote", "--json", "--command", sql]);
  if (r.code !== 0) throw failed("looking up the organizer", r);
  return jsonOf<{ results?: Record<string, unknown>[] }[]>(r.stdout).flatMap((x) => x.results ?? []);
}

/**
 * The organizer exists when the directory names its group and that group's database has it; a
 * directory row alone (an earlier create-organizer that stopped halfway) is completed by the
 * operator command, which takes such a row up again.
 */
async function firstOrganizer(plan: Plan, slug: string | undefined, name: string | undefined): Promise<void> {
  step("First organizer");
  const directory = plan.databases.find((d) => d.binding === "DIRECTORY");
  const create = ["create-organizer", "--remote", "--slug", slug ?? "SLUG", "--name", name ?? "NAME"];
  const adminLine = `npm run --silent admin -- ${create.map(shellQuote).join(" ")}`;
  if (!slug || !directory) {
    if (slug) say("the configuration has no DIRECTORY database, so no organizer can be created");
    else say(`none asked for (--organizer SLUG --organizer-name NAME); create one later with:`);
    say(`  ${adminLine}`);
    return;
  }
  const lookup = `SELECT data_group FROM directory_organizers WHERE slug = ${sqlString(slug)}`;
  if (dryRun) {
    say(`$ ${commandLine(["d1", "execute", directory.binding, "--remote", "--json", "--command", lookup])}`);
    say(`if it is missing: $ ${adminLine}`);
    return;
  }
  const [entry] = await query(directory.binding, lookup);
  if (entry) {
    const binding = groupBinding(Number(entry.data_group));
    const rows = await query(binding, `SELECT slug FROM organizers WHERE slug = ${sqlString(slug)}`);
    if (rows.length) {
      say(
        `"${slug}" exists in organizer group ${entry.data_group}: nothing to do (its first API token was printed when it was created)`,
      );
      return;
    }
    say(`"${slug}" is in the directory but not in ${binding} yet: the operator command completes it`);
  }
  say(`$ ${adminLine}`);
  const made = await admin(create);
  if (made.code !== 0) throw new DeployError(`creating the organizer failed:\n${(made.stderr + made.stdout).trim()}`);
  const last = made.stdout.trim().split("\n").pop() ?? "";
  say(`created; its API token (shown this once, keep it safe):`);
  out(last);
}

async function main() {
  const args = process.argv.slice(2);
  dryRun = takeFlag(args, "--dry-run");
  const slug = takeOption(args, "--organizer");
  const name = takeOption(args, "--organizer-name");
  const location = takeOption(args, "--location");
  const config = takeOption(args, "--config");
  if (args.length) throw new DeployError(`unexpected arguments: ${args.join(" ")}`);
  if ((slug === undefined) !== (name === undefined))
    throw new DeployError("--organizer and --organizer-name go together");
  useWranglerConfig(config ?? null);

  const plan = await readPlan(wranglerConfigPath());
  out(
    `${dryRun ? "Dry run: the commands `npm run deploy` would run (none is run, no file changed)" : "Deploying"} "${plan.worker}" as ${path.relative(process.cwd(), wranglerConfigPath()) || wranglerConfigPath()} describes it`,
  );
  const secrets = await preflight(plan);
  await databases(plan, location);
  await buckets(plan);
  await queues(plan);
  await migrations(plan);
  await deploy(plan, secrets);
  await firstOrganizer(plan, slug, name);
  out(dryRun ? "\nDry run over: nothing was run." : "\nDone. Run it again any time: it only does what is missing.");
}

try {
  await main();
} catch (e) {
  process.stderr.write(`\nerror: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
