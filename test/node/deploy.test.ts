/**
 * `npm run deploy` (src/cli/deploy.ts), run as the operator runs it but against a stand-in for
 * wrangler (test/node/fake-wrangler.ts, through TICKETING_WRANGLER) that plays a Cloudflare
 * account: nothing here reaches Cloudflare. The tests assert the exact commands, in order,
 * and what the script decides from their answers: create what is missing, leave what exists.
 */
import { spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { idRangeSql } from "../../src/db/id-ranges.ts";

const root = path.resolve(import.meta.dirname, "..", "..");
const fake = path.join(root, "test", "node", "fake-wrangler.ts");

/**
 * A configuration shaped like the project's: the organizer directory and two organizer groups'
 * databases, each with its migrations, a bucket, two queues with their dead-letter queues.
 */
const FIXTURE = `name = "ticketing"
main = "src/index.ts"
compatibility_date = "2026-11-01"

[observability]
enabled = true

[vars]
MAIL_TRANSPORT = "local"

[[d1_databases]]
binding = "DIRECTORY"
database_name = "ticketing-directory"
database_id = "00000000-0000-4000-8000-000000000100"
migrations_dir = "migrations/directory"

[[d1_databases]]
binding = "DB"
database_name = "ticketing"
database_id = "00000000-0000-4000-8000-000000000000"
migrations_dir = "migrations"

[[d1_databases]]
binding = "DB_2"
database_name = "ticketing-2"
database_id = "00000000-0000-4000-8000-000000000002"
migrations_dir = "migrations"

[[r2_buckets]]
binding = "FILES"
bucket_name = "ticketing-files"

[[queues.producers]]
binding = "EXPORTS_QUEUE"
queue = "ticketing-exports"

[[queues.consumers]]
queue = "ticketing-exports"
dead_letter_queue = "ticketing-exports-dlq"

[[queues.producers]]
binding = "MAIL_QUEUE"
queue = "ticketing-mail"

[[queues.consumers]]
queue = "ticketing-mail"
max_retries = 5
dead_letter_queue = "ticketing-mail-dlq"
`;

let dir = "";
let config = "";
let stateFile = "";
let logFile = "";

beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), "ticketing-deploy-test-"));
  config = path.join(dir, "wrangler.toml");
  stateFile = path.join(dir, "account.json");
  logFile = path.join(dir, "calls.jsonl");
  writeFileSync(config, FIXTURE);
});

afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function deploy(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [path.join(root, "src/cli/deploy.ts"), ...args], {
      cwd: root,
      env: {
        ...process.env,
        TICKETING_WRANGLER: fake,
        FAKE_WRANGLER_STATE: stateFile,
        FAKE_WRANGLER_LOG: logFile,
        ...env,
      },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => (stdout += d));
    child.stderr.on("data", (d) => (stderr += d));
    child.on("close", (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

type Call = { args: string[]; sql?: string; secretsFile?: Record<string, string> };

/** The wrangler commands run so far, as command lines (the configuration flag and temporary files shown as <config>, <file>). */
function calls(): Call[] {
  if (!existsSync(logFile)) return [];
  return readFileSync(logFile, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Call)
    .map((c) => {
      const args = [...c.args];
      const i = args.indexOf("--config");
      if (i >= 0) {
        expect(args[i + 1]).toBe(config);
        args.splice(i, 2);
      }
      const f = args.indexOf("--file");
      if (f >= 0) args[f + 1] = "<file>";
      const s = args.indexOf("--secrets-file");
      if (s >= 0) args[s + 1] = "<file>";
      return { ...c, args };
    });
}

const lines = () => calls().map((c) => c.args.join(" "));

/** lines(), with the operator command's migrations (run side by side, in any order) sorted. */
function linesSortingFrom(start: number, count: number): string[] {
  const all = lines();
  return [...all.slice(0, start), ...all.slice(start, start + count).sort(), ...all.slice(start + count)];
}

/** The deploy's own migrations, each group's id range after its database's. */
const MIGRATIONS = [
  "d1 migrations apply DIRECTORY --remote",
  "d1 migrations apply DB --remote",
  "d1 migrations apply DB_2 --remote",
  `d1 execute DB_2 --remote --command ${idRangeSql(2).replace(/\n/g, " ")}`,
];
const DATABASES_CHECKED = ["d1 list --json", "d1 list --json", "d1 list --json"];
const LOOKUP =
  "d1 execute DIRECTORY --remote --json --command SELECT data_group FROM directory_organizers WHERE slug = 'acme'";

function account(): Record<string, unknown> {
  return JSON.parse(readFileSync(stateFile, "utf8")) as Record<string, unknown>;
}

const FIRST_RUN = [
  "whoami",
  "d1 list --json",
  "d1 create ticketing-directory",
  "d1 list --json",
  "d1 list --json",
  "d1 create ticketing",
  "d1 list --json",
  "d1 list --json",
  "d1 create ticketing-2",
  "d1 list --json",
  "r2 bucket list",
  "r2 bucket create ticketing-files",
  "queues info ticketing-exports",
  "queues create ticketing-exports",
  "queues info ticketing-mail",
  "queues create ticketing-mail",
  "queues info ticketing-exports-dlq",
  "queues create ticketing-exports-dlq",
  "queues info ticketing-mail-dlq",
  "queues create ticketing-mail-dlq",
  ...MIGRATIONS,
  "deploy",
  LOOKUP,
  // the operator command (admin create-organizer --remote): migrations of every database (sorted
  // here), the directory's slug check and group sizes, its row, then the group's inserts
  "d1 migrations apply DB --remote",
  "d1 migrations apply DB_2 --remote",
  "d1 migrations apply DIRECTORY --remote",
  "d1 execute DIRECTORY --remote --json --file <file>",
  "d1 execute DIRECTORY --remote --json --file <file>",
  "d1 execute DB --remote --json --file <file>",
];
/** Where the operator command's migrations start in FIRST_RUN. */
const ADMIN_MIGRATIONS = FIRST_RUN.indexOf(LOOKUP) + 1;

describe("npm run deploy", () => {
  it("from nothing: creates every resource, writes the database id, migrates, deploys, creates the first organizer; run again, creates nothing", async () => {
    const out = await deploy(["--config", config, "--organizer", "acme", "--organizer-name", "Acme Events"]);
    expect(out.code, out.stderr).toBe(0);
    expect(linesSortingFrom(ADMIN_MIGRATIONS, 3)).toEqual(FIRST_RUN);

    // the new databases' ids are in the configuration, nothing else in it changed
    const id = "00000002-aaaa-4bbb-8ccc-dddddddddddd";
    expect(readFileSync(config, "utf8")).toBe(
      FIXTURE.replace(
        'database_id = "00000000-0000-4000-8000-000000000100"',
        'database_id = "00000001-aaaa-4bbb-8ccc-dddddddddddd"',
      )
        .replace('database_id = "00000000-0000-4000-8000-000000000000"', `database_id = "${id}"`)
        .replace(
          'database_id = "00000000-0000-4000-8000-000000000002"',
          'database_id = "00000003-aaaa-4bbb-8ccc-dddddddddddd"',
        ),
    );
    expect(account()).toMatchObject({
      databases: [
        { uuid: "00000001-aaaa-4bbb-8ccc-dddddddddddd", name: "ticketing-directory" },
        { uuid: id, name: "ticketing" },
        { uuid: "00000003-aaaa-4bbb-8ccc-dddddddddddd", name: "ticketing-2" },
      ],
      buckets: ["ticketing-files"],
      queues: ["ticketing-exports", "ticketing-mail", "ticketing-exports-dlq", "ticketing-mail-dlq"],
      migrated: ["DIRECTORY", "DB", "DB_2"],
      workerDeployed: true,
      // the directory first (its id), then the organizer in the emptiest group (both empty: group 1)
      directory: [{ id: 1, slug: "acme", group: 1 }],
      organizers: [{ id: 1, slug: "acme", team: 1, group: 1 }],
    });
    // the organizer went in through the operator command's statements, with the directory's id
    expect(calls().at(-1)!.sql).toContain(
      "INSERT INTO organizers (id, slug, name, created_at) VALUES (1, 'acme', 'Acme Events', ",
    );

    // every step says what it did; the token comes last, as the operator command prints it
    expect(out.stdout).toContain("missing: creating it");
    expect(out.stdout).toContain(`database_id of DB set to ${id} (was 00000000-0000-4000-8000-000000000000)`);
    expect(out.stdout).toContain('D1 database "ticketing-2" (binding DB_2, organizer group 2)');
    expect(out.stdout).toContain("the ids of organizer group 2 start above 1000000000000:");
    expect(out.stdout).toContain("ticketing-mail-dlq: missing, creating it");
    const last = JSON.parse(
      out.stdout
        .trim()
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .pop()!,
    );
    expect(last).toEqual({ organizer: "acme", team: 1, token: expect.stringMatching(/^[a-z0-9]{64}$/) });

    // run again: only checks, migrations and the deploy; creates nothing, the organizer is left alone
    const afterFirst = readFileSync(config, "utf8");
    const accountAfterFirst = account();
    rmSync(logFile);

    const again = await deploy(["--config", config, "--organizer", "acme", "--organizer-name", "Acme Events"]);
    expect(again.code, again.stderr).toBe(0);
    expect(lines()).toEqual([
      "whoami",
      ...DATABASES_CHECKED,
      "r2 bucket list",
      "queues info ticketing-exports",
      "queues info ticketing-mail",
      "queues info ticketing-exports-dlq",
      "queues info ticketing-mail-dlq",
      ...MIGRATIONS,
      "deploy",
      LOOKUP,
      "d1 execute DB --remote --json --command SELECT slug FROM organizers WHERE slug = 'acme'",
    ]);
    expect(readFileSync(config, "utf8")).toBe(afterFirst);
    expect(account()).toEqual(accountAfterFirst);
    expect(again.stdout).toContain(`exists (id ${id})`);
    expect(again.stdout).toContain("wrangler.toml has its id already");
    expect(again.stdout).toContain('"acme" exists in organizer group 1: nothing to do');
    // no token printed the second time (the first one's JSON line is not repeated)
    expect(again.stdout).not.toContain('"token"');
    expect(again.stdout).not.toContain(last.token);
  });

  it("an account that has some of it: creates only the rest, and takes the existing database's id", async () => {
    writeFileSync(
      stateFile,
      JSON.stringify({
        databases: [{ uuid: "0000000f-1111-4222-8333-444444444444", name: "ticketing" }],
        buckets: ["other", "ticketing-files"],
        queues: ["ticketing-mail"],
      }),
    );
    const out = await deploy(["--config", config]);
    expect(out.code, out.stderr).toBe(0);
    expect(lines()).toEqual([
      "whoami",
      "d1 list --json",
      "d1 create ticketing-directory",
      "d1 list --json",
      "d1 list --json",
      "d1 list --json",
      "d1 create ticketing-2",
      "d1 list --json",
      "r2 bucket list",
      "queues info ticketing-exports",
      "queues create ticketing-exports",
      "queues info ticketing-mail",
      "queues info ticketing-exports-dlq",
      "queues create ticketing-exports-dlq",
      "queues info ticketing-mail-dlq",
      "queues create ticketing-mail-dlq",
      ...MIGRATIONS,
      "deploy",
    ]);
    expect(readFileSync(config, "utf8")).toContain('database_id = "0000000f-1111-4222-8333-444444444444"');
    // no organizer asked for: it says how to create one later
    expect(out.stdout).toContain("npm run --silent admin -- create-organizer --remote --slug SLUG --name NAME");
  });

  it("--dry-run prints every command and runs none; the configuration stays as it is", async () => {
    const out = await deploy([
      "--config",
      config,
      "--dry-run",
      "--organizer",
      "acme",
      "--organizer-name",
      "Acme Events",
    ]);
    expect(out.code, out.stderr).toBe(0);
    expect(calls()).toEqual([]);
    expect(existsSync(stateFile)).toBe(false);
    expect(readFileSync(config, "utf8")).toBe(FIXTURE);
    const shown = out.stdout
      .split("\n")
      .map((l) => /\$ (wrangler .*|npm .*)$/.exec(l)?.[1])
      .filter((l) => l !== undefined)
      .map((l) => l.replace(` --config ${config}`, ""));
    expect(shown).toEqual([
      "wrangler whoami",
      "wrangler d1 list --json",
      "wrangler d1 create ticketing-directory",
      "wrangler d1 list --json",
      "wrangler d1 create ticketing",
      "wrangler d1 list --json",
      "wrangler d1 create ticketing-2",
      "wrangler r2 bucket list",
      "wrangler r2 bucket create ticketing-files",
      "wrangler queues info ticketing-exports",
      "wrangler queues create ticketing-exports",
      "wrangler queues info ticketing-mail",
      "wrangler queues create ticketing-mail",
      "wrangler queues info ticketing-exports-dlq",
      "wrangler queues create ticketing-exports-dlq",
      "wrangler queues info ticketing-mail-dlq",
      "wrangler queues create ticketing-mail-dlq",
      "wrangler d1 migrations apply DIRECTORY --remote",
      "wrangler d1 migrations apply DB --remote",
      "wrangler d1 migrations apply DB_2 --remote",
      `wrangler d1 execute DB_2 --remote --command "${idRangeSql(2).replace(/\n/g, " ")}"`,
      "wrangler deploy",
      `wrangler d1 execute DIRECTORY --remote --json --command "SELECT data_group FROM directory_organizers WHERE slug = 'acme'"`,
      "npm run --silent admin -- create-organizer --remote --slug acme --name 'Acme Events'",
    ]);
    expect(out.stdout).toContain("Dry run");
    // no secret is required by the configuration, but queues and card payments need the signing secret
    expect(out.stdout).toContain(
      "TICKET_SIGNING_KEY_SECRET: required for on-sale queues, card payments (organizers' Stripe keys are sealed with it) and signed ticket secrets; unless the Worker has it already, set it once with `npm exec -- wrangler secret put TICKET_SIGNING_KEY_SECRET`",
    );
    // the databases it would create, each with what it holds
    expect(out.stdout).toContain(
      "ticketing-directory (binding DIRECTORY: the organizer directory): created if it is missing",
    );
    expect(out.stdout).toContain("ticketing (binding DB: organizer group 1): created if it is missing");
    expect(out.stdout).toContain("ticketing-2 (binding DB_2: organizer group 2): created if it is missing");
  });

  it("an organizer in the directory but not in its group's database: the operator command completes it", async () => {
    writeFileSync(
      stateFile,
      JSON.stringify({
        databases: [
          { uuid: "00000001-aaaa-4bbb-8ccc-dddddddddddd", name: "ticketing-directory" },
          { uuid: "00000002-aaaa-4bbb-8ccc-dddddddddddd", name: "ticketing" },
          { uuid: "00000003-aaaa-4bbb-8ccc-dddddddddddd", name: "ticketing-2" },
        ],
        buckets: ["ticketing-files"],
        queues: ["ticketing-exports", "ticketing-mail", "ticketing-exports-dlq", "ticketing-mail-dlq"],
        migrated: ["DIRECTORY", "DB", "DB_2"],
        directory: [{ id: 7, slug: "acme", group: 2 }],
      }),
    );
    const out = await deploy(["--config", config, "--organizer", "acme", "--organizer-name", "Acme Events"]);
    expect(out.code, out.stderr).toBe(0);
    const deployed = lines().indexOf("deploy");
    expect(linesSortingFrom(deployed + 3, 3).slice(deployed)).toEqual([
      "deploy",
      LOOKUP,
      "d1 execute DB_2 --remote --json --command SELECT slug FROM organizers WHERE slug = 'acme'",
      "d1 migrations apply DB --remote",
      "d1 migrations apply DB_2 --remote",
      "d1 migrations apply DIRECTORY --remote",
      // the directory's row (found), its group's slug check, the group's inserts
      "d1 execute DIRECTORY --remote --json --file <file>",
      "d1 execute DB_2 --remote --json --file <file>",
      "d1 execute DB_2 --remote --json --file <file>",
    ]);
    expect(out.stdout).toContain('"acme" is in the directory but not in DB_2 yet: the operator command completes it');
    // the directory's row is kept (its id and group), the organizer's rows go to its group
    expect(account()).toMatchObject({
      directory: [{ id: 7, slug: "acme", group: 2 }],
      organizers: [{ id: 7, slug: "acme", group: 2 }],
    });
  });

  it("not logged in: stops at once, says how to log in, changes nothing", async () => {
    writeFileSync(stateFile, JSON.stringify({ loggedIn: false }));
    const out = await deploy(["--config", config]);
    expect(out.code).toBe(1);
    expect(lines()).toEqual(["whoami"]);
    expect(out.stderr).toContain("wrangler login");
    expect(readFileSync(config, "utf8")).toBe(FIXTURE);
  });

  it("a failing command stops the run there with its message; the next run picks up where it stopped", async () => {
    const out = await deploy(["--config", config], { FAKE_WRANGLER_FAIL: "queues info" });
    expect(out.code).toBe(1);
    expect(lines()).toEqual([
      ...FIRST_RUN.slice(0, FIRST_RUN.indexOf("r2 bucket create ticketing-files") + 1),
      "queues info ticketing-exports",
    ]);
    expect(out.stderr).toContain("looking up the queue ticketing-exports failed");
    expect(out.stderr).toContain("Authentication error [code: 10000]");

    rmSync(logFile);
    const next = await deploy(["--config", config]);
    expect(next.code, next.stderr).toBe(0);
    expect(lines()).toEqual([
      "whoami",
      ...DATABASES_CHECKED,
      "r2 bucket list",
      "queues info ticketing-exports",
      "queues create ticketing-exports",
      "queues info ticketing-mail",
      "queues create ticketing-mail",
      "queues info ticketing-exports-dlq",
      "queues create ticketing-exports-dlq",
      "queues info ticketing-mail-dlq",
      "queues create ticketing-mail-dlq",
      ...MIGRATIONS,
      "deploy",
    ]);
  });

  it("secrets wrangler.toml requires: refused before any change when not given; uploaded with the first deploy; kept afterwards", async () => {
    writeFileSync(config, `${FIXTURE}\n[secrets]\nrequired = ["SIGNING_KEY"]\n`);
    const refused = await deploy(["--config", config], { SIGNING_KEY: "" });
    expect(refused.code).toBe(1);
    expect(lines()).toEqual(["whoami", "secret list --format json"]);
    expect(refused.stderr).toContain(
      "the secret SIGNING_KEY is not set on the Worker: give it as environment variable, e.g. SIGNING_KEY=... npm run deploy (nothing was changed)",
    );

    rmSync(logFile);
    const first = await deploy(["--config", config], { SIGNING_KEY: "s3cret value" });
    expect(first.code, first.stderr).toBe(0);
    const deployCall = calls().find((c) => c.args[0] === "deploy")!;
    expect(deployCall.args).toEqual(["deploy", "--secrets-file", "<file>"]);
    expect(deployCall.secretsFile).toEqual({ SIGNING_KEY: "s3cret value" });
    expect(first.stdout).not.toContain("s3cret value");
    expect(lines().slice(0, 2)).toEqual(["whoami", "secret list --format json"]);

    rmSync(logFile);
    const again = await deploy(["--config", config], { SIGNING_KEY: "" });
    expect(again.code, again.stderr).toBe(0);
    expect(calls().find((c) => c.args[0] === "deploy")!.args).toEqual(["deploy"]);
    expect(again.stdout).toContain("SIGNING_KEY: set on the Worker, kept");
  });

  it("the project's own wrangler.toml: a dry run covers its database, bucket and queues, and every consumer has a dead-letter queue", async () => {
    const real = path.join(dir, "project-wrangler.toml");
    copyFileSync(path.join(root, "wrangler.toml"), real);
    const toml = readFileSync(real, "utf8");
    const consumers = toml.split(/^(?=\[)/m).filter((b) => b.startsWith("[[queues.consumers]]"));
    expect(consumers.length).toBeGreaterThan(0);
    const queues: string[] = [];
    for (const block of consumers) {
      const queue = /^queue\s*=\s*"([^"]+)"/m.exec(block)?.[1];
      const dlq = /^dead_letter_queue\s*=\s*"([^"]+)"/m.exec(block)?.[1];
      expect(dlq, `the consumer of ${queue} names a dead_letter_queue`).toBeDefined();
      queues.push(queue!, dlq!);
    }
    const out = await deploy(["--config", real, "--dry-run"]);
    expect(out.code, out.stderr).toBe(0);
    expect(calls()).toEqual([]);
    for (const q of queues) expect(out.stdout).toContain(`$ wrangler queues create ${q}`);
    expect(out.stdout).toContain("$ wrangler d1 create ticketing");
    expect(out.stdout).toContain("$ wrangler d1 create ticketing-directory");
    expect(out.stdout).toContain("$ wrangler d1 create ticketing-2");
    expect(out.stdout).toContain("$ wrangler r2 bucket create ticketing-files");
    expect(out.stdout).toContain("$ wrangler d1 migrations apply DB --remote");
    expect(out.stdout).toContain("$ wrangler d1 migrations apply DIRECTORY --remote");
    expect(out.stdout).toContain("$ wrangler d1 migrations apply DB_2 --remote");
    expect(out.stdout).toContain(
      `$ wrangler d1 execute DB_2 --remote --command "${idRangeSql(2).replace(/\n/g, " ")}"`,
    );
    expect(readFileSync(real, "utf8")).toBe(toml);
  });
});
