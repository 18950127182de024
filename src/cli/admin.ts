/**
 * Operator commands (`npm run --silent admin -- <command> ...`): `create-organizer --slug S --name N`
 * (the organizer, its "Administrators" team and an API token; the last stdout line is one JSON object
 * `{"organizer", "team", "token"}`) and `list-mail [--limit N]` (the newest mails of the outbox). They
 * use `npm start`'s local database (`--persist-to`), or the deployed one with `--remote`, and name the
 * state they used on stderr (docs/running.md, src/cli/local-state.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TEAM_PERMISSIONS } from "../rules/permissions.ts";
import { newApiToken, sha256Hex } from "../lib/crypto.ts";
import { localStateDir, reportLocalState } from "./local-state.ts";
import { applyMigrations, runDatabaseCommand, takeFlag, takeOption, useWranglerConfig } from "./wrangler.ts";

/** The teams table's permission columns are named like the API's flags. */
const PERMISSION_COLUMNS = TEAM_PERMISSIONS;

/**
 * Same rule as the API's slugs; plus names that customer-facing URLs use themselves (keep in
 * step with RESERVED_SEGMENTS in src/pages/storefront.ts).
 */
const SLUG = /^[a-z0-9][a-z0-9.-]*$/;
const RESERVED = new Set([
  "api",
  "media",
  "invite",
  "customer",
  "static",
  "admin",
  "control",
  "pay",
  "order",
  "favicon.ico",
  "robots.txt",
]);

class UsageError extends Error {}

const warn = (line: string) => process.stderr.write(`${line}\n`);

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

type D1Result = { results?: Record<string, unknown>[]; success?: boolean };

async function execute(target: { remote: boolean; persistTo?: string }, sql: string): Promise<D1Result[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "ticketing-admin-"));
  const file = path.join(dir, "statements.sql");
  writeFileSync(file, sql);
  try {
    const args = ["d1", "execute", "DB", target.remote ? "--remote" : "--local", "--json", "--file", file];
    if (target.persistTo && !target.remote) args.push("--persist-to", target.persistTo);
    const result = await runDatabaseCommand(args);
    if (result.code !== 0) {
      const text = result.stdout + result.stderr;
      if (/UNIQUE constraint failed: organizers\.slug/.test(text))
        throw new UsageError("an organizer with this slug exists already");
      throw new Error(`the database command failed:\n${text.trim()}`);
    }
    const start = result.stdout.indexOf("[");
    return JSON.parse(result.stdout.slice(start)) as D1Result[];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function createOrganizer(args: string[]) {
  const remote = takeFlag(args, "--remote");
  const persistTo = takeOption(args, "--persist-to");
  const slug = takeOption(args, "--slug");
  const name = takeOption(args, "--name");
  if (args.length) throw new UsageError(`unexpected arguments: ${args.join(" ")}`);
  if (!slug) throw new UsageError("--slug is required");
  if (!name?.trim()) throw new UsageError("--name is required");
  if (slug.length > 50 || !SLUG.test(slug)) {
    throw new UsageError(
      `invalid slug "${slug}": use 1 to 50 lowercase letters, digits, dots and dashes, starting with a letter or digit`,
    );
  }
  if (RESERVED.has(slug)) throw new UsageError(`invalid slug "${slug}": it is reserved for the service's own URLs`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refuses control characters in a name
  if (/[\u0000-\u001f]/.test(name) || name.length > 200)
    throw new UsageError("invalid name: at most 200 characters, no control characters");

  const target = { remote, persistTo };
  await applyMigrations(target);
  const existing = await execute(target, `SELECT id FROM organizers WHERE slug = ${sqlString(slug)};`);
  if (existing[0]?.results?.length) throw new UsageError(`an organizer with the slug "${slug}" exists already`);

  // the same tokens and hashes as the API's (POST .../teams/{id}/tokens/)
  const secret = newApiToken();
  const hash = await sha256Hex(secret);
  const now = Date.now();
  const s = sqlString(slug);
  const results = await execute(
    target,
    [
      `INSERT INTO organizers (slug, name, created_at) VALUES (${s}, ${sqlString(name.trim())}, ${now});`,
      `INSERT INTO teams (organizer_id, name, all_events, ${PERMISSION_COLUMNS.join(", ")}) SELECT id, 'Administrators', 1, ${PERMISSION_COLUMNS.map(() => "1").join(", ")} FROM organizers WHERE slug = ${s};`,
      `INSERT INTO team_api_tokens (team_id, name, token_hash, active, created_at) SELECT max(t.id), 'Operator', ${sqlString(hash)}, 1, ${now} FROM teams t JOIN organizers o ON o.id = t.organizer_id WHERE o.slug = ${s};`,
      `SELECT max(t.id) AS team FROM teams t JOIN organizers o ON o.id = t.organizer_id WHERE o.slug = ${s};`,
    ].join("\n"),
  );
  const team = results.flatMap((r) => r.results ?? []).find((row) => row.team !== undefined)?.team;
  if (typeof team !== "number") throw new Error("the organizer was created, but its team could not be read back");
  process.stderr.write(`Created organizer "${slug}" with team "Administrators" (id ${team}) and an API token.\n`);
  if (!remote) await reportLocalState(localStateDir(persistTo), warn, { organizer: slug, token: secret });
  process.stdout.write(`${JSON.stringify({ organizer: slug, team, token: secret })}\n`);
}

async function listMail(args: string[]) {
  const remote = takeFlag(args, "--remote");
  const persistTo = takeOption(args, "--persist-to");
  const limit = Number(takeOption(args, "--limit") ?? "20");
  if (args.length) throw new UsageError(`unexpected arguments: ${args.join(" ")}`);
  if (!Number.isInteger(limit) || limit < 1) throw new UsageError("--limit must be a positive integer");
  const target = { remote, persistTo };
  await applyMigrations(target);
  if (!remote) await reportLocalState(localStateDir(persistTo), warn);
  const [result] = await execute(
    target,
    `SELECT id, kind, to_address, subject, state, created_at, text_body, attachments FROM mail_outbox ORDER BY id DESC LIMIT ${limit};`,
  );
  for (const m of result?.results ?? []) {
    // attachments: references until the mail is delivered, then the files in R2 it carried
    const attached = m.attachments
      ? (JSON.parse(String(m.attachments)) as { kind: string; filename?: string; key?: string; order?: string }[])
      : [];
    const files = attached
      .map((a) => (a.kind === "file" ? `${a.filename} (${a.key})` : `the invoice of order ${a.order}`))
      .join(", ");
    process.stdout.write(
      `#${m.id} [${m.state}] ${new Date(Number(m.created_at)).toISOString()} ${m.kind} to ${m.to_address}\nSubject: ${m.subject}\n${files ? `Attachments: ${files}\n` : ""}\n${m.text_body}\n${"-".repeat(60)}\n`,
    );
  }
}

const USAGE = `usage:
  npm run --silent admin -- create-organizer --slug SLUG --name NAME [--persist-to DIR | --remote]
  npm run --silent admin -- list-mail [--limit N] [--persist-to DIR | --remote]`;

const [command, ...rest] = process.argv.slice(2);
useWranglerConfig(takeOption(rest, "--config") ?? null);
try {
  if (command === "create-organizer") await createOrganizer(rest);
  else if (command === "list-mail") await listMail(rest);
  else throw new UsageError(command ? `unknown command "${command}"` : "no command given");
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
