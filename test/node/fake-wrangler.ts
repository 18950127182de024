// biome-ignore-all lint/suspicious/noFallthroughSwitchClause: every case ends in done(), which exits the process
/**
 * A stand-in for wrangler (run through TICKETING_WRANGLER, src/cli/wrangler.ts) for
 * test/node/deploy.test.ts: it never reaches Cloudflare. It plays an account whose state is a
 * JSON file (FAKE_WRANGLER_STATE), answers the commands the deploy script and the operator
 * command use with wrangler's own output shapes, and appends every call to FAKE_WRANGLER_LOG
 * (one JSON line: the arguments, and the secrets file's content for `deploy --secrets-file`).
 * FAKE_WRANGLER_FAIL names a command (e.g. "queues info") that fails with an API error. Each
 * database is migrated on its own (by binding); the directory and the organizer groups' databases
 * answer the operator command's statements. The state file is written only when a command changed
 * it, as the operator command runs its migrations side by side.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

type Organizer = { id: number; slug: string; team: number; group: number };
type Listed = { id: number; slug: string; group: number };
type State = {
  loggedIn: boolean;
  databases: { uuid: string; name: string }[];
  buckets: string[];
  queues: string[];
  workerDeployed: boolean;
  secrets: string[];
  /** The bindings whose migrations were applied. */
  migrated: string[];
  /** directory_organizers of the DIRECTORY database. */
  directory: Listed[];
  /** The organizers rows of the groups' databases. */
  organizers: Organizer[];
};

const statePath = process.env.FAKE_WRANGLER_STATE!;
const logPath = process.env.FAKE_WRANGLER_LOG!;
const initial: State = {
  loggedIn: true,
  databases: [],
  buckets: [],
  queues: [],
  workerDeployed: false,
  secrets: [],
  migrated: [],
  directory: [],
  organizers: [],
};
const stored = existsSync(statePath) ? readFileSync(statePath, "utf8") : null;
const state: State = stored ? { ...initial, ...(JSON.parse(stored) as Partial<State>) } : initial;

const args = process.argv.slice(2);
const record: Record<string, unknown> = { args };

function option(name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

const COMMANDS = [
  "whoami",
  "d1 list",
  "d1 create",
  "d1 migrations apply",
  "d1 execute",
  "r2 bucket list",
  "r2 bucket create",
  "queues info",
  "queues create",
  "secret list",
  "deploy",
];
/** The command (its words), and its arguments as `words` (command words first). */
const words = args.filter((a, i) => !a.startsWith("-") && !(i > 0 && args[i - 1]!.startsWith("--")));
const command = COMMANDS.find((c) => words.join(" ").startsWith(c)) ?? words.join(" ");

function done(code: number, stdout = "", stderr = ""): never {
  appendFileSync(logPath, `${JSON.stringify(record)}\n`);
  const now = JSON.stringify(state);
  if (now !== stored) writeFileSync(statePath, now);
  if (stdout) process.stdout.write(stdout);
  if (stderr) process.stderr.write(stderr);
  process.exit(code);
}

const banner = "\n ⛅️ wrangler 4.156.2 (fake)\n───────────────────\n";

if (process.env.FAKE_WRANGLER_FAIL && command.startsWith(process.env.FAKE_WRANGLER_FAIL)) {
  done(1, banner, "✘ [ERROR] A request to the Cloudflare API failed. Authentication error [code: 10000]\n");
}

/** The organizer group of a data binding (DB: 1, DB_<n>: n). */
const groupOf = (binding: string) => (binding === "DB" ? 1 : Number(/^DB_(\d+)$/.exec(binding)?.[1] ?? Number.NaN));

const answer = (results: Record<string, unknown>[]) => ({ results, success: true, meta: {} });

/** Answers of `d1 execute` for the statements the operator command and the deploy script send. */
function execute(binding: string, sql: string): Record<string, unknown>[] {
  const slug = /slug = '([^']*)'/.exec(sql)?.[1];
  const statements = sql
    .split(";")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!state.migrated.includes(binding))
    throw new Error(`no such table: ${binding === "DIRECTORY" ? "directory_organizers" : "organizers"}: SQLITE_ERROR`);
  if (binding === "DIRECTORY") {
    return statements.map((s) => {
      if (/^SELECT (id, )?data_group FROM directory_organizers WHERE slug =/.test(s))
        return answer(
          state.directory
            .filter((o) => o.slug === slug)
            .map((o) => (s.startsWith("SELECT id") ? { id: o.id, data_group: o.group } : { data_group: o.group })),
        );
      if (s.startsWith("SELECT data_group AS g, count(*) AS n")) {
        const groups = [...new Set(state.directory.map((o) => o.group))];
        return answer(groups.map((g) => ({ g, n: state.directory.filter((o) => o.group === g).length })));
      }
      if (s.startsWith("INSERT INTO directory_organizers")) {
        if (state.directory.some((o) => s.includes(`VALUES ('${o.slug}',`)))
          throw new Error("UNIQUE constraint failed: directory_organizers.slug");
        const [, named, group] = /VALUES \('([^']*)', (\d+),/.exec(s)!;
        const row = { id: state.directory.length + 1, slug: named!, group: Number(group) };
        state.directory.push(row);
        return answer([{ id: row.id, data_group: row.group }]);
      }
      throw new Error(`the fake directory does not know: ${s}`);
    });
  }
  const group = groupOf(binding);
  return statements.map((s) => {
    if (/^SELECT (slug|id) FROM organizers WHERE slug =/.test(s)) {
      const found = state.organizers.filter((o) => o.slug === slug && o.group === group);
      return answer(found.map((o) => (s.startsWith("SELECT slug") ? { slug: o.slug } : { id: o.id })));
    }
    if (s.startsWith("INSERT INTO organizers")) {
      const [, id, named] = /VALUES \((\d+), '([^']*)'/.exec(s)!;
      if (state.organizers.some((o) => o.slug === named && o.group === group))
        throw new Error("UNIQUE constraint failed: organizers.slug");
      state.organizers.push({ id: Number(id), slug: named!, team: state.organizers.length + 1, group });
      return answer([]);
    }
    const team = /^SELECT max\(id\) AS team FROM teams WHERE organizer_id = (\d+)/.exec(s);
    if (team) return answer([{ team: state.organizers.find((o) => o.id === Number(team[1]))!.team }]);
    return answer([]);
  });
}

switch (command) {
  case "whoami":
    if (!state.loggedIn) done(1, banner, "✘ [ERROR] You are not authenticated. Please run `wrangler login`.\n");
    done(
      0,
      `${banner}Getting User settings...\n👋 You are logged in with an OAuth Token, associated with the email operator@example.com.\n`,
    );
  case "d1 list":
    done(
      0,
      JSON.stringify(
        state.databases.map((d) => ({
          uuid: d.uuid,
          name: d.name,
          created_at: "2026-11-24T00:00:00Z",
          version: "production",
        })),
        null,
        2,
      ),
    );
  case "d1 create": {
    const name = words[2]!;
    if (state.databases.some((d) => d.name === name))
      done(1, banner, "✘ [ERROR] A database with that name already exists [code: 7502]\n");
    const uuid = `${String(state.databases.length + 1).padStart(8, "0")}-aaaa-4bbb-8ccc-dddddddddddd`;
    state.databases.push({ uuid, name });
    done(
      0,
      `${banner}✅ Successfully created DB '${name}'\n\n[[d1_databases]]\nbinding = "${name}"\ndatabase_name = "${name}"\ndatabase_id = "${uuid}"\n`,
    );
  }
  case "r2 bucket list":
    done(
      0,
      `${banner}Listing buckets...\n${state.buckets.map((b) => `name:           ${b}\ncreation_date:  2026-11-24T00:00:00.000Z`).join("\n\n")}\n`,
    );
  case "r2 bucket create": {
    const name = words[3]!;
    if (state.buckets.includes(name))
      done(1, banner, "✘ [ERROR] The bucket you tried to create already exists, and you own it. [code: 10004]\n");
    state.buckets.push(name);
    done(
      0,
      `${banner}Creating bucket '${name}'...\n✅ Created bucket '${name}' with default storage class of Standard.\n`,
    );
  }
  case "queues info": {
    const name = words[2]!;
    if (!state.queues.includes(name))
      done(1, banner, `✘ [ERROR] Queue "${name}" does not exist. To create it, run: wrangler queues create ${name}\n`);
    done(0, `${banner}Queue Name: ${name}\nQueue ID: q-${name}\nNumber of Producers: 0\nNumber of Consumers: 0\n`);
  }
  case "queues create": {
    const name = words[2]!;
    if (state.queues.includes(name))
      done(1, banner, `✘ [ERROR] A request to the Cloudflare API failed. Queue name already taken [code: 11009]\n`);
    state.queues.push(name);
    done(0, `${banner}🌀 Creating queue '${name}'\n✅ Created queue '${name}'\n`);
  }
  case "d1 migrations apply": {
    if (!args.includes("--remote")) done(1, banner, "✘ [ERROR] the deploy test expects remote migrations only\n");
    const binding = words[3]!;
    const first = !state.migrated.includes(binding);
    if (first) state.migrated.push(binding);
    done(
      0,
      first
        ? `${banner}🚣 Executed 12 commands in 1.2ms\n12 commands executed successfully.\n`
        : `${banner}✅ No migrations to apply!\n`,
    );
  }
  case "d1 execute": {
    const file = option("--file");
    const sql = file ? readFileSync(file, "utf8") : option("--command")!;
    record.sql = sql;
    try {
      done(0, JSON.stringify(execute(words[2]!, sql), null, 2));
    } catch (e) {
      done(1, banner, `✘ [ERROR] ${(e as Error).message}\n`);
    }
  }
  case "secret list":
    if (!state.workerDeployed)
      done(
        1,
        banner,
        "✘ [ERROR] A request to the Cloudflare API failed. This Worker does not exist on your account. [code: 10007]\n",
      );
    done(0, JSON.stringify(state.secrets.map((name) => ({ name, type: "secret_text" }))));
  case "deploy": {
    const file = option("--secrets-file");
    if (file) {
      const secrets = JSON.parse(readFileSync(file, "utf8")) as Record<string, string>;
      record.secretsFile = secrets;
      for (const name of Object.keys(secrets)) if (!state.secrets.includes(name)) state.secrets.push(name);
    }
    state.workerDeployed = true;
    done(
      0,
      `${banner}Uploaded ticketing (1.00 sec)\nDeployed ticketing triggers (0.50 sec)\n  https://ticketing.operator.workers.dev\n  schedule: */15 * * * *\n`,
    );
  }
  default:
    done(1, banner, `✘ [ERROR] the fake wrangler does not know "${args.join(" ")}"\n`);
}
