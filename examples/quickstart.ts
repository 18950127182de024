/**
 * The README's first sale, run against a server: an event, a product, a quota, on sale, an order,
 * paid, its ticket PDF, a check-in list, a scanning device, a scan and a second scan. It prints
 * each step as the command a person types and the answer (the README's block is this transcript;
 * test/node/quickstart.test.ts holds the README to it). `--help` says how to run it; the event's
 * slug is `democon`, or the first free one of `democon-2`, `democon-3`, ... when an earlier run
 * took it (`--event` names one). Exit code 1 when an answer is not the expected one.
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
/** The fields an answer shows: `true` the whole value, a nested pick for objects (and for each object of a list). */
type Pick = { [key: string]: true | Pick };

type Step = {
  note: string;
  method: "GET" | "POST" | "PATCH";
  /** Under $API; `$NAME` is a variable set by an earlier step. */
  path: string;
  auth: "token" | "device" | "none";
  /** The JSON body as typed, `$NAME` expanded by the shell. */
  body?: string;
  status: number;
  show: Pick;
  /** Variables set from the answer: where each is, as keys and list indexes. */
  take?: Record<string, (string | number)[]>;
  /** A file download: the body is saved, not shown. */
  file?: { name: string; type: string };
};

const ORG = "/organizers/$ORGANIZER";
const EVENT = `${ORG}/events/$EVENT`;

/** The steps; `$ORGANIZER` and `$EVENT` are the slugs chosen, written out in what is printed. */
const STEPS: Step[] = [
  {
    note: "an event, not on sale yet; manual payment (the organizer confirms payments) as its payment method",
    method: "POST",
    path: `${ORG}/events/`,
    auth: "token",
    body: '{"name": {"en": "Demo Conference"}, "slug": "$EVENT", "currency": "EUR", "date_from": "2030-06-01T09:00:00Z", "plugins": ["pretix.plugins.manualpayment"]}',
    status: 201,
    show: { slug: true, live: true, currency: true, date_from: true },
  },
  {
    note: "a product",
    method: "POST",
    path: `${EVENT}/items/`,
    auth: "token",
    body: '{"name": {"en": "Conference ticket"}, "default_price": "25.00", "admission": true}',
    status: 201,
    show: { id: true, name: true, default_price: true, admission: true },
    take: { ITEM: ["id"] },
  },
  {
    note: "a quota: how many of it can be sold",
    method: "POST",
    path: `${EVENT}/quotas/`,
    auth: "token",
    body: '{"name": "Tickets", "size": 100, "items": [$ITEM]}',
    status: 201,
    show: { id: true, name: true, size: true, items: true },
  },
  {
    note: "on sale",
    method: "PATCH",
    path: `${EVENT}/`,
    auth: "token",
    body: '{"live": true}',
    status: 200,
    show: { slug: true, live: true },
  },
  {
    note: "an order: pending until paid",
    method: "POST",
    path: `${EVENT}/orders/`,
    auth: "token",
    body: '{"email": "ada@example.org", "positions": [{"item": $ITEM, "attendee_name": "Ada Lovelace"}]}',
    status: 201,
    show: { code: true, status: true, total: true, positions: { id: true, attendee_name: true, secret: true } },
    take: { CODE: ["code"], SECRET: ["positions", 0, "secret"] },
  },
  {
    note: "paid",
    method: "POST",
    path: `${EVENT}/orders/$CODE/mark_paid/`,
    auth: "token",
    status: 200,
    show: { code: true, status: true, total: true },
  },
  {
    note: "the ticket PDF: rendered on the documents queue, 409 with Retry-After until it is ready",
    method: "GET",
    path: `${EVENT}/orders/$CODE/download/pdf/`,
    auth: "token",
    status: 200,
    show: {},
    file: { name: "ticket.pdf", type: "application/pdf" },
  },
  {
    note: "a check-in list: which tickets the entrance admits",
    method: "POST",
    path: `${EVENT}/checkinlists/`,
    auth: "token",
    body: '{"name": "Main entrance", "all_products": true}',
    status: 201,
    show: { id: true, name: true, all_products: true, position_count: true },
    take: { LIST: ["id"] },
  },
  {
    note: "a scanning device, and its one-time initialization token",
    method: "POST",
    path: `${ORG}/devices/`,
    auth: "token",
    body: '{"name": "Gate 1", "all_events": true}',
    status: 201,
    show: { device_id: true, name: true, initialization_token: true },
    take: { INIT: ["initialization_token"] },
  },
  {
    note: "the device initializes itself (no credentials) and gets its own API token",
    method: "POST",
    path: "/device/initialize",
    auth: "none",
    body: '{"token": "$INIT", "hardware_brand": "Demo", "hardware_model": "Scanner", "software_brand": "curl", "software_version": "8"}',
    status: 200,
    show: { organizer: true, device_id: true, api_token: true },
    take: { DEVICE: ["api_token"] },
  },
  {
    note: "the scan at the entrance",
    method: "POST",
    path: `${ORG}/checkinrpc/redeem/`,
    auth: "device",
    body: '{"secret": "$SECRET", "lists": [$LIST]}',
    status: 201,
    show: { status: true, position: { order: true, attendee_name: true }, list: { id: true, name: true } },
  },
  {
    note: "the same ticket again",
    method: "POST",
    path: `${ORG}/checkinrpc/redeem/`,
    auth: "device",
    body: '{"secret": "$SECRET", "lists": [$LIST]}',
    status: 400,
    show: { status: true, reason: true },
  },
];

class Unexpected extends Error {}

/** JSON on one line, spaced for reading, with only the picked fields (`…` for the others). */
function shown(value: Json, pick: true | Pick): string {
  if (Array.isArray(value)) return `[${value.map((v) => shown(v, pick)).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    if (pick === true) {
      return `{${Object.entries(value)
        .map(([k, v]) => `${JSON.stringify(k)}: ${shown(v, true)}`)
        .join(", ")}}`;
    }
    const parts = Object.entries(pick)
      .filter(([k]) => k in value)
      .map(([k, p]) => `${JSON.stringify(k)}: ${shown(value[k]!, p)}`);
    if (Object.keys(value).some((k) => !(k in pick))) parts.push("…");
    return `{${parts.join(", ")}}`;
  }
  return JSON.stringify(value);
}

/** The value at `where` in an answer (a string or a number), or an Unexpected failure. */
function at(answer: Json, where: (string | number)[]): string {
  let value: Json | undefined = answer;
  for (const key of where) {
    value =
      Array.isArray(value) && typeof key === "number"
        ? value[key]
        : value !== null && typeof value === "object" && !Array.isArray(value) && typeof key === "string"
          ? value[key]
          : undefined;
  }
  if (typeof value !== "string" && typeof value !== "number") {
    throw new Unexpected(`the answer has no ${where.join(".")}: ${JSON.stringify(answer)}`);
  }
  return String(value);
}

function expand(text: string, vars: Map<string, string>): string {
  return text.replace(/\$([A-Z]+)/g, (whole, name: string) => vars.get(name) ?? whole);
}

/** The command as typed: curl with the shell's variables; a body with variables in a here-document. */
function command(step: Step): string[] {
  const auth =
    step.auth === "token" ? ' -H "$AUTH"' : step.auth === "device" ? ' -H "Authorization: Device $DEVICE"' : "";
  const method = step.method === "GET" ? "" : ` -X ${step.method}`;
  const output = step.file ? ` -o ${step.file.name}` : "";
  const head = `curl -s${method}${output} "$API${step.path}"${auth}`;
  if (step.body === undefined) return [head];
  if (step.body.includes("$")) return [`${head} -H "$JSON" -d @- <<EOF`, step.body, "EOF"];
  return [`${head} -H "$JSON" \\`, `  -d '${step.body}'`];
}

function print(lines: string[]): void {
  process.stdout.write(`${lines.join("\n")}\n`);
}

function printCommand(lines: string[]): void {
  print(lines.map((line, i) => (i === 0 ? `$ ${line}` : `> ${line}`)));
}

const USAGE = `usage: npm run --silent quickstart -- --token TOKEN [--organizer SLUG] [--event SLUG] [--api URL] [--out DIR]

Runs the README's first sale against a running server (npm start) and prints it as commands and
answers. TOKEN: what \`npm run --silent admin -- create-organizer --slug demo --name "Demo Events"\`
printed (run again on the same state, that command refuses the taken slug: use the token it
gave the first time, or create another organizer and name it with --organizer).
  --organizer SLUG  the organizer (default: the one the token belongs to)
  --event SLUG      the new event's slug (default: democon, or the first free democon-N)
  --api URL         the API (default http://127.0.0.1:8787/api/v1)
  --out DIR         where ticket.pdf is written (default: the current directory)`;

/** The JSON of a GET (for the choices before the first step). */
async function getJson(url: string, token: string): Promise<unknown> {
  const res = await fetch(url, { headers: { Authorization: `Token ${token}` } });
  const text = await res.text();
  if (res.status !== 200) throw new Unexpected(`GET ${url} answered ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** The organizer: the one named, else the only one the token sees. */
async function organizerOf(api: string, token: string, named: string | undefined): Promise<string> {
  if (named) return named;
  const page = (await getJson(`${api}/organizers/`, token)) as { results: { slug: string }[] };
  const slugs = page.results.map((o) => o.slug);
  if (slugs.length !== 1) throw new Unexpected(`the token sees ${slugs.length} organizers: name one with --organizer`);
  return slugs[0]!;
}

/** The event's slug: the one named (refused when taken), else democon or the first free democon-N. */
async function eventOf(api: string, token: string, organizer: string, named: string | undefined): Promise<string> {
  // the organizer's events, every page (an event the token cannot see answers 403, like one that does not exist)
  const existing = new Set<string>();
  for (let url: string | null = `${api}/organizers/${organizer}/events/`; url !== null; ) {
    const page = (await getJson(url, token)) as { next: string | null; results: { slug: string }[] };
    for (const e of page.results) existing.add(e.slug);
    url = page.next;
  }
  const taken = (slug: string) => existing.has(slug);
  if (named) {
    if (taken(named)) throw new Unexpected(`the event ${named} exists already: choose another --event`);
    return named;
  }
  for (let n = 1; n < 100; n++) {
    const slug = n === 1 ? "democon" : `democon-${n}`;
    if (!taken(slug)) {
      if (n > 1) process.stderr.write(`the event democon exists already (an earlier run): this run uses ${slug}\n`);
      return slug;
    }
  }
  throw new Unexpected("democon to democon-99 are all taken: choose an event slug with --event");
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      token: { type: "string" },
      organizer: { type: "string" },
      event: { type: "string" },
      api: { type: "string", default: "http://127.0.0.1:8787/api/v1" },
      out: { type: "string", default: process.env.INIT_CWD ?? process.cwd() },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    print([USAGE]);
    return;
  }
  if (!values.token) throw new Unexpected(`no --token\n${USAGE}`);
  const api = values.api.replace(/\/+$/, "");
  const organizer = await organizerOf(api, values.token, values.organizer);
  const event = await eventOf(api, values.token, organizer, values.event);
  const slugs = (text: string) => text.replaceAll("$ORGANIZER", organizer).replaceAll("$EVENT", event);
  const steps = STEPS.map((step) => ({ ...step, path: slugs(step.path), body: step.body && slugs(step.body) }));
  const vars = new Map<string, string>([["TOKEN", values.token]]);
  print([
    `$ TOKEN=${values.token}`,
    `$ API=${api} AUTH="Authorization: Token $TOKEN" JSON="Content-Type: application/json"`,
  ]);

  for (const step of steps) await runStep(step, api, vars, values.out);
}

/** One step: its command printed, the request sent, the answer checked and printed, its variables taken. */
async function runStep(step: Step, api: string, vars: Map<string, string>, out: string): Promise<void> {
  print(["", `# ${step.note}`]);
  printCommand(command(step));
  const send = () =>
    fetch(`${api}${expand(step.path, vars)}`, {
      method: step.method,
      headers: {
        ...(step.auth === "token" ? { Authorization: `Token ${vars.get("TOKEN")}` } : {}),
        ...(step.auth === "device" ? { Authorization: `Device ${vars.get("DEVICE")}` } : {}),
        ...(step.body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: step.body === undefined ? undefined : JSON.stringify(JSON.parse(expand(step.body, vars))),
    });
  let res = await send();

  if (step.file) {
    // a file still being prepared: 409 with Retry-After; shown once, then asked again until it is there
    if (res.status === 409 && res.headers.has("retry-after")) {
      const seconds = Number(res.headers.get("retry-after"));
      print([`${res.status} ${shown((await res.json()) as Json, true)}`]);
      printCommand([`sleep ${seconds}`]);
      printCommand(command(step));
      for (let attempt = 0; res.status === 409 && attempt < 60; attempt++) {
        await new Promise((r) => setTimeout(r, seconds * 1000));
        res = await send();
      }
    }
    const bytes = new Uint8Array(await res.arrayBuffer());
    const type = res.headers.get("content-type") ?? "";
    if (res.status !== step.status || type !== step.file.type) {
      throw new Unexpected(
        `expected ${step.status} ${step.file.type}, got ${res.status} ${type}: ${new TextDecoder().decode(bytes.slice(0, 500))}`,
      );
    }
    const file = path.join(out, step.file.name);
    writeFileSync(file, bytes);
    print([`${res.status} ${type}, saved as ${step.file.name}: ${new TextDecoder().decode(bytes.slice(0, 8))}…`]);
    process.stderr.write(`${step.file.name} written to ${file}\n`);
    return;
  }

  const text = await res.text();
  let answer: Json;
  try {
    answer = JSON.parse(text) as Json;
  } catch {
    throw new Unexpected(`expected ${step.status} with JSON, got ${res.status}: ${text.slice(0, 500)}`);
  }
  if (res.status !== step.status) {
    throw new Unexpected(`expected ${step.status}, got ${res.status}: ${text}`);
  }
  print([`${res.status} ${shown(answer, step.show)}`]);
  if (step.take) {
    const taken = Object.entries(step.take).map(([name, where]) => {
      const value = at(answer, where);
      vars.set(name, value);
      return `${name}=${value}`;
    });
    print([`$ ${taken.join(" ")}`]);
  }
}

try {
  await main();
} catch (e) {
  process.stderr.write(`quickstart: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(1);
}
