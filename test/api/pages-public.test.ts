/**
 * The public organizer page (`/{organizer}/`) and event page (`/{organizer}/{event}/`), the
 * `public_url`s of the API; and that these catch-all paths shadow none of the service's own.
 */
import { describe, expect, it } from "vitest";
import { anonymous, type Json, seedOrganizer } from "../harness";
import { getPage, postForm, textOf } from "../helpers/pages";
import { shop, type Shop } from "../helpers/sales";

/** Makes an event live (quota and a payment plugin are what going live needs). */
async function goLive(s: Shop, ticketBody: Record<string, unknown> = {}) {
  const ticket = await s.item({ name: { en: "Day ticket" }, default_price: "35.00", ...ticketBody });
  await s.quota({ size: 100, items: [ticket.id] });
  const res = await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return ticket;
}

describe("organizer page", () => {
  it("shows the organizer, its live public events with links, dates and locations, its info text and legal links, in its color", async () => {
    const s = await shop({
      event: {
        name: { en: "Summer Festival" },
        location: { en: "City Park" },
        date_from: "2030-07-10T16:00:00Z",
        date_to: "2030-07-12T22:00:00Z",
      },
    });
    await goLive(s);
    const hidden = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
      name: { en: "Secret Gig" },
      slug: "secret-gig",
      currency: "EUR",
      date_from: "2030-08-01T19:00:00Z",
      is_public: false,
    });
    expect(hidden.status).toBe(201);
    const draft = await s.client.post(`/api/v1/organizers/${s.orgSlug}/events/`, {
      name: { en: "Draft Show" },
      slug: "draft-show",
      currency: "EUR",
      date_from: "2030-09-01T19:00:00Z",
    });
    expect(draft.status).toBe(201);
    const settings = await s.client.patch(`/api/v1/organizers/${s.orgSlug}/settings/`, {
      organizer_info_text: { en: "We run the best festivals." },
      imprint_url: "https://org.example.org/imprint",
      privacy_url: "https://org.example.org/privacy",
      contact_mail: "hello@org.example.org",
      primary_color: "#123abc",
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);

    const org = await s.client.get(`/api/v1/organizers/${s.orgSlug}/`);
    const res = await getPage(org.body.public_url);
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(res.headers.get("X-Frame-Options")).toBe("DENY");
    const t = textOf(res.text);
    expect(t).toContain(`Organizer ${s.orgSlug}`);
    expect(t).toContain("We run the best festivals.");
    expect(t).toContain("Summer Festival");
    expect(t).toContain("City Park");
    expect(t).toContain("10 July 2030");
    expect(res.text).toContain(`href="http://ticketing.test/${s.orgSlug}/${s.eventSlug}/"`);
    expect(t).not.toContain("Secret Gig");
    expect(t).not.toContain("Draft Show");
    expect(res.text).toContain("background:#123abc");
    expect(res.text).toContain('href="https://org.example.org/imprint"');
    expect(res.text).toContain('href="https://org.example.org/privacy"');
    expect(res.text).toContain('href="mailto:hello@org.example.org"');
  });

  it("lists past events separately, and an organizer without events says so", async () => {
    const s = await shop({ event: { name: { en: "Old Times" }, date_from: "2020-05-01T19:00:00Z" } });
    await goLive(s);
    const t = textOf((await getPage(`/${s.orgSlug}/`)).text);
    expect(t).toContain("No upcoming events.");
    expect(t).toMatch(/Past events Old Times/);
    const empty = await seedOrganizer();
    expect(textOf((await getPage(`/${empty.slug}`)).text)).toContain("No upcoming events.");
  });

  it("a slug that is no organizer: 404 page", async () => {
    const res = await getPage("/no-such-organizer/");
    expect(res.status).toBe(404);
    expect(res.headers.get("Content-Type")).toMatch(/^text\/html/);
    expect(textOf(res.text)).toContain("This organizer does not exist.");
  });
});

describe("event page", () => {
  it("shows name, dates, location and the active items with their prices", async () => {
    const s = await shop({
      event: { name: { en: "Jazz Night" }, location: { en: "Blue Hall" }, date_from: "2030-06-01T19:00:00Z" },
    });
    await goLive(s);
    const shirt = await s.item({
      name: { en: "Band shirt" },
      default_price: "20.00",
      variations: [{ value: { en: "S" } }, { value: { en: "XL" }, default_price: "22.50" }],
    });
    const retired = await s.item({ name: { en: "Retired item" }, default_price: "9.00", active: false });
    const hidden = await s.item({ name: { en: "Hidden goodie" }, default_price: "1.00", hide_without_voucher: true });
    const boxOffice = await s.item({
      name: { en: "Box office only" },
      default_price: "2.00",
      sales_channels: ["pretixpos"],
    });
    // on sale (a quota covers them): what keeps the last three off the page is their own setting
    await s.quota({
      size: 50,
      items: [shirt.id, retired.id, hidden.id, boxOffice.id],
      variations: shirt.variations.map((v: Json) => v.id),
    });
    const ev = await s.client.get(`${s.path}/`);
    const res = await getPage(ev.body.public_url);
    expect(res.status).toBe(200);
    const t = textOf(res.text);
    expect(t).toContain("Jazz Night");
    expect(t).toContain(`Organizer ${s.orgSlug}`);
    expect(t).toContain("Sat, 1 June 2030 at 19:00 UTC");
    expect(t).toContain("Blue Hall");
    expect(t).toContain("Day ticket EUR 35.00 Quantity of Day ticket");
    expect(t).toContain("Band shirt S EUR 20.00 Quantity of Band shirt – S XL EUR 22.50 Quantity of Band shirt – XL");
    expect(t).not.toContain("Retired item");
    expect(t).not.toContain("Hidden goodie");
    expect(t).not.toContain("Box office only");
  });

  it("offers only what a quota covers, as pretix's shop: no product or variation without one", async () => {
    const s = await shop({ event: { name: { en: "Poster Show" } } });
    await goLive(s);
    await s.item({ name: { en: "Unlimited poster" }, default_price: "5.00" });
    const shirt = await s.item({
      name: { en: "Band shirt" },
      default_price: "20.00",
      variations: [{ value: { en: "S" } }, { value: { en: "XL" } }, { value: { en: "XXL" } }],
    });
    await s.item({ name: { en: "Mug" }, variations: [{ value: { en: "Blue" } }] });
    // the shirt's quota covers two of its three variations; no quota covers the poster or the mug
    await s.quota({ size: 5, items: [shirt.id], variations: [shirt.variations[0].id, shirt.variations[1].id] });
    const t = textOf((await getPage(`/${s.orgSlug}/${s.eventSlug}/`)).text);
    expect(t).toContain("Day ticket EUR 35.00 Quantity of Day ticket Band shirt S EUR 20.00");
    expect(t).toContain("Band shirt – S XL EUR 20.00 Quantity of Band shirt – XL Add to cart");
    expect(t).not.toContain("XXL");
    expect(t).not.toContain("Unlimited poster");
    expect(t).not.toContain("Mug");
    expect(t).not.toContain("Blue");
  });

  it("a series offers a product with a quota on a date customers see, where the date does not disable it", async () => {
    const s = await shop({ series: true, event: { name: { en: "Theatre Season" } } });
    const seat = await s.item({ name: { en: "Stalls seat" }, default_price: "40.00" });
    const matinee = await s.item({ name: { en: "Matinee seat" } });
    const archive = await s.item({ name: { en: "Archive seat" } });
    const box = await s.item({ name: { en: "Box seat" } });
    const program = await s.item({
      name: { en: "Programme" },
      default_price: "3.00",
      admission: false,
      variations: [{ value: { en: "Print" } }, { value: { en: "Signed" } }],
    });
    const premiere = await s.subevent({ name: { en: "Premiere" }, date_from: "2030-10-01T18:00:00Z" });
    const inactive = await s.subevent({ name: { en: "Matinee" }, date_from: "2030-10-02T11:00:00Z", active: false });
    const past = await s.subevent({ name: { en: "Last season" }, date_from: "2020-10-01T18:00:00Z" });
    await s.quota({
      size: 10,
      items: [seat.id, box.id, program.id],
      variations: program.variations.map((v: Json) => v.id),
      subevent: premiere.id,
    });
    await s.quota({ size: 10, items: [matinee.id], subevent: inactive.id });
    await s.quota({ size: 10, items: [archive.id], subevent: past.id });
    const overrides = await s.client.patch(`${s.path}/subevents/${premiere.id}/`, {
      item_price_overrides: [{ item: box.id, disabled: true }],
      variation_price_overrides: [{ variation: program.variations[1].id, disabled: true }],
    });
    expect(overrides.status, JSON.stringify(overrides.body)).toBe(200);
    expect((await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] })).status).toBe(
      200,
    );
    // the event page of a series chooses the date; the date's shop is at ?subevent=
    const t = textOf((await getPage(`/${s.orgSlug}/${s.eventSlug}/?subevent=${premiere.id}`)).text);
    expect(t).toContain("Tickets and products Stalls seat EUR 40.00 Quantity of Stalls seat Programme Print EUR 3.00");
    expect((await getPage(`/${s.orgSlug}/${s.eventSlug}/?subevent=${inactive.id}`)).status).toBe(404);
    for (const absent of ["Matinee seat", "Archive seat", "Box seat", "Signed"])
      expect(t, absent).not.toContain(absent);
  });

  it("a series lists its upcoming active public dates", async () => {
    const s = await shop({ series: true, event: { name: { en: "Theatre Season" } } });
    const ticket = await s.item({ name: { en: "Seat" } });
    const date = await s.subevent({ name: { en: "Premiere" }, date_from: "2030-10-01T18:00:00Z" });
    await s.subevent({ name: { en: "Cancelled night" }, date_from: "2030-10-02T18:00:00Z", active: false });
    await s.quota({ size: 10, items: [ticket.id], subevent: date.id });
    expect((await s.client.patch(`${s.path}/`, { live: true, plugins: ["pretix.plugins.manualpayment"] })).status).toBe(
      200,
    );
    const t = textOf((await getPage(`/${s.orgSlug}/${s.eventSlug}/`)).text);
    expect(t).toContain("Choose a date Premiere Tue, 1 October 2030 at 18:00 UTC");
    expect(t).not.toContain("Cancelled night");
  });

  it("events that are not live or not public, and unknown events, are 404 pages", async () => {
    const s = await shop();
    const draft = await getPage(`/${s.orgSlug}/${s.eventSlug}/`);
    expect(draft.status).toBe(404);
    expect(textOf(draft.text)).toContain("This event does not exist.");
    await goLive(s);
    expect((await getPage(`/${s.orgSlug}/${s.eventSlug}/`)).status).toBe(200);
    expect((await s.client.patch(`${s.path}/`, { is_public: false })).status).toBe(200);
    expect((await getPage(`/${s.orgSlug}/${s.eventSlug}/`)).status).toBe(404);
    expect((await getPage(`/${s.orgSlug}/no-such-event/`)).status).toBe(404);
    const org404 = await getPage(`/no-such-org/${s.eventSlug}/`);
    expect(org404.status).toBe(404);
    expect(textOf(org404.text)).toContain("This organizer does not exist.");
  });
});

describe("the catch-all page routes shadow nothing", () => {
  it("API, media, invitation and activation paths keep their own answers", async () => {
    const api = await anonymous.get("/api/v1/organizers/");
    expect(api.status).toBe(401);
    expect(api.headers.get("Content-Type")).toMatch(/json/);
    const unknownApi = await anonymous.get("/api/v1/nothing/here/");
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.body).toEqual({ detail: expect.any(String) });
    for (const path of ["/api", "/api/v1", "/media/", "/invite", "/customer", "/order", "/pay"]) {
      const res = await getPage(path);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("Content-Type"), path).toMatch(/json/);
    }
    const media = await getPage("/media/no/such/file.png");
    expect(media.status).toBe(404);
    expect(media.headers.get("Content-Type")).not.toMatch(/html/);
    const invite = await getPage("/invite/not-a-token");
    expect(invite.status).toBe(404);
    expect(textOf(invite.text)).toContain("This invitation does not exist or has been used or revoked already.");
    const activation = await getPage("/customer/activate/not-a-token");
    expect(activation.status).toBe(404);
    expect(textOf(activation.text)).toContain("This activation link is not valid.");
    expect((await postForm("/invite/not-a-token", { fullname: "X" })).status).toBe(404);
  });
});
