/**
 * The shop the browser tests use, built through the API as an integrator builds it (with the
 * token of the operator command), and the mails the service wrote, read with the operator
 * command `list-mail` as a local operator reads them.
 */
import { runNode, type Service } from "../bench/server.ts";

export type Json = any;

export type Api = {
  call(method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }>;
  /** A call that must answer `status` (200 for reads and changes, 201 for creation). */
  ok(method: string, path: string, body?: unknown, status?: number): Promise<Json>;
};

export function api(service: Service): Api {
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.base}${path}`, {
      method,
      headers: {
        Authorization: `Token ${service.token}`,
        ...(body === undefined ? {} : { "Content-Type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  return {
    call,
    async ok(method, path, body, status = method === "POST" ? 201 : 200) {
      const res = await call(method, path, body);
      if (res.status !== status)
        throw new Error(`${method} ${path}: expected ${status}, got ${res.status}: ${JSON.stringify(res.body)}`);
      return res.body;
    },
  };
}

export type Shop = {
  api: Api;
  org: string;
  orgName: string;
  event: string;
  eventName: string;
  /** `/api/v1/organizers/{org}/events/{event}` */
  path: string;
  pass: Json;
  freeEntry: Json;
  /** The base URL that `return_url`s must lie below. */
  returnBase: string;
  order(body: Record<string, unknown>): Promise<Json>;
  readOrder(code: string): Promise<Json>;
  giftCard(value: string): Promise<Json>;
};

/**
 * A live, public event with a 20.00 EUR festival pass and a free entry on one quota; manual
 * payment and the redirection plugin enabled, with `returnurl_prefix` the integrator's site;
 * ticket downloads offered on the order page (`ticket_download`).
 */
export async function buildShop(service: Service, returnBase: string): Promise<Shop> {
  const a = api(service);
  const org = service.organizer;
  const orgPath = `/api/v1/organizers/${org}`;
  await a.ok("PATCH", `${orgPath}/settings/`, {
    contact_mail: "hello@festival.example.org",
    imprint_url: "https://festival.example.org/imprint",
    organizer_info_text: { en: "Open-air concerts by the lake, every summer since 1998." },
  });
  const orgName = (await a.ok("GET", `${orgPath}/`)).name as string;
  const event = "summer-2030";
  const eventName = "Summer Festival 2030";
  await a.ok("POST", `${orgPath}/events/`, {
    name: { en: eventName },
    slug: event,
    currency: "EUR",
    date_from: "2030-07-12T16:00:00Z",
    date_to: "2030-07-14T22:00:00Z",
    location: { en: "Lakeside Park, North Shore" },
    timezone: "Europe/Berlin",
  });
  const path = `${orgPath}/events/${event}`;
  const pass = await a.ok("POST", `${path}/items/`, {
    name: { en: "Festival pass" },
    description: { en: "All three days, all stages." },
    default_price: "20.00",
    admission: true,
  });
  const freeEntry = await a.ok("POST", `${path}/items/`, {
    name: { en: "Children's entry" },
    default_price: "0.00",
    admission: true,
  });
  await a.ok("POST", `${path}/quotas/`, { name: "Festival", size: 500, items: [pass.id, freeEntry.id] });
  await a.ok("PATCH", `${path}/`, {
    live: true,
    plugins: ["pretix.plugins.manualpayment", "pretix.plugins.returnurl"],
  });
  // customers see ticket download links on their order page (off by default, as in pretix)
  await a.ok("PATCH", `${path}/settings/`, { returnurl_prefix: returnBase, ticket_download: true });

  return {
    api: a,
    org,
    orgName,
    event,
    eventName,
    path,
    pass,
    freeEntry,
    returnBase,
    order: (body) =>
      a.ok("POST", `${path}/orders/`, { email: "buyer@example.org", positions: [{ item: pass.id }], ...body }),
    readOrder: (code) => a.ok("GET", `${path}/orders/${code}/`),
    async giftCard(value) {
      const secret = `GIFT-${Math.random().toString(36).slice(2, 10).toUpperCase()}`;
      return a.ok("POST", `${orgPath}/giftcards/`, { secret, currency: "EUR", value });
    },
  };
}

/**
 * The link of the newest mail to `address` that matches `link` (`npm run admin -- list-mail`):
 * locally, mails are kept in the outbox, and that command is where an operator reads them.
 */
export async function linkFromMail(service: Service, address: string, link: RegExp): Promise<string> {
  const out = await runNode("src/cli/admin.ts", ["list-mail", "--persist-to", service.stateDir, "--limit", "50"]);
  if (out.code !== 0) throw new Error(`list-mail failed:\n${out.stderr}`);
  // newest first; each mail starts with "#id [state] time kind to address"
  for (const mail of out.stdout.split(/^-{60}$/m)) {
    const head = mail.trim().split("\n")[0] ?? "";
    if (!head.endsWith(` to ${address}`)) continue;
    const found = link.exec(mail);
    if (found) return found[0];
  }
  throw new Error(`no mail to ${address} with a link like ${link}:\n${out.stdout}`);
}
