/**
 * Searches and text filters take any text (issue 12, "found when tried as a new user would"):
 * any length (D1 refuses LIKE patterns over 50 bytes), `%`, `_` and `\` matched literally,
 * emoji and NUL; never a 500. Every `search` goes through src/db/search.ts.
 */
import { describe, expect, it } from "vitest";
import { createEvent } from "../helpers/events";
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
    const found = async (term: string) => (await get(org.client, `${url}?search=${q(term)}`)).results.map((e: { slug: string }) => e.slug);
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
    const found = async (term: string) => (await get(s.client, `${s.path}/subevents/?search=${q(term)}`)).results.map((d: { name: { en: string } }) => d.name.en);
    expect(await found(LONG)).toEqual([`Date ${LONG}`]);
    expect(await found(WILD)).toEqual(["Other"]);
    expect(await found("%")).toEqual(["Other"]);
    for (const term of HOSTILE) await get(s.client, `${s.path}/subevents/?search=${q(term)}`);
    // the organizer-level list of dates takes the same text filters without failing
    for (const term of HOSTILE) await get(s.client, `/api/v1/organizers/${s.orgSlug}/subevents/?sales_channel=${q(term)}`);
  });
});

describe("text filters of the other lists with any text", () => {
  it("answer 200 and match literally (exact where pretix matches exactly)", async () => {
    const s = await shop();
    const ticket = await s.item();
    await s.quota({ size: 10, items: [ticket.id] });
    await s.voucher({ code: "PLAIN1", tag: WILD });
    const org = `/api/v1/organizers/${s.orgSlug}`;
    const lists = [
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
