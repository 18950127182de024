/**
 * Fields a route does not know are ignored, as pretix ignores them, but named: the answer's
 * `X-Ignored-Fields` header lists them (nested ones as a path, `positions[0].admision`) and a
 * log line says the same (docs/requests.md). A body without unknown fields gets no header.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Client, type Json, seedEventRow, seedOrganizer, unique } from "../harness";

const HEADER = "X-Ignored-Fields";

async function world(): Promise<{ client: Client; ev: string }> {
  const org = await seedOrganizer();
  const event = await seedEventRow(org.id);
  return { client: org.client, ev: `/api/v1/organizers/${org.slug}/events/${event.slug}` };
}

async function saleableItem(client: Client, ev: string): Promise<Json> {
  const item = await client.post(`${ev}/items/`, { name: { en: unique("Ticket ") }, default_price: "10.00" });
  expect(item.status).toBe(201);
  expect((await client.post(`${ev}/quotas/`, { name: "Q", size: 10, items: [item.body.id] })).status).toBe(201);
  return item.body;
}

/**
 * The lines the service logs during `fn`, but those of the queue consumer and cron runs (named
 * by their `queue` or `cron` field): they run in the background of the isolate the project's
 * test files share, for the other files' messages too.
 */
async function logged(fn: () => Promise<void>): Promise<Record<string, unknown>[]> {
  const lines: Record<string, unknown>[] = [];
  const background = (line: unknown) =>
    typeof line === "object" && line !== null && ("queue" in line || "cron" in line);
  for (const method of ["log", "info", "warn", "error"] as const)
    vi.spyOn(console, method).mockImplementation((line: unknown) => {
      if (!background(line)) lines.push(line as Record<string, unknown>);
    });
  try {
    await fn();
  } finally {
    vi.restoreAllMocks();
  }
  return lines;
}

afterEach(() => vi.restoreAllMocks());

describe("X-Ignored-Fields", () => {
  it("a flat body: a variation's `price` (the field is `default_price`) is named, and changes nothing", async () => {
    const { client, ev } = await world();
    const item = await client.post(`${ev}/items/`, {
      name: { en: "Shirt" },
      default_price: "10.00",
      variations: [{ value: { en: "S" } }],
    });
    expect(item.status).toBe(201);
    let res: Json;
    const lines = await logged(async () => {
      res = await client.post(`${ev}/items/${item.body.id}/variations/`, { value: { en: "M" }, price: "22.00" });
    });
    expect(res.status).toBe(201);
    expect(res.headers.get(HEADER)).toBe("price");
    expect(res.body.default_price).toBeNull();
    expect(res.body.price).toBe("10.00");
    expect(lines.find((l) => l.message === "ignored fields")).toMatchObject({
      level: "info",
      message: "ignored fields",
      ignored_fields: ["price"],
      ignored_count: 1,
      request_id: res.headers.get("X-Request-Id"),
      method: "POST",
      route: "/api/v1/organizers/:organizer/events/:event/items/:item/variations",
    });
  });

  it("an item's `admision` and its variations' unknown fields, in the order of the body", async () => {
    const { client, ev } = await world();
    const res = await client.post(`${ev}/items/`, {
      name: { en: "Ticket" },
      default_price: "10.00",
      admision: true,
      variations: [{ value: { en: "S" } }, { value: { en: "M" }, price: "12.00", value_en: "M" }],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get(HEADER)).toBe("admision, variations[1].price, variations[1].value_en");
    expect(res.body.admission).toBe(false);
    expect(res.body.variations.map((v: Json) => v.default_price)).toEqual([null, null]);
  });

  it("an order's positions and their answers, nested as paths", async () => {
    const { client, ev } = await world();
    const item = await saleableItem(client, ev);
    const question = await client.post(`${ev}/questions/`, { question: { en: "Diet?" }, type: "T", items: [item.id] });
    expect(question.status).toBe(201);
    const res = await client.post(`${ev}/orders/`, {
      email: "buyer@example.org",
      payment_provider: "manual",
      comment_internal: "x",
      positions: [
        { item: item.id },
        { item: item.id, admision: false, answers: [{ question: question.body.id, answer: "vegan", anwser: "x" }] },
      ],
    });
    expect(res.status).toBe(201);
    expect(res.headers.get(HEADER)).toBe("comment_internal, positions[1].admision, positions[1].answers[0].anwser");
    expect(res.body.positions[1].answers[0].answer).toBe("vegan");
  });

  it("a list body: the entry's index leads the path", async () => {
    const { client, ev } = await world();
    const res = await client.post(`${ev}/vouchers/batch_create/`, [
      { code: unique("A") },
      { code: unique("B"), cde: "x" },
    ]);
    expect(res.status).toBe(201);
    expect(res.headers.get(HEADER)).toBe("[1].cde");
  });

  it("a refused body names them too; an odd name is percent-encoded", async () => {
    const { client, ev } = await world();
    const res = await client.post(`${ev}/items/`, { default_price: "10.00", "nä me": 1, "a.b": 2 });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name: ["This field is required."] });
    expect(res.headers.get(HEADER)).toBe("n%C3%A4%20me, a%2Eb");
  });

  it("a body without unknown fields: no header, no log line but the access line", async () => {
    const { client, ev } = await world();
    let res: Json;
    const lines = await logged(async () => {
      res = await client.post(`${ev}/items/`, {
        name: { en: "Ticket" },
        default_price: "10.00",
        variations: [{ value: { en: "S" }, default_price: "12.00" }],
      });
    });
    expect(res.status).toBe(201);
    expect(res.headers.has(HEADER)).toBe(false);
    expect(lines.map((l) => l.message)).toEqual(["request"]);
    // an empty body neither
    const category = await client.post(`${ev}/categories/`, { name: { en: "Extras" } });
    expect(category.status).toBe(201);
    expect(category.headers.has(HEADER)).toBe(false);
    const empty = await client.request("PATCH", `${ev}/categories/${category.body.id}/`, undefined, {
      raw: "",
      headers: { "Content-Type": "application/json" },
    });
    expect(empty.status).toBe(200);
    expect(empty.headers.has(HEADER)).toBe(false);
  });

  it("a replay of an idempotent request names them as the first answer did", async () => {
    const { client, ev } = await world();
    const key = { headers: { "X-Idempotency-Key": unique("k") } };
    const first = await client.request("POST", `${ev}/categories/`, { name: { en: "A" }, nmae: "B" }, key);
    const replay = await client.request("POST", `${ev}/categories/`, { name: { en: "A" }, nmae: "B" }, key);
    expect(first.status).toBe(201);
    expect(replay.body).toEqual(first.body);
    expect(first.headers.get(HEADER)).toBe("nmae");
    expect(replay.headers.get(HEADER)).toBe("nmae");
  });

  it("the API sends no CORS headers (were it to, it must expose X-Ignored-Fields to browsers)", async () => {
    const { client, ev } = await world();
    const res = await client.request(
      "POST",
      `${ev}/categories/`,
      { name: { en: "A" }, nmae: "B" },
      { headers: { Origin: "https://shop.example.org" } },
    );
    expect(res.headers.get(HEADER)).toBe("nmae");
    expect(res.headers.get("Access-Control-Allow-Origin")).toBeNull();
    expect(res.headers.get("Access-Control-Expose-Headers")).toBeNull();
  });
});
