/**
 * Bad input never reaches a 500 (issue 12, item 1). Every operation of the API description
 * (GET /api/v1/openapi.json: paths, methods, path and query parameters, request body schemas;
 * a route added later is fuzzed too) gets malformed requests generated with fast-check: real
 * path ids (so that the body is looked at) and malformed ones, declared query parameters with
 * wrong values, bodies of the declared shape with one location mutated, free-form junk, and raw
 * bodies (duplicate keys, 10,000 levels of nesting, invalid JSON, wrong Content-Type).
 *
 * Asserted for every request: the status is below 500; a refused request (4xx) stored nothing
 * (the row count and largest rowid of every table are unchanged, and so is the event object's
 * availability of the event's quota).
 *
 * Runs with a fixed seed and a bounded count in `npm test`; `FUZZ_RUNS` (cases per operation),
 * `FUZZ_SEED` and `FUZZ_ONLY` (operations whose "METHOD path" contains it) ask for more or other
 * cases (docs/testing.md, "Fuzz test"). A failure prints the seed, the request and the answer.
 */
import { dereference, type Schema } from "@cfworker/json-schema";
import fc from "fast-check";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { BASE, type Client, type Json, seedDevice, seedOrganizer, unique } from "../harness";
import { openApiDocument } from "../helpers/contract";
import {
  changedTables,
  fingerprint,
  type Known,
  MALFORMED_IDS,
  mutated,
  type Operation,
  operations,
  queryValue,
  type RawBody,
  rawBodies,
  serialize,
  shaped,
  junkValue,
  validBySchema,
} from "../helpers/fuzz";
import {
  acceptance,
  addonCategory,
  categoryBody,
  checkinListBody,
  create,
  customer,
  discountBody,
  eventBody,
  giftCardBody,
  item,
  membershipBody,
  membershipTypeBody,
  metaPropertyBody,
  optionBody,
  otherOrganizer,
  paidOrder,
  pendingOrder,
  questionBody,
  quotaBody,
  saleableItem,
  seatingPlanBody,
  sendmailRuleBody,
  taxRuleBody,
  ticketLayoutBody,
  voucherBody,
  type SetupWorld,
} from "../permissions/fixtures";

const RUNS = Number(inject("fuzzRuns") || 6);
const SEED = Number(inject("fuzzSeed") || 20261124);
const ONLY = String(inject("fuzzOnly") || "");

type World = {
  client: Client;
  device: Client;
  org: string;
  orgId: number;
  orgSlug: string;
  eventSlug: string;
  /** Real values of path parameters: by name, and `id` by the path segment before it. */
  params: Record<string, string>;
  ids: Record<string, string>;
  quotaAvailability: string;
  known: Known;
};

async function buildWorld(): Promise<World> {
  const org = await seedOrganizer();
  const orgPath = `/api/v1/organizers/${org.slug}`;
  const ev = await create(
    { admin: org.client, orgId: org.id, orgSlug: org.slug, eventSlug: "", org: orgPath, ev: "" },
    `${orgPath}/events`,
    eventBody(),
  );
  const w: SetupWorld = {
    admin: org.client,
    orgId: org.id,
    orgSlug: org.slug,
    eventSlug: ev.slug,
    org: orgPath,
    ev: `${orgPath}/events/${ev.slug}`,
  };
  const it = await saleableItem(w);
  const withVariation = await item(w, { variations: [{ value: { en: "Small" } }, { value: { en: "Large" } }] });
  const variation = withVariation.variations[0];
  const addon = await create(w, `${w.ev}/items/${it.id}/addons`, { addon_category: (await addonCategory(w)).id });
  const bundle = await create(w, `${w.ev}/items/${it.id}/bundles`, { bundled_item: (await item(w)).id });
  const category = await create(w, `${w.ev}/categories`, categoryBody());
  const question = await create(w, `${w.ev}/questions`, questionBody());
  const option = await create(w, `${w.ev}/questions/${question.id}/options`, optionBody());
  const taxRule = await create(w, `${w.ev}/taxrules`, taxRuleBody());
  const discount = await create(w, `${w.ev}/discounts`, discountBody());
  const sendmail = await create(w, `${w.ev}/sendmail_rules`, sendmailRuleBody());
  const layout = await create(w, `${w.ev}/ticketlayouts`, ticketLayoutBody());
  const quota = await create(w, `${w.ev}/quotas`, { ...quotaBody(), size: 50, items: [it.id] });
  const voucher = await create(w, `${w.ev}/vouchers`, voucherBody());
  const cart = await create(w, `${w.ev}/cartpositions`, { item: it.id, price: "1.00" });
  const order = await pendingOrder(w);
  const paid = await paidOrder(w);
  const list = await create(w, `${w.ev}/checkinlists`, checkinListBody());
  const meta = await create(w, `${w.org}/event_meta_properties`, metaPropertyBody());
  const team = await create(w, `${w.org}/teams`, { name: "Fuzz team" });
  const token = await create(w, `${w.org}/teams/${team.id}/tokens`, { name: "fuzz" });
  const invite = await create(w, `${w.org}/teams/${team.id}/invites`, { email: "invitee@example.org" });
  const cust = await customer(w);
  const membershipType = await create(w, `${w.org}/membershiptypes`, membershipTypeBody());
  const membership = await create(w, `${w.org}/memberships`, await membershipBody(w));
  const giftcard = await create(w, `${w.org}/giftcards`, giftCardBody());
  const plan = await create(w, `${w.org}/seatingplans`, seatingPlanBody());
  const device = await seedDevice(org.id);
  const other = await otherOrganizer();
  await acceptance(org.id, other.id);
  await acceptance(other.id, org.id);
  const s = String;
  const params: Record<string, string> = {
    organizer: org.slug,
    event: ev.slug,
    team: s(team.id),
    device_id: s(device.id),
    acceptor: other.slug,
    issuer: other.slug,
    item: s(it.id),
    question: s(question.id),
    code: order.code,
    local: "1",
    list: s(list.id),
  };
  const ids: Record<string, string> = {
    tokens: s(token.id),
    invites: s(invite.id),
    giftcards: s(giftcard.id),
    memberships: s(membership.id),
    event_meta_properties: s(meta.id),
    items: s(withVariation.id),
    variations: s(variation.id),
    addons: s(addon.id),
    bundles: s(bundle.id),
    categories: s(category.id),
    category: s(category.id),
    membershiptypes: s(membershipType.id),
    taxrules: s(taxRule.id),
    questions: s(question.id),
    options: s(option.id),
    discounts: s(discount.id),
    discount: s(discount.id),
    sendmail_rules: s(sendmail.id),
    ticketlayouts: s(layout.id),
    seatingplans: s(plan.id),
    quotas: s(quota.id),
    quota: s(quota.id),
    vouchers: s(voucher.id),
    cartpositions: s(cart.id),
    checkinlists: s(list.id),
    checkinlist: s(list.id),
    positions: paid.positions[0].secret,
  };
  const world: World = {
    client: org.client,
    device: device.client,
    org: orgPath,
    orgId: org.id,
    orgSlug: org.slug,
    eventSlug: ev.slug,
    params,
    ids,
    quotaAvailability: "",
    known: {
      ints: [
        it.id,
        withVariation.id,
        variation.id,
        quota.id,
        list.id,
        category.id,
        question.id,
        taxRule.id,
        membershipType.id,
        voucher.id,
        paid.positions[0].id,
      ],
      strings: [
        order.code,
        paid.code,
        ev.slug,
        org.slug,
        cust.identifier,
        voucher.code,
        paid.positions[0].secret,
        giftcard.secret,
        "en",
        "EUR",
        "web",
      ],
    },
  };
  world.quotaAvailability = await availability(world);
  return world;
}

async function availability(w: World): Promise<string> {
  const res = await w.client.get(`${w.org}/events/${w.eventSlug}/quotas/${w.ids.quotas}/availability/`);
  expect(res.status).toBe(200);
  return res.text;
}

/** Whether the fixtures still stand (a fuzzed request that succeeded may have changed them). */
async function worldIntact(w: World): Promise<boolean> {
  const [ev, order, device] = await Promise.all([
    w.client.get(`${w.org}/events/${w.eventSlug}/`),
    w.client.get(`${w.org}/events/${w.eventSlug}/orders/${w.params.code}/`),
    w.device.get("/api/v1/device/info"),
  ]);
  return ev.status === 200 && order.status === 200 && order.body.status === "n" && device.status === 200;
}

// ---------------------------------------------------------------- one case

type Case = {
  /** path parameter values as they go into the URL (already encoded) */
  path: Record<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  body: { kind: "none" } | { kind: "json"; value: unknown; note: string } | { kind: "raw"; raw: RawBody };
  /** the route's last path parameter is real (not a malformed value) */
  real: boolean;
};

function encodeSegment(v: string): string {
  return /%/.test(v) ? v : encodeURIComponent(v);
}

function pathArb(op: Operation, w: World): fc.Arbitrary<Record<string, string>> {
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const last = names[names.length - 1];
  // requests that would change or remove the fixture named last: only ids that are not real
  const destructive = op.method === "DELETE" || (op.method !== "GET" && !op.body && op.bodyTypes.length === 0);
  const entries = names.map((name) => {
    const before = op.path.split(`/{${name}}`)[0]!.split("/").pop()!;
    const real = name === "id" ? w.ids[before] : w.params[name];
    const malformed = fc.constantFrom(...MALFORMED_IDS, "999999");
    if (name === "identifier" && before === "exporters")
      return [name, fc.constantFrom("orderlist", "checkinlist", ...MALFORMED_IDS)] as const;
    if (name === "id" && before === "download")
      return [name, fc.constantFrom("00000000-0000-4000-8000-000000000000", ...MALFORMED_IDS)] as const;
    if (real === undefined || (destructive && name === last)) return [name, malformed] as const;
    const weight = name === "organizer" || name === "event" ? 8 : 3;
    return [name, fc.oneof({ weight, arbitrary: fc.constant(real) }, { weight: 1, arbitrary: malformed })] as const;
  });
  return fc.record(
    Object.fromEntries(entries.map(([k, a]) => [k, a.map(encodeSegment)])) as Record<string, fc.Arbitrary<string>>,
  );
}

function queryArb(op: Operation): fc.Arbitrary<[string, string][]> {
  const declared = op.params.filter((p) => p.in === "query");
  if (declared.length === 0) return fc.constant([]);
  const one = fc.constantFrom(...declared).chain((p) => {
    const value = queryValue(p);
    const name =
      p.style === "deepObject"
        ? fc.constantFrom(`${p.name}[x]`, `${p.name}[]`, `${p.name}[${"k".repeat(300)}]`)
        : fc.constant(p.name);
    return fc.tuple(name, value);
  });
  return fc.array(one, { minLength: 0, maxLength: 4 });
}

function headerArb(op: Operation): fc.Arbitrary<Record<string, string>> {
  const declared = op.params.filter((p) => p.in === "header").map((p) => p.name);
  if (declared.length === 0) return fc.constant({});
  const value = fc.constantFrom(
    "",
    "x".repeat(300),
    "a".repeat(5000),
    "\u00fc",
    "Thu, 01 Jan 1970 00:00:00 GMT",
    "Sat, 01 Jan 99999 00:00:00 GMT",
    "yesterday",
    "-1",
  );
  // one in four cases; an idempotency key is made unique (a repeated key replays the first answer)
  return fc
    .oneof(
      { weight: 3, arbitrary: fc.constant(null) },
      { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...declared), value) },
    )
    .map((h) => (h ? { [h[0]]: h[0] === "X-Idempotency-Key" && h[1] !== "" ? `${h[1]}${unique("-")}` : h[1] } : {}));
}

function bodyArb(
  op: Operation,
  w: World,
  doc: Json,
  lookup: Record<string, Schema | boolean>,
): fc.Arbitrary<Case["body"]> {
  if (op.method === "GET") return fc.constant({ kind: "none" });
  if (!op.body) {
    // no JSON body: nothing, junk, or raw bytes of any type (the upload)
    return fc.oneof(
      fc.constant<Case["body"]>({ kind: "none" }),
      junkValue.map((value): Case["body"] => ({ kind: "json", value, note: "junk" })),
      rawBodies({}).map((raw): Case["body"] => ({ kind: "raw", raw })),
    );
  }
  const schema = op.body;
  const mutation = mutated(doc, schema, w.known)
    // a wrong type or shape must be one the description refuses; an extreme value may be taken
    .filter(({ body, mutation: m }) => m.kind === "extreme" || !validBySchema(doc, lookup, schema, body))
    .map(({ body, mutation: m }): Case["body"] => ({
      kind: "json",
      value: body,
      note: `${m.kind} at /${m.at.join("/")}`,
    }));
  // the declared shape at its edges (largest ids, longest strings of NUL or emoji, dates at the ends of the calendar)
  const edge = shaped(doc, schema, w.known, 0, true).map((value): Case["body"] => ({
    kind: "json",
    value,
    note: "edge values",
  }));
  const junk = junkValue.map((value): Case["body"] => ({ kind: "json", value, note: "junk" }));
  const raw = shaped(doc, schema, w.known)
    .chain((valid) => rawBodies(valid))
    .map((raw): Case["body"] => ({ kind: "raw", raw }));
  return fc.oneof(
    { weight: 5, arbitrary: mutation },
    { weight: 2, arbitrary: edge },
    { weight: 2, arbitrary: junk },
    { weight: 2, arbitrary: raw },
  );
}

function caseArb(op: Operation, w: World, doc: Json, lookup: Record<string, Schema | boolean>): fc.Arbitrary<Case> {
  return fc
    .record({ path: pathArb(op, w), query: queryArb(op), headers: headerArb(op), body: bodyArb(op, w, doc, lookup) })
    .map((c) => {
      const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
      const last = names[names.length - 1];
      return {
        ...c,
        real:
          last === undefined ||
          Object.values({ ...w.params, ...w.ids })
            .map(encodeSegment)
            .includes(c.path[last]!),
      };
    });
}

type Sent = { method: string; url: string; headers: Record<string, string>; body: string };

function describeSent(s: Sent, note: string): string {
  const body = s.body.length > 600 ? `${s.body.slice(0, 600)}… (${s.body.length} characters)` : s.body;
  return `${s.method} ${s.url.length > 600 ? `${s.url.slice(0, 600)}…` : s.url}\nheaders: ${JSON.stringify(s.headers).slice(0, 400)}\nbody (${note}): ${body}`;
}

async function send(
  op: Operation,
  _w: World,
  c: Case,
  client: Client,
): Promise<{ sent: Sent; status: number; text: string; note: string }> {
  const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => c.path[name]!);
  const qs = c.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
  const url = `${BASE}${path}${qs ? `?${qs}` : ""}`;
  const headers: Record<string, string> = { ...c.headers };
  if (client.authorization) headers.Authorization = client.authorization;
  let payload: BodyInit | undefined;
  let shown = "";
  let note = "none";
  if (c.body.kind === "json") {
    shown = serialize(c.body.value);
    payload = shown;
    headers["Content-Type"] = "application/json";
    note = c.body.note;
  } else if (c.body.kind === "raw") {
    const raw = c.body.raw;
    payload = raw.bytes ?? raw.text ?? "";
    shown = raw.text ?? `bytes ${[...(raw.bytes ?? [])].map((b) => b.toString(16)).join(" ")}`;
    if (raw.contentType !== null) headers["Content-Type"] = raw.contentType;
    note = raw.label;
  }
  const { exports } = await import("cloudflare:workers");
  const res = await exports.default.fetch(new Request(url, { method: op.method, headers, body: payload }));
  const text = await res.text();
  return { sent: { method: op.method, url, headers, body: shown }, status: res.status, text, note };
}

// ---------------------------------------------------------------- the test

let doc: Json;
let lookup: Record<string, Schema | boolean>;
let world: World;
/** A fuzzed write succeeded since the fixtures were last looked at. */
let changedSomething = false;

beforeAll(async () => {
  doc = await openApiDocument();
  lookup = dereference(doc as Schema, Object.create(null), new URL("https://contract.test/openapi.json"));
  world = await buildWorld();
}, 120_000);

/** A stable number per operation, so that each operation's cases do not depend on the others. */
function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

const ALL = await openApiDocument().then(operations);

describe("fuzz: bad input never reaches a 500, and a refused request stores nothing", () => {
  it("covers every operation of the description", () => {
    expect(ALL.length).toBeGreaterThan(200);
    expect(ALL.filter((op) => op.body).length).toBeGreaterThan(80);
  });

  for (const op of ALL) {
    const name = `${op.method} ${op.path}`;
    if (ONLY && !name.includes(ONLY)) continue;
    it(
      name,
      async () => {
        if (changedSomething && !(await worldIntact(world))) world = await buildWorld();
        changedSomething = false;
        let before = await fingerprint();
        const seed = (SEED + hash(name)) | 0;
        // device-only routes that change the calling device (roll, revoke): a device per case
        const ownDevice = op.auth === "device" && op.method === "POST" && !op.body;
        await fc.assert(
          fc.asyncProperty(caseArb(op, world, doc, lookup), async (c) => {
            const client =
              op.auth === "none"
                ? null
                : ownDevice
                  ? (await seedDevice(world.orgId)).client
                  : op.auth === "device"
                    ? world.device
                    : world.client;
            if (ownDevice) before = await fingerprint();
            const res = await send(op, world, c, client ?? ({ authorization: null } as Client));
            const shown = `seed ${SEED} (operation seed ${seed}), FUZZ_ONLY="${name}"\n${describeSent(res.sent, res.note)}\n→ ${res.status} ${res.text.slice(0, 800)}`;
            expect(res.status, `answered ${res.status}:\n${shown}`).toBeLessThan(500);
            const after = await fingerprint();
            if (res.status >= 400) {
              let changed = changedTables(before, after);
              // a scan's refusal (its answer has a `reason`) is recorded as a failed check-in, as in pretix
              if (op.path.endsWith("/redeem/") && /"reason":/.test(res.text))
                changed = changed.filter((t) => t !== "checkins");
              // pretix's idempotency: the answer to a keyed request is stored for its repeats
              if ("X-Idempotency-Key" in c.headers) changed = changed.filter((t) => t !== "idempotency_keys");
              expect(changed, `a refused request (${res.status}) stored rows:\n${shown}`).toEqual([]);
              if (op.path.includes("/events/{event}/") && op.method !== "GET" && c.path.event === world.eventSlug) {
                expect(
                  await availability(world),
                  `a refused request (${res.status}) changed the quota's availability:\n${shown}`,
                ).toBe(world.quotaAvailability);
              }
            } else if (op.method !== "GET") {
              changedSomething = true;
              world.quotaAvailability = await availability(world);
            }
            before = after;
          }),
          { seed, numRuns: RUNS, endOnFailure: true },
        );
      },
      Math.max(60_000, RUNS * 4_000),
    );
  }
});
