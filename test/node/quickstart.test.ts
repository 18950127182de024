/**
 * The README's quickstart, run as a newcomer runs it: `npm start` on a fresh state, the
 * README's operator command, then examples/quickstart.ts — whose transcript must be the
 * README's block (the same commands, bodies and answers; only the values an answer hands out,
 * tokens, codes and secrets, differ between runs). Then the typed client of
 * examples/typed-client/: its generated types must be what openapi-typescript makes of this
 * server's description, and it must run. Last, the README's queued on-sale: its commands, run
 * with bash and curl against the same server, queue the quickstart's event and sell with an admission.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, runScript, START_TIMEOUT_MS, type Server, startServer } from "./server.ts";

let server: Server | undefined;
const out = mkdtempSync(path.join(tmpdir(), "ticketing-quickstart-out-"));

beforeAll(async () => {
  server = await startServer("ticketing-quickstart-");
}, START_TIMEOUT_MS + 10_000);

afterAll(() => {
  server?.stop();
  rmSync(out, { recursive: true, force: true });
});

/** The README's one console block: the quickstart transcript. */
function readmeTranscript(): string[] {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const blocks = [...readme.matchAll(/```console\n([\s\S]*?)```/g)].map((m) => m[1]!);
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
 * every run prints alike.
 */
function normalized(lines: string[]): string {
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
  return text;
}

/** The commands of the README's "A queued on-sale" block: continuation lines joined, comments left out. */
function queuedOnSaleCommands(): string[] {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  const section = readme.split(/^## A queued on-sale$/m)[1]?.split(/^## /m)[0] ?? "";
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block, 'README.md: the ```sh block of "A queued on-sale"').toBeDefined();
  return block!
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((l) => l.trim() !== "" && !l.startsWith("#"));
}

/** A command line run by bash (curl as the README's reader runs it), with the shell variables given. */
function bash(command: string, vars: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile("bash", ["-c", command], { env: { ...process.env, ...vars } }, (error, stdout, stderr) =>
      error ? reject(new Error(`${command}\n${stderr}`)) : resolve(stdout),
    );
  });
}

describe("README quickstart", () => {
  let token = "";
  let transcript: string[] = [];

  it("the README's operator command creates the organizer it shows", async () => {
    const [command, answer] = readmeTranscript();
    const prefix = "$ npm run --silent admin -- ";
    expect(command!.startsWith(prefix), command).toBe(true);
    const run = await runScript("src/cli/admin.ts", [
      ...shellWords(command!.slice(prefix.length)),
      "--persist-to",
      server!.state,
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain(`The server of this state (npm start at ${server!.base}) accepts the token.`);
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
  });

  it("examples/quickstart.ts sells, prints and scans a ticket, and prints what the README shows", async () => {
    expect(token, "the organizer's token (previous test)").not.toBe("");
    const run = await runScript("examples/quickstart.ts", [
      "--token",
      token,
      "--api",
      `${server!.base}/api/v1`,
      "--out",
      out,
    ]);
    expect(run.code, `${run.stderr}\n${run.stdout}`).toBe(0);
    transcript = run.stdout.trimEnd().split("\n");

    // the README's block is this transcript, after its operator command and that command's answer
    expect(normalized(readmeTranscript().slice(2))).toEqual(normalized(transcript));

    // the answers that matter, in order
    const answers = transcript.filter((l) => /^\d{3} /.test(l));
    expect(answers.map((l) => Number(l.slice(0, 3)))).toEqual([
      201, 201, 201, 200, 201, 200, 409, 200, 201, 201, 200, 201, 400,
    ]);
    expect(answers[5]).toMatch(/^200 \{"code": "[A-Z0-9]+", "status": "p", /);
    expect(answers[7]).toBe("200 application/pdf, saved as ticket.pdf: %PDF-1.7…");
    expect(answers[11]).toMatch(
      /^201 \{"status": "ok", "position": \{"order": "[A-Z0-9]+", "attendee_name": "Ada Lovelace"/,
    );
    expect(answers[12]).toBe('400 {"status": "error", "reason": "already_redeemed", …}');

    const pdf = readFileSync(path.join(out, "ticket.pdf"));
    expect(pdf.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(pdf.subarray(-6).toString("latin1")).toMatch(/%%EOF\s*$/);

    // what the service keeps: the order paid, one entry on the list
    const code = /^\$ CODE=(\S+)/m.exec(run.stdout)![1];
    const list = /^\$ LIST=(\d+)/m.exec(run.stdout)![1];
    const get = async (p: string) =>
      (await (
        await fetch(`${server!.base}/api/v1/organizers/demo/events/democon/${p}`, {
          headers: { Authorization: `Token ${token}` },
        })
      ).json()) as Record<string, unknown>;
    expect(await get(`orders/${code}/`)).toMatchObject({ status: "p", email: "ada@example.org" });
    expect(await get(`checkinlists/${list}/`)).toMatchObject({ position_count: 1, checkin_count: 1 });
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

  it("the typed client lists the paid order", async () => {
    const code = /^\$ CODE=(\S+)/m.exec(transcript.join("\n"))?.[1];
    expect(code, "the quickstart's order (previous test)").toBeDefined();
    const run = await runScript("examples/typed-client/paid-orders.ts", [
      "--base",
      server!.base,
      "--token",
      token,
      "--organizer",
      "demo",
      "--event",
      "democon",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe(`${code} 25.00 ada@example.org\n`);
  });

  it("the README's queued on-sale: a queue in front of the event, its waiting page, an order with an admission", async () => {
    expect(token, "the organizer's token (first test)").not.toBe("");
    const commands = queuedOnSaleCommands().map((c) => c.replaceAll("http://127.0.0.1:8787", server!.base));
    expect(commands).toHaveLength(3);
    const api = `${server!.base}/api/v1`;
    const vars = { API: api, AUTH: `Authorization: Token ${token}`, JSON: "Content-Type: application/json" };
    const event = `${api}/organizers/demo/events/democon`;
    const call = async (method: string, url: string, body?: unknown, headers: Record<string, string> = {}) => {
      const res = await fetch(url, {
        method,
        headers: { Authorization: `Token ${token}`, "Content-Type": "application/json", ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as any };
    };

    const queue = JSON.parse(await bash(commands[0]!, vars));
    expect(queue).toMatchObject({
      opens_at: "2030-05-01T10:00:00Z",
      admissions_per_minute: 100,
      arrival_order: "shuffle",
      active: true,
      waiting_page_url: `${server!.base}/demo/democon/queue/`,
    });
    expect(commands[1]).toContain(`"${queue.waiting_page_url}"`);
    expect(await bash(commands[1]!, vars)).toBe("200 text/html; charset=UTF-8\n");

    // behind the queue: no order without an admission
    const refused = await call("POST", `${event}/orders/`, { email: "x@example.org", positions: [{ item: 1 }] });
    expect(refused.status).toBe(403);
    expect(refused.body.queue).toBe(queue.id);
    // a visitor's admission: the queue opened now rather than in 2030, the visitor joins and waits its turn
    const opened = await call("PATCH", `${event}/onsale_queues/${queue.id}/`, { opens_at: new Date().toISOString() });
    expect(opened.status).toBe(200);
    const joined = await call("POST", `${event}/queue/join/`, {});
    expect(joined.status).toBe(201);
    let status = joined.body;
    for (let i = 0; status.state === "waiting" && i < 60; i++) {
      await new Promise((r) => setTimeout(r, 500));
      status = (await call("GET", `${event}/queue/status/`, undefined, { "X-Queue-Ticket": joined.body.ticket })).body;
    }
    expect(status.state).toBe("admitted");

    const order = JSON.parse(await bash(commands[2]!, { ...vars, ADMISSION: status.admission.token }));
    expect(order).toMatchObject({
      status: "n",
      email: "grace@example.org",
      positions: [expect.objectContaining({ item: 1 })],
    });
    // the on-sale is over: without the queue, orders need no admission again
    expect((await call("DELETE", `${event}/onsale_queues/${queue.id}/`)).status).toBe(204);
    const free = await call("POST", `${event}/orders/`, { email: "x@example.org", positions: [{ item: 1 }] });
    expect(free.status).toBe(201);
  });
});
