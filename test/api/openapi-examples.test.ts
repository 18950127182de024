/**
 * The example request bodies of the API description (src/http/openapi-examples.ts), which the
 * interactive reference's curl and "try it" send: each is sent as is to a fresh organizer and
 * event and is accepted or refused exactly as the description documents (the harness holds every
 * answer to it, test/helpers/contract.ts); none forces, tests or overrides anything; the
 * reference's curl sends `Authorization: Token …`.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { anonymous, type Client, type Json, seedDevice, seedEventRow, seedOrganizer } from "../harness";
import { openApiDocument } from "../helpers/contract";

type Example = { method: string; path: string; security: Json[]; body: unknown };

async function examples(): Promise<Example[]> {
  const doc = await openApiDocument();
  const out: Example[] = [];
  for (const [path, item] of Object.entries<Json>(doc.paths))
    for (const [method, op] of Object.entries<Json>(item)) {
      const json = op.requestBody?.content?.["application/json"];
      if (json) out.push({ method: method.toUpperCase(), path, security: op.security, body: json.example });
    }
  return out;
}

/** Every `true` in a value, by its path. */
function truths(v: unknown, at = ""): string[] {
  if (v === true) return [at];
  if (v && typeof v === "object") return Object.entries(v).flatMap(([k, x]) => truths(x, `${at}/${k}`));
  return [];
}

let world: { token: Client; device: Client; params: Record<string, string> };

beforeAll(async () => {
  const org = await seedOrganizer();
  const ev = await seedEventRow(org.id);
  const device = await seedDevice(org.id);
  world = { token: org.client, device: device.client, params: { organizer: org.slug, event: ev.slug } };
});

describe("the example request bodies of the API description", () => {
  it("every JSON body has one; none sends true, a code, testmode, force or ignore_unpaid", async () => {
    const all = await examples();
    expect(all.length).toBeGreaterThan(90);
    expect(all.filter((e) => e.body === undefined)).toEqual([]);
    expect(all.flatMap((e) => truths(e.body).map((t) => `${e.method} ${e.path} ${t}`))).toEqual([]);
    const find = (method: string, path: string) => all.find((e) => e.method === method && e.path === path)!.body;
    const redeem = find("POST", "/api/v1/organizers/{organizer}/checkinrpc/redeem/") as Json;
    expect(redeem).toEqual({ secret: "example", lists: [] });
    const order = find("POST", "/api/v1/organizers/{organizer}/events/{event}/orders/") as Json;
    expect(order).toEqual({ positions: [{ item: 1 }] });
    expect(find("POST", "/api/v1/organizers/{organizer}/events/")).toEqual({
      name: "example",
      slug: "example",
      date_from: "2030-06-01T18:00:00Z",
    });
  });

  it("each, sent as is to a fresh organizer and event, is answered as documented and never with a 5xx", async () => {
    const answered: string[] = [];
    for (const e of await examples()) {
      const url = e.path.replace(/\{(\w+)\}/g, (_, name: string) => world.params[name] ?? "1");
      const client = e.security.length === 0 ? anonymous : "Token" in e.security[0] ? world.token : world.device;
      // the harness's client fails on an answer the description does not document
      const res = await client.request(e.method, url, e.body);
      expect(res.status, `${e.method} ${url}: ${res.text}`).toBeLessThan(500);
      answered.push(`${res.status} ${e.method} ${e.path}`);
    }
    // accepted where the example needs nothing that a fresh event lacks
    expect(answered).toContain("201 POST /api/v1/organizers/{organizer}/events/");
    expect(answered).toContain("201 POST /api/v1/organizers/{organizer}/teams/");
    expect(answered).toContain("200 PATCH /api/v1/organizers/{organizer}/events/{event}/settings/");
    // refused where it names what does not exist (the redeem's lists, a team's id) or the event
    // forbids it (the example queue created above gates the sale): no order, no check-in
    expect(answered).toContain("400 POST /api/v1/organizers/{organizer}/checkinrpc/redeem/");
    expect(answered).toContain("404 PUT /api/v1/organizers/{organizer}/teams/{team}/");
    expect(answered).toContain("403 POST /api/v1/organizers/{organizer}/events/{event}/orders/");
  });
});

describe("the reference's curl", () => {
  it("sends the Token scheme: the reference prefills `Token YOUR_SECRET_TOKEN` for the Token security scheme", async () => {
    const page = await anonymous.get("/api/docs", { contract: false });
    const config = JSON.parse(
      page.text
        .match(/data-configuration="([^"]+)"/)![1]!
        .replace(/&quot;/g, '"')
        .replace(/&amp;/g, "&"),
    );
    expect(config.authentication).toEqual({
      preferredSecurityScheme: "Token",
      securitySchemes: { Token: { value: "Token YOUR_SECRET_TOKEN" }, Device: { value: "Device YOUR_DEVICE_TOKEN" } },
    });
  });
});
