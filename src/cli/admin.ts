/**
 * Operator commands (`npm run --silent admin -- <command> ...`): `create-organizer --slug S --name N
 * [--group G]` (the organizer in the emptiest group or G, its "Administrators" team and an API token;
 * the last stdout line is `{"organizer", "team", "token"}`), `list-mail [--limit N]` (every group's
 * newest mails), `move-organizer --slug S --to N` (src/cli/move-organizer.ts). They use `npm start`'s
 * local database (`--persist-to`) or the deployed one (`--remote`) (docs/running.md).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { TEAM_PERMISSIONS } from "../rules/permissions.ts";
import { sha256Hex } from "../lib/crypto.ts";
import { newApiToken } from "../lib/organizer-credentials.ts";
import { groupBinding } from "../lib/group-names.ts";
import { RESERVED_SEGMENTS } from "../lib/reserved-segments.ts";
import { localStateDir, reportLocalState } from "./local-state.ts";
import { moveOrganizerCommand } from "./move-organizer.ts";
import {
  applyMigrations,
  databaseBindings,
  runDatabaseCommand,
  takeFlag,
  takeOption,
  useWranglerConfig,
} from "./wrangler.ts";

/** The teams table's permission columns are named like the API's flags. */
const PERMISSION_COLUMNS = TEAM_PERMISSIONS;

/** Same rule as the API's slugs; names that the service's own URLs use are refused too. */
const SLUG = /^[a-z0-9][a-z0-9.-]*$/;

class UsageError extends Error {}

const warn = (line: string) => process.stderr.write(`${line}\n`);

function sqlString(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

type D1Result = { results?: Record<string, unknown>[]; success?: boolean };

async function execute(
  target: { remote: boolean; persistTo?: string },
  sql: string,
  binding = "DB",
): Promise<D1Result[]> {
  const dir = mkdtempSync(path.join(tmpdir(), "ticketing-admin-"));
  const file = path.join(dir, "statements.sql");
  writeFileSync(file, sql);
  try {
    const args = ["d1", "execute", binding, target.remote ? "--remote" : "--local", "--json", "--file", file];
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
  const groupOption = takeOption(args, "--group");
  if (args.length) throw new UsageError(`unexpected arguments: ${args.join(" ")}`);
  if (!slug) throw new UsageError("--slug is required");
  if (!name?.trim()) throw new UsageError("--name is required");
  if (slug.length > 50 || !SLUG.test(slug)) {
    throw new UsageError(
      `invalid slug "${slug}": use 1 to 50 lowercase letters, digits, dots and dashes, starting with a letter or digit`,
    );
  }
  if (RESERVED_SEGMENTS.has(slug))
    throw new UsageError(`invalid slug "${slug}": it is reserved for the service's own URLs`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refuses control characters in a name
  if (/[\u0000-\u001f]/.test(name) || name.length > 200)
    throw new UsageError("invalid name: at most 200 characters, no control characters");

  const groups = (await databaseBindings()).flatMap((d) => (d.group === null ? [] : [d.group]));
  const named = groupOption === undefined ? null : Number(groupOption);
  if (named !== null && !groups.includes(named))
    throw new UsageError(`--group must be one of the organizer groups of the configuration: ${groups.join(", ")}`);

  const target = { remote, persistTo };
  await applyMigrations(target);
  const s = sqlString(slug);
  const rows = async (sql: string, binding: string) =>
    (await execute(target, sql, binding)).flatMap((r) => r.results ?? []);
  // the directory first: the organizer's id and group. A row left by an earlier attempt that
  // failed before the organizer's own rows were written is taken up again.
  const [found, counted] = await execute(
    target,
    `SELECT id, data_group FROM directory_organizers WHERE slug = ${s};\nSELECT data_group AS g, count(*) AS n FROM directory_organizers GROUP BY data_group;`,
    "DIRECTORY",
  );
  let [entry] = found?.results ?? [];
  if (entry) {
    const binding = groupBinding(Number(entry.data_group));
    if ((await rows(`SELECT id FROM organizers WHERE slug = ${s};`, binding)).length)
      throw new UsageError(`an organizer with the slug "${slug}" exists already`);
  } else {
    const sizes = new Map((counted?.results ?? []).map((r) => [Number(r.g), Number(r.n)]));
    // the group named, else the one with the fewest organizers (the lowest number of those)
    const group = named ?? [...groups].sort((a, b) => (sizes.get(a) ?? 0) - (sizes.get(b) ?? 0) || a - b)[0]!;
    [entry] = await rows(
      `INSERT INTO directory_organizers (slug, data_group, created_at) VALUES (${s}, ${group}, ${Date.now()}) RETURNING id, data_group;`,
      "DIRECTORY",
    );
  }
  const id = Number(entry!.id);
  const group = Number(entry!.data_group);

  // the same tokens and hashes as the API's (POST .../teams/{id}/tokens/)
  const secret = newApiToken(id);
  const hash = await sha256Hex(secret);
  const now = Date.now();
  const results = await execute(
    target,
    [
      `INSERT INTO organizers (id, slug, name, created_at) VALUES (${id}, ${s}, ${sqlString(name.trim())}, ${now});`,
      `INSERT INTO teams (organizer_id, name, all_events, ${PERMISSION_COLUMNS.join(", ")}) VALUES (${id}, 'Administrators', 1, ${PERMISSION_COLUMNS.map(() => "1").join(", ")});`,
      `INSERT INTO team_api_tokens (team_id, name, token_hash, active, created_at) SELECT max(id), 'Operator', ${sqlString(hash)}, 1, ${now} FROM teams WHERE organizer_id = ${id};`,
      `SELECT max(id) AS team FROM teams WHERE organizer_id = ${id};`,
    ].join("\n"),
    groupBinding(group),
  );
  const team = results.flatMap((r) => r.results ?? []).find((row) => row.team !== undefined)?.team;
  if (typeof team !== "number") throw new Error("the organizer was created, but its team could not be read back");
  process.stderr.write(
    `Created organizer "${slug}" in organizer group ${group} with team "Administrators" (id ${team}) and an API token.\n`,
  );
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
  // every organizer group's outbox, newest first
  const groups = (await databaseBindings()).flatMap((d) => (d.group === null ? [] : [d.group]));
  const mails = (
    await Promise.all(
      groups.map(async (g) => {
        const [result] = await execute(
          target,
          `SELECT id, kind, to_address, subject, state, created_at, text_body, attachments FROM mail_outbox ORDER BY created_at DESC, id DESC LIMIT ${limit};`,
          groupBinding(g),
        );
        return result?.results ?? [];
      }),
    )
  )
    .flat()
    .sort((a, b) => Number(b.created_at) - Number(a.created_at))
    .slice(0, limit);
  for (const m of mails) {
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
  npm run --silent admin -- create-organizer --slug SLUG --name NAME [--group N] [--persist-to DIR | --remote]
  npm run --silent admin -- list-mail [--limit N] [--persist-to DIR | --remote]
  npm run --silent admin -- move-organizer --slug SLUG --to N [--wait-seconds W] [--persist-to DIR | --remote]`;

const [command, ...rest] = process.argv.slice(2);
useWranglerConfig(takeOption(rest, "--config") ?? null);
try {
  if (command === "create-organizer") await createOrganizer(rest);
  else if (command === "list-mail") await listMail(rest);
  else if (command === "move-organizer") await moveOrganizerCommand(rest, (m) => new UsageError(m));
  else throw new UsageError(command ? `unknown command "${command}"` : "no command given");
} catch (e) {
  if (e instanceof UsageError) {
    process.stderr.write(`error: ${e.message}\n${USAGE}\n`);
    process.exit(2);
  }
  process.stderr.write(`error: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
