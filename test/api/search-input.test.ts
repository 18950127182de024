/**
 * Searches and text filters take any text (issue 12, "found when tried as a new user would"):
 * any length (D1 refuses LIKE patterns over 50 bytes), `%`, `_` and `\` matched literally,
 * emoji and NUL; never a 500. Every `search` goes through src/db/search.ts.
 */
import { describe, expect, it } from "vitest";
import { createEvent } from "../helpers/events";
import { venue } from "../helpers/checkin";
import { shop } from "../helpers/sales";
import { type Client, seedOrganizer } from "../harness";

const LONG = "A long name for an event, longer than fifty bytes: eighty characters, no less.";
const WILD = "%_\\".repeat(30);
const EMOJI = "Konzert 🎸🎉 am See";
const NUL = "before\u0000after";

/** The hostile searches: each with the text it must find literally, or nothing. */
const HOSTILE = [LONG, `${LONG}x`, WILD, "%", "_", "\\", "%%", "🎸", "🎹", NUL, "before\u0000x", "x".repeat(5000)];

async function get(client: Client, url: string) {
  const res = await client.get(url);
  expect(res.status, `${url}: ${res.text.slice(0, 300)}`).toBe(200);
  return res.body;
}

const q = (term: string) => encodeURIComponent(term);

describe("search of events and sub-events with any text", () => {
  it("events: any length, wildcards, emoji and NUL are matched literally, never 500", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/events/`;
    await createEvent(org.client, org.slug, { slug: "long", name: { en: `Prefix ${LONG} suffix` } });
    await createEvent(org.client, org.slug, { slug: "wild", name: { de: `Name ${WILD}` } });
    await createEvent(org.client, org.slug, { slug: "emoji", name: { en: EMOJI } });
    await createEvent(org.client, org.slug, { slug: "nul", name: { en: "plain" }, location: { en: NUL } });
    await createEvent(org.client, org.slug, { slug: "plain", name: { en: "Nothing special" } });
    const found = async (term: string) =>
      (await get(org.client, `${url}?search=${q(term)}`)).results.map((e: { slug: string }) => e.slug);
    expect(await found(LONG)).toEqual(["long"]);
    expect(await found(LONG.toUpperCase())).toEqual(["long"]);
    expect(await found(`${LONG}x`)).toEqual([]);
    expect(await found(WILD)).toEqual(["wild"]);
    expect(await found(`${WILD}%`)).toEqual([]);
    // `%` and `_` are characters, not wildcards
    expect(await found("%")).toEqual(["wild"]);
    expect(await found("_")).toEqual(["wild"]);
    expect(await found("\\")).toEqual(["wild"]);
    expect(await found("n_me")).toEqual([]);
    expect(await found("🎸")).toEqual(["emoji"]);
    expect(await found("🎹")).toEqual([]);
    expect(await found(NUL)).toEqual(["nul"]);
    expect(await found("before\u0000x")).toEqual([]);
    expect(await found("x".repeat(5000))).toEqual([]);
  });

  it("sub-events: the same texts, never 500", async () => {
    const s = await shop({ series: true });
    await s.subevent({ name: { en: `Date ${LONG}` } });
    await s.subevent({ name: { en: "Other" }, location: { en: `At ${WILD}` } });
    const found = async (term: string) =>
      (await get(s.client, `${s.path}/subevents/?search=${q(term)}`)).results.map(
        (d: { name: { en: string } }) => d.name.en,
      );
    expect(await found(LONG)).toEqual([`Date ${LONG}`]);
    expect(await found(WILD)).toEqual(["Other"]);
    expect(await found("%")).toEqual(["Other"]);
    for (const term of HOSTILE) await get(s.client, `${s.path}/subevents/?search=${q(term)}`);
    // the organizer-level list of dates takes the same text filters without failing
    for (const term of HOSTILE)
      await get(s.client, `/api/v1/organizers/${s.orgSlug}/subevents/?sales_channel=${q(term)}`);
  });
});

describe("search of orders with any text", () => {
  it("an 80-character text, wildcards, emoji and NUL find the order holding them, literally, never 500", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    const order = async (comment: string, name = "Guest") => {
      const res = await s.client.post(`${s.path}/orders/`, {
        email: "guest@example.org",
        comment,
        positions: [{ item: ticket.id, attendee_name_parts: { full_name: name } }],
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body.code as string;
    };
    const long = await order(`Note: ${LONG} (end)`);
    const wild = await order(`Code ${WILD}`);
    const emoji = await order("plain", EMOJI);
    const nul = await order(NUL);
    await order("nothing special");
    const found = async (term: string) =>
      (await get(s.client, `${s.path}/orders/?search=${q(term)}`)).results.map((o: { code: string }) => o.code);
    expect(await found(LONG)).toEqual([long]);
    expect(await found(LONG.toUpperCase())).toEqual([long]);
    expect(await found(`${LONG}x`)).toEqual([]);
    expect(await found(WILD)).toEqual([wild]);
    expect(await found(`${WILD}%`)).toEqual([]);
    expect(await found("%")).toEqual([wild]);
    expect(await found("_")).toEqual([wild]);
    expect(await found("\\")).toEqual([wild]);
    expect(await found("🎸")).toEqual([emoji]);
    expect(await found("🎹")).toEqual([]);
    expect(await found(NUL)).toEqual([nul]);
    expect(await found("before\u0000x")).toEqual([]);
    for (const term of HOSTILE) await get(s.client, `${s.path}/orders/?search=${q(term)}`);
  });
});

describe("text filters of the other lists with any text", () => {
  it("answer 200 and match literally (exact where pretix matches exactly)", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    await s.voucher({ code: "PLAIN1", tag: WILD });
    const org = `/api/v1/organizers/${s.orgSlug}`;
    const hook = await s.client.post(`${org}/webhooks/`, {
      target_url: "https://hooks.example.org/in",
      action_types: ["pretix.event.order.placed"],
    });
    expect(hook.status).toBe(201);
    const lists = [
      `${org}/webhooks/${hook.body.id}/calls/?code=`,
      `${org}/webhooks/${hook.body.id}/calls/?action_type=`,
      `${s.path}/invoices/?order=`,
      `${s.path}/invoices/?refers=`,
      `${s.path}/vouchers/?code=`,
      `${s.path}/vouchers/?tag=`,
      `${s.path}/questions/?identifier=`,
      `${s.path}/orders/?code=`,
      `${s.path}/orders/?email=`,
      `${s.path}/orders/?customer=`,
      `${s.path}/orders/?locale=`,
      `${s.path}/orders/?search=`,
      `${s.path}/orders/?sales_channel=`,
      `${s.path}/orders/?payment_provider=`,
      `${org}/events/?search=`,
      `${org}/events/?sales_channel=`,
      `${org}/giftcards/?secret=`,
      `${org}/customers/?email=`,
      `${org}/memberships/?customer=`,
    ];
    for (const list of lists) for (const term of HOSTILE) await get(s.client, `${list}${q(term)}`);
    // exact filters take the text as it is
    expect((await get(s.client, `${s.path}/vouchers/?tag=${q(WILD)}`)).count).toBe(1);
    expect((await get(s.client, `${s.path}/vouchers/?tag=${q("%")}`)).count).toBe(0);
  });
});

describe("check-in positions: search and list filters with any text and any number of values", () => {
  async function door() {
    const v = await venue();
    const list = await v.list();
    const limited = await v.list({ name: "Limited", all_products: false, limit_products: [v.ticket.id] });
    const long = await v.sell({ positions: [{ item: v.ticket.id, attendee_name: `Guest ${LONG}` }] });
    const wild = await v.sell({
      email: "wild@example.org",
      positions: [{ item: v.ticket.id, attendee_name: `Name ${WILD}` }],
    });
    const emoji = await v.sell({ positions: [{ item: v.ticket.id, attendee_name: EMOJI }] });
    return { v, list, limited, long, wild, emoji };
  }

  it("positions `search`: any length, wildcards, emoji and NUL matched literally; on a limited list too", async () => {
    const { v, list, limited, long, wild, emoji } = await door();
    for (const l of [list, limited]) {
      const found = async (term: string) =>
        (await get(v.client, `${v.path}/checkinlists/${l.id}/positions/?search=${q(term)}`)).results.map(
          (p: { id: number }) => p.id,
        );
      expect(await found(LONG)).toEqual([long.id]);
      expect(await found(LONG.toLowerCase())).toEqual([long.id]);
      expect(await found(`${LONG}x`)).toEqual([]);
      expect(await found(WILD)).toEqual([wild.id]);
      expect(await found("%")).toEqual([wild.id]);
      expect(await found("_")).toEqual([wild.id]);
      expect(await found("n_me")).toEqual([]);
      expect(await found("🎸")).toEqual([emoji.id]);
      // the start of a secret, not any part of it
      expect(await found(wild.secret.slice(0, 10))).toEqual([wild.id]);
      expect(await found(wild.secret.slice(1, 10))).toEqual([]);
      for (const term of HOSTILE) await get(v.client, `${v.path}/checkinlists/${l.id}/positions/?search=${q(term)}`);
      for (const term of HOSTILE)
        await get(v.client, `${v.path}/checkinlists/${l.id}/positions/?attendee_name=${q(term)}`);
    }
  });

  it("checkinrpc/search: the same texts, never 500; found tickets expand their items", async () => {
    const { v, limited, wild } = await door();
    const url = (term: string, more = "") =>
      `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?list=${limited.id}&search=${q(term)}${more}`;
    expect((await get(v.scanner, url(WILD))).results.map((p: { id: number }) => p.id)).toEqual([wild.id]);
    for (const term of HOSTILE) await get(v.scanner, url(term));
    // the search is the organizer's: an expanded item is serialized with the tickets' event
    const expanded = await get(v.scanner, url(WILD, "&expand=item&expand=variation&expand=subevent"));
    expect(expanded.results).toHaveLength(1);
    expect(expanded.results[0]).toMatchObject({
      id: wild.id,
      item: { id: v.ticket.id, name: { en: "Ticket" } },
      variation: null,
      subevent: null,
    });
  });

  it("`item__in` and the other list filters: 500 values are one statement; more are a 400 naming the limit", async () => {
    const { v, list, long, wild, emoji } = await door();
    // the value that matches comes last: a list cut short would lose it
    const many = (n: number, last: number) =>
      Array.from({ length: n }, (_, i) => (i === n - 1 ? last : 900_000_000 + i)).join(",");
    const ids = async (query: string) =>
      (await get(v.client, `${v.path}/checkinlists/${list.id}/positions/?${query}`)).results
        .map((p: { id: number }) => p.id)
        .sort();
    const all = [long.id, wild.id, emoji.id].sort();
    // every list filter at its largest at once
    expect(
      await ids(
        `item__in=${many(500, v.ticket.id)}&variation__in=${many(500, 1)}&subevent__in=${many(500, 1)}&addon_to__in=${many(500, 1)}`,
      ),
    ).toEqual([]);
    expect(await ids(`item__in=${many(500, v.ticket.id)}`)).toEqual(all);
    // repeated values count once
    expect(await ids(`item__in=${Array(2000).fill(v.ticket.id).join(",")}`)).toEqual(all);
    for (const name of ["item__in", "variation__in", "subevent__in", "addon_to__in"]) {
      const res = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?${name}=${many(501, 1)}`);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ [name]: ["Ensure this filter has no more than 500 values."] });
    }
    const huge = await v.client.get(`${v.path}/checkinlists/${list.id}/positions/?item__in=${"9".repeat(20)}`);
    expect(huge.status).toBe(400);
    expect(huge.body).toEqual({ item__in: ["Enter a whole number."] });
  });

  it("checkinrpc/search takes up to 100 lists; more are a 400 naming the limit", async () => {
    const { v, list } = await door();
    const others = Array.from({ length: 99 }, (_, i) => 900_000_000 + i);
    const url = (ids: number[]) =>
      `/api/v1/organizers/${v.orgSlug}/checkinrpc/search/?${ids.map((id) => `list=${id}`).join("&")}&search=x`;
    // 100 lists: read (unknown ones are the caller's error, 403, as pretix answers)
    expect((await v.scanner.get(url([list.id, ...others]))).status).toBe(403);
    expect((await v.scanner.get(url([list.id, list.id, list.id]))).status).toBe(200);
    const over = await v.scanner.get(url([list.id, ...others, 999_999_999]));
    expect(over.status).toBe(400);
    expect(over.body).toEqual({ detail: "Ensure no more than 100 check-in lists are passed." });
  });
});
