/**
 * The operator command and `npm start`, run as a newcomer runs them: a fresh state
 * directory, the server started, an organizer created while it runs, real HTTP requests.
 */
import { createHmac } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { root, runScript, START_TIMEOUT_MS, type Server, startServer } from "./server.ts";

const run = (script: string, args: string[]) => runScript(`src/cli/${script}`, args);

let server: Server | undefined;
let base = "";
let state = "";

beforeAll(async () => {
  server = await startServer("ticketing-operator-");
  ({ base, state } = server);
}, START_TIMEOUT_MS + 10_000);

afterAll(() => server?.stop());

describe("operator command and npm start", () => {
  it("creates an organizer while the server runs; its token works, a wrong one gets 401", async () => {
    const out = await run("admin.ts", [
      "create-organizer",
      "--slug",
      "newcomer",
      "--name",
      "Newcomer's Org",
      "--persist-to",
      state,
    ]);
    expect(out.code, out.stderr).toBe(0);
    // it names the state it used, and the server of that state took the token
    expect(out.stderr).toContain(`Local state: ${state}\n`);
    expect(out.stderr).toContain(`The server of this state (npm start at ${base}) accepts the token.`);
    expect(out.stderr).not.toContain("warning: no server");
    // the server of its state took the token: another local state of the project is no concern then
    expect(out.stderr).not.toContain("warning");
    const lines = out.stdout.trim().split("\n");
    const result = JSON.parse(lines[lines.length - 1]!);
    expect(Object.keys(result)).toEqual(["organizer", "team", "token"]);
    expect(result.organizer).toBe("newcomer");
    expect(typeof result.team).toBe("number");
    expect(result.token).toMatch(/^[a-z0-9]{64}$/);

    const res = await fetch(`${base}/api/v1/organizers/`, { headers: { Authorization: `Token ${result.token}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { results: { slug: string; name: string }[] };
    expect(body.results).toEqual([{ name: "Newcomer's Org", slug: "newcomer", public_url: `${base}/newcomer/` }]);

    const team = await fetch(`${base}/api/v1/organizers/newcomer/teams/${result.team}/`, {
      headers: { Authorization: `Token ${result.token}` },
    });
    const teamBody = (await team.json()) as Record<string, unknown>;
    expect(teamBody).toMatchObject({
      name: "Administrators",
      all_events: true,
      can_change_teams: true,
      can_checkin_orders: true,
    });

    const wrong = await fetch(`${base}/api/v1/organizers/`, { headers: { Authorization: "Token wrong" } });
    expect(wrong.status).toBe(401);
  });

  it("names its state, and warns of another local state in the project and of no server answering: the server on the other state refuses the token", {
    timeout: 600_000,
  }, async () => {
    // a project of its own: the configuration's directory is where the default state lives and what is searched
    const project = mkdtempSync(path.join(tmpdir(), "ticketing-operator-project-"));
    try {
      copyFileSync(path.join(root, "wrangler.toml"), path.join(project, "wrangler.toml"));
      symlinkSync(path.join(root, "migrations"), path.join(project, "migrations"));
      const config = ["--config", path.join(project, "wrangler.toml")];
      // another state of the project: a directory holding a local database, as wrangler lays it out
      const named = path.join(project, "state");
      mkdirSync(path.join(named, "v3", "d1"), { recursive: true });

      const fallback = path.join(project, ".wrangler", "state");
      const out = await run("admin.ts", ["create-organizer", "--slug", "elsewhere", "--name", "Elsewhere", ...config]);
      expect(out.code, out.stderr).toBe(0);
      expect(existsSync(path.join(fallback, "v3", "d1"))).toBe(true);
      expect(out.stderr).toContain(`Local state: ${fallback} (the default, without --persist-to)\n`);
      expect(out.stderr).toContain(
        `warning: another local state exists: ${named}; \`npm start -- --persist-to ${named}\` would not see what this command writes`,
      );
      expect(out.stderr).toContain("warning: no server of this state answers; serve it with `npm start`");
      // what the warning is about: the running server (on its own state) does not know the token
      const { token } = JSON.parse(out.stdout.trim().split("\n").pop()!);
      const refused = await fetch(`${base}/api/v1/organizers/`, { headers: { Authorization: `Token ${token}` } });
      expect(refused.status).toBe(401);

      const mail = await run("admin.ts", ["list-mail", ...config]);
      expect(mail.code, mail.stderr).toBe(0);
      expect(mail.stderr).toContain(`Local state: ${fallback} (the default, without --persist-to)\n`);
      expect(mail.stderr).toContain(`warning: another local state exists: ${named};`);
      expect(mail.stderr).not.toContain("no server");
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  it("npm start -- --help prints the flags and does nothing else", async () => {
    const untouched = path.join(tmpdir(), `ticketing-help-${process.pid}`);
    const out = await run("start.ts", ["--help", "--persist-to", untouched]);
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^usage: npm start \[-- FLAGS\]\n/);
    // wrangler dev's own flags follow
    expect(out.stdout).toContain("wrangler dev's flags:");
    expect(out.stdout).toMatch(/--persist-to\s+Specify directory to use for local persistence/);
    // no migrations, no fonts, no secret written, no state directory created
    expect(out.stderr).not.toMatch(/Database|migrations|fonts|TICKET_SIGNING_KEY_SECRET/);
    expect(existsSync(untouched)).toBe(false);
  });

  it("refuses a duplicate slug with a clear message and a non-zero exit", async () => {
    const out = await run("admin.ts", [
      "create-organizer",
      "--slug",
      "newcomer",
      "--name",
      "Again",
      "--persist-to",
      state,
    ]);
    expect(out.code).not.toBe(0);
    expect(out.stderr).toContain('an organizer with the slug "newcomer" exists already');
    expect(out.stdout).toBe("");
  });

  it("refuses invalid slugs and missing arguments", async () => {
    for (const [args, message] of [
      [["--slug", "Not Valid", "--name", "X"], "invalid slug"],
      [["--slug", "api", "--name", "X"], "reserved"],
      [["--name", "X"], "--slug is required"],
      [["--slug", "fine"], "--name is required"],
    ] as const) {
      const out = await run("admin.ts", ["create-organizer", ...args, "--persist-to", state]);
      expect(out.code, args.join(" ")).not.toBe(0);
      expect(out.stderr).toContain(message);
    }
    const unknown = await run("admin.ts", ["frobnicate"]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown command "frobnicate"');
  });

  it("serves an API description that OpenAPI tools accept, and its reference page", async () => {
    const res = await fetch(`${base}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe("3.1.0");
    // the official OpenAPI 3.1 JSON Schema, as independent tools check it
    const result = await new Validator().validate(structuredClone(doc));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    const broken = await new Validator().validate({
      ...structuredClone(doc),
      paths: { "/x": { get: { responses: { 200: { content: {} } } } } },
    });
    expect(broken.valid).toBe(false);

    const page = await fetch(`${base}/api/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain("/api/v1/openapi.json");
  });

  it("shows the mail outbox", async () => {
    const out = await run("admin.ts", [
      "create-organizer",
      "--slug",
      "mailer",
      "--name",
      "Mailer",
      "--persist-to",
      state,
    ]);
    expect(out.code, out.stderr).toBe(0);
    const { token, team } = JSON.parse(out.stdout.trim().split("\n").pop()!);
    const invite = await fetch(`${base}/api/v1/organizers/mailer/teams/${team}/invites/`, {
      method: "POST",
      headers: { Authorization: `Token ${token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ email: "colleague@example.org" }),
    });
    expect(invite.status).toBe(201);
    const mail = await run("admin.ts", ["list-mail", "--persist-to", state]);
    expect(mail.code, mail.stderr).toBe(0);
    expect(mail.stdout).toContain("team_invite to colleague@example.org");
    expect(mail.stdout).toContain(`${base}/invite/`);
  });

  it("npm start lets a webhook call a receiver on the loopback interface over http: it gets the signed notification of a new order", async () => {
    const out = await run("admin.ts", [
      "create-organizer",
      "--slug",
      "hooked",
      "--name",
      "Hooked",
      "--persist-to",
      state,
    ]);
    expect(out.code, out.stderr).toBe(0);
    const { token } = JSON.parse(out.stdout.trim().split("\n").pop()!);
    const api = (p: string, body: unknown) =>
      fetch(`${base}/api/v1/organizers/hooked/${p}`, {
        method: "POST",
        headers: { Authorization: `Token ${token}`, "Content-Type": "application/json" },
        body: JSON.stringify(body),
      });

    const received: { body: string; headers: IncomingHttpHeaders }[] = [];
    const receiver = createServer((req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        received.push({ body, headers: req.headers });
        res.writeHead(200).end("thanks");
      });
    });
    const port = await new Promise<number>((resolve) =>
      receiver.listen(0, "127.0.0.1", () => resolve((receiver.address() as net.AddressInfo).port)),
    );
    try {
      expect(
        (await api("webhooks/", { target_url: "https://10.0.0.1/hook", action_types: ["pretix.event.order.placed"] }))
          .status,
      ).toBe(400);
      const hook = await api("webhooks/", {
        target_url: `http://127.0.0.1:${port}/hook`,
        action_types: ["pretix.event.order.placed"],
      });
      expect(hook.status).toBe(201);
      const { secret } = (await hook.json()) as { secret: string };
      expect(
        (
          await api("events/", {
            name: { en: "Local" },
            slug: "local",
            currency: "EUR",
            date_from: "2030-06-01T19:00:00Z",
          })
        ).status,
      ).toBe(201);
      const item = (await (
        await api("events/local/items/", { name: { en: "Ticket" }, default_price: "0.00", admission: true })
      ).json()) as { id: number };
      expect((await api("events/local/quotas/", { name: "Tickets", size: 10, items: [item.id] })).status).toBe(201);
      const order = await api("events/local/orders/", { positions: [{ item: item.id }] });
      expect(order.status).toBe(201);
      const { code } = (await order.json()) as { code: string };

      for (let i = 0; i < 120 && received.length === 0; i++) await new Promise((r) => setTimeout(r, 500));
      expect(received).toHaveLength(1);
      const [got] = received;
      expect(JSON.parse(got!.body)).toEqual({
        notification_id: expect.any(Number),
        organizer: "hooked",
        event: "local",
        code,
        action: "pretix.event.order.placed",
      });
      const signature = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(got!.headers["x-webhook-signature"]));
      expect(signature).not.toBeNull();
      expect(signature![2]).toBe(createHmac("sha256", secret).update(`${signature![1]}.${got!.body}`).digest("hex"));
    } finally {
      receiver.close();
    }
  });
});
