/**
 * The README's walkthroughs, run as a newcomer on Node 20 runs them, twice on one state: `npm
 * start -- --stripe standin`, the operator command (refused the second time: the slug is taken),
 * examples/quickstart.ts (its transcript is the README's block; the second run takes democon-2),
 * the queued on-sale and the card payment against the stand-in of Stripe (docs/payments.md), each
 * block run by bash as written. Shell commands run with the system's Node first on PATH (npm scripts
 * bring the project's own). Also: the typed client's types and its documented command.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, runScript, START_TIMEOUT_MS, type Server, startServer } from "./server.ts";

let server: Server | undefined;
let standin = "";
const out = mkdtempSync(path.join(tmpdir(), "ticketing-quickstart-out-"));

beforeAll(async () => {
  server = await startServer("ticketing-quickstart-", ["--stripe", "standin", "--stripe-port", "0"]);
  standin = /Stripe stand-in at (http:\/\/127\.0\.0\.1:\d+)/.exec(server.log())?.[1] ?? "";
}, START_TIMEOUT_MS + 10_000);

afterAll(() => {
  server?.stop();
  rmSync(out, { recursive: true, force: true });
});

const readme = () => readFileSync(path.join(root, "README.md"), "utf8");

/** The README's one console block: the quickstart transcript. */
function readmeTranscript(): string[] {
  const blocks = [...readme().matchAll(/```console\n([\s\S]*?)```/g)].map((m) => m[1]!);
  expect(blocks, "README.md has one ```console block, the quickstart").toHaveLength(1);
  return blocks[0]!.trimEnd().split("\n");
}

/** Words of a command line as a POSIX shell splits them (plain words and double-quoted strings suffice here). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1] : m[2]!));
}

/**
 * A transcript with the values it assigned to shell variables (`$ NAME=value`) written as the
 * variables, except plain numbers (ids, the same on every fresh state): what stays is what
 * every run prints alike. `again`: a run on a state used before, whose ids and event slug differ.
 */
function normalized(lines: string[], again = false): string {
  const values = new Map<string, string>();
  for (const line of lines) {
    if (!line.startsWith("$ ") || !/^[A-Z]+=/.test(line.slice(2))) continue;
    for (const [, name, value] of line.slice(2).matchAll(/([A-Z]+)=("[^"]*"|\S+)/g)) {
      if (!value!.startsWith('"') && !/^\d+$/.test(value!)) values.set(name!, value!);
    }
  }
  let text = lines.join("\n");
  for (const [name, value] of [...values].sort((a, b) => b[1].length - a[1].length)) {
    text = text.split(value).join(`$${name}`);
  }
  if (!again) return text;
  // only the commands and the statuses: ids, counts and the slug differ on a used state
  return text
    .replaceAll(/democon(-\d+)?/g, "democon")
    .split("\n")
    .map((l) => (/^\d{3} /.test(l) ? l.slice(0, 3) : l.replace(/^(\$ [A-Z]+=)\d+$/, "$1N")))
    .join("\n");
}

/** A fenced ```sh block of a document, under the heading given (the first block after it). */
function shBlock(file: string, heading: RegExp): string {
  const text = readFileSync(path.join(root, file), "utf8");
  const section = text.split(heading)[1];
  const block = section === undefined ? undefined : /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, `${file}: the sh block under ${heading}`).toBeDefined();
  return block!;
}

/** PATH as a newcomer's shell has it: the project's node_modules/.bin (its Node 24) left out. */
const shellPath = (process.env.PATH ?? "")
  .split(path.delimiter)
  .filter((dir) => !dir.includes(`node_modules${path.sep}.bin`))
  .join(path.delimiter);

/** A script run by bash (stopping at the first failing command), as the reader's shell runs it. */
function bash(
  script: string,
  vars: Record<string, string>,
  timeout = 120_000,
): Promise<{ stdout: string; stderr: string }> {
  const local = script.replaceAll("http://127.0.0.1:8787", server!.base).replaceAll("http://127.0.0.1:12111", standin);
  return new Promise((resolve, reject) => {
    execFile(
      "bash",
      ["-e", "-o", "pipefail", "-c", local],
      { cwd: out, timeout, env: { ...process.env, PATH: shellPath, ...vars } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${error.message}\n${stderr}\n${stdout}`)) : resolve({ stdout, stderr }),
    );
  });
}

type Answer = { status: number; body: any };

describe("README walkthroughs, twice on one state", () => {
  let token = "";
  let firstCode = "";
  let vars: Record<string, string> = {};
  const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${server!.base}/api/v1/organizers/demo/${url}`, {
      method,
      headers: { Authorization: `Token ${token}`, "Content-Type": "application/json", ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null } as Answer;
  };

  it("npm start: the bindings table once, nothing fetched from the network, the stand-in of Stripe named", () => {
    expect(standin, server!.output()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const log = server!.log();
    expect(log.split("Your Worker has access to the following bindings").length - 1, log).toBe(1);
    expect(log).not.toContain("Request.cf");
    expect(log).not.toContain("getaddrinfo");
    // wrangler shows the variable as hidden: the start says where the stand-in listens
    expect(log).toContain(`Stripe stand-in at ${standin} (test/stripe/standin.ts)`);
    expect(log).toContain('env.STRIPE_API_BASE ("(hidden)")');
  });

  it("the README's operator command creates the organizer it shows; run again, it refuses the taken slug", async () => {
    const [command, answer] = readmeTranscript();
    const prefix = "$ npm run --silent admin -- ";
    expect(command!.startsWith(prefix), command).toBe(true);
    const args = [...shellWords(command!.slice(prefix.length)), "--persist-to", server!.state];
    const run = await runScript("src/cli/admin.ts", args);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`The server of this state (npm start at ${server!.base}) accepts the token.`);
    // nothing contradicts that: no warning beside it
    expect(run.stderr).not.toContain("warning");
    const printed = JSON.parse(run.stdout.trim().split("\n").pop()!) as {
      organizer: string;
      team: number;
      token: string;
    };
    const shown = JSON.parse(answer!) as typeof printed;
    expect(Object.keys(printed)).toEqual(Object.keys(shown));
    expect({ ...printed, token: "" }).toEqual({ ...shown, token: "" });
    expect(printed.token).toMatch(/^[a-z0-9]{64}$/);
    token = printed.token;
    vars = {
      TOKEN: token,
      API: `${server!.base}/api/v1`,
      AUTH: `Authorization: Token ${token}`,
      JSON: "Content-Type: application/json",
    };

    const again = await runScript("src/cli/admin.ts", args);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('an organizer with the slug "demo" exists already');
  });

  for (const round of [1, 2]) {
    it(`run ${round}: examples/quickstart.ts (npm run quickstart) sells, prints and scans a ticket, and prints what the README shows`, async () => {
      expect(token, "the organizer's token (previous test)").not.toBe("");
      const { stdout: run, stderr } = await bash(
        `cd "${root}" && npm run --silent quickstart -- --token "$TOKEN" --api "$API" --out "${out}"`,
        vars,
        300_000,
      );
      const transcript = run.trimEnd().split("\n");
      const event = round === 1 ? "democon" : "democon-2";
      if (round === 2)
        expect(stderr).toContain("the event democon exists already (an earlier run): this run uses democon-2");
      expect(run).toContain(`"slug": "${event}"`);
      expect(normalized(transcript, round === 2)).toEqual(normalized(readmeTranscript().slice(2), round === 2));

      const answers = transcript.filter((l) => /^\d{3} /.test(l));
      expect(answers.map((l) => Number(l.slice(0, 3)))).toEqual([
        201, 201, 201, 200, 201, 200, 409, 200, 201, 201, 200, 201, 400,
      ]);
      expect(answers[7]).toBe("200 application/pdf, saved as ticket.pdf: %PDF-1.7…");
      expect(answers[12]).toBe('400 {"status": "error", "reason": "already_redeemed", …}');
      const pdf = readFileSync(path.join(out, "ticket.pdf"));
      expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");

      // what the service keeps: the order paid, one entry on the list
      const code = /^\$ CODE=(\S+)/m.exec(run)![1]!;
      if (round === 1) firstCode = code;
      const list = /^\$ LIST=(\d+)/m.exec(run)![1];
      expect((await call("GET", `events/${event}/orders/${code}/`)).body).toMatchObject({
        status: "p",
        email: "ada@example.org",
      });
      expect((await call("GET", `events/${event}/checkinlists/${list}/`)).body).toMatchObject({
        position_count: 1,
        checkin_count: 1,
      });
    }, 400_000);

    it(`run ${round}: the README's queued on-sale as written: the queue opens now, a visitor joins, waits, is admitted and buys; then the queue is gone`, async () => {
      const block = shBlock("README.md", /^## A queued on-sale$/m);
      const lines = (await bash(block, vars)).stdout.trimEnd().split("\n");
      expect(lines[0]).toBe("200 text/html; charset=UTF-8");
      expect(JSON.parse(lines[1]!)).toMatchObject({
        status: "n",
        email: "grace@example.org",
        positions: [expect.objectContaining({ item: 1 })],
      });
      expect(lines).toHaveLength(2);
      // the on-sale is over: no queue, and orders need no admission again
      expect((await call("GET", "events/democon/onsale_queues/")).body.count).toBe(0);
      const free = await call("POST", "events/democon/orders/", { email: "x@example.org", positions: [{ item: 1 }] });
      expect(free.status).toBe(201);
    }, 180_000);

    it(`run ${round}: docs/payments.md's card payment against the stand-in as written: paid through the checkout page, then partly refunded`, async () => {
      const block = shBlock("docs/payments.md", /^## Locally, without a Stripe account$/m);
      const lines = (await bash(block, vars)).stdout.trimEnd().split("\n");
      const [key, webhook, plugins, paid, status, refund] = lines;
      expect(JSON.parse(key!)).toMatchObject({ payment_stripe_secret_key: true });
      expect(JSON.parse(webhook!)).toMatchObject({
        payment_stripe_secret_key: true,
        payment_stripe_webhook_secret: true,
      });
      expect(JSON.parse(plugins!).plugins).toEqual(["pretix.plugins.manualpayment", "pretix.plugins.stripe"]);
      expect(paid).toMatch(new RegExp(`^303 ${server!.base}/demo/democon/order/[A-Z0-9]+/.*paid=yes`));
      expect(status).toBe("p");
      expect(JSON.parse(refund!)).toMatchObject({ state: "done", amount: "5.00", provider: "stripe" });
      expect(lines).toHaveLength(6);
    }, 180_000);
  }

  it("npm run quickstart -- --help says how to run it, and changes nothing", async () => {
    const help = await bash(`cd "${root}" && npm run --silent quickstart -- --help`, {});
    expect(help.stdout).toMatch(
      /^usage: npm run --silent quickstart -- --token TOKEN \[--organizer SLUG\] \[--event SLUG\]/,
    );
    expect(help.stdout).toContain(
      "--event SLUG      the new event's slug (default: democon, or the first free democon-N)",
    );
  });

  it("examples/typed-client/api.d.ts is what openapi-typescript makes of the served description", async () => {
    const generated = path.join(out, "api.d.ts");
    const cli = path.join(root, "examples/typed-client/node_modules/openapi-typescript/bin/cli.js");
    const run = await runScript(path.relative(root, cli), [
      `${server!.base}/api/v1/openapi.json`,
      "--output",
      generated,
    ]);
    expect(run.code, run.stderr).toBe(0);
    const committed = readFileSync(path.join(root, "examples/typed-client/api.d.ts"), "utf8");
    expect(
      committed === readFileSync(generated, "utf8"),
      "examples/typed-client/api.d.ts is stale: with `npm start` running, run `npm run generate -w examples/typed-client` and commit the file",
    ).toBe(true);
  });

  it("the typed client's documented command lists the paid orders", async () => {
    const documented = /`(npm run --silent paid-orders -w examples\/typed-client -- [^`]*)`/.exec(
      readFileSync(path.join(root, "docs/typed-client.md"), "utf8"),
    )?.[1];
    expect(documented, "docs/typed-client.md: the command that runs paid-orders.ts").toBeDefined();
    const command = `cd "${root}" && ${documented!.replace("TOKEN", '"$TOKEN"')} --base "${server!.base}"`;
    // democon's paid orders: the first quickstart's (the card payment's order, refunded in part, is pending again)
    expect((await bash(command, vars)).stdout).toBe(`${firstCode} 25.00 ada@example.org\n`);
  });
});
