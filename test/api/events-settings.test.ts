import { describe, expect, it } from "vitest";
import { eq } from "drizzle-orm";
import { eventSettings } from "../../src/db/schema";
import { EVENT_SETTINGS } from "../../src/services/events/settings-keys";
import { returnUrlAllowed } from "../../src/rules/events";
import { db, seedDevice, seedOrganizer, seedTeam } from "../harness";
import { createEvent, eventId } from "../helpers/events";

async function setup() {
  const org = await seedOrganizer();
  const ev = await createEvent(org.client, org.slug);
  return {
    org,
    ev,
    url: `/api/v1/organizers/${org.slug}/events/${ev.slug}/settings/`,
    id: await eventId(org.id, ev.slug),
  };
}

describe("event settings", () => {
  it("shows every documented key with its default", async () => {
    const { org, url } = await setup();
    const res = await org.client.get(url);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(Object.keys(EVENT_SETTINGS).sort());
    expect(res.body).toMatchObject({
      locales: ["en"],
      locale: "en",
      name_scheme: "full",
      contact_mail: null,
      attendee_names_asked: true,
      attendee_names_required: false,
      attendee_emails_asked: false,
      invoice_address_asked: true,
      invoice_address_required: false,
      invoice_generate: "False",
      invoice_numbers_prefix: "",
      payment_term_days: 14,
      payment_term_last: null,
      payment_term_expire_automatically: true,
      payment_term_weekdays: true,
      max_items_per_order: 10,
      reservation_time: 30,
      returnurl_prefix: null,
    });
  });

  it("explains every key with value, label and help_text", async () => {
    const { org, url } = await setup();
    const res = await org.client.get(`${url}?explain=true`);
    expect(res.status).toBe(200);
    for (const [key, entry] of Object.entries(
      res.body as Record<string, { value: unknown; label: string; help_text: string }>,
    )) {
      expect(Object.keys(entry).sort(), key).toEqual(["help_text", "label", "value"]);
      expect(entry.label.length, key).toBeGreaterThan(0);
      expect(entry.help_text.length, key).toBeGreaterThan(0);
    }
    expect(res.body.payment_term_days).toEqual({
      value: 14,
      label: "Payment term in days",
      help_text: EVENT_SETTINGS.payment_term_days!.help_text,
    });
  });

  it("PATCH sets keys, null unsets them, and the rest stays", async () => {
    const { org, url, id } = await setup();
    const res = await org.client.patch(url, {
      payment_term_days: 3,
      payment_term_last: "RELDATE/1/-/date_from/",
      payment_term_expire_automatically: false,
      invoice_generate: "paid",
      invoice_numbers_prefix: "CONF-%Y-",
      invoice_introductory_text: { en: "Thank you", de: "Danke" },
      contact_mail: "tickets@example.org",
      name_scheme: "given_family",
      returnurl_prefix: "https://shop.example.org/done/\nhttp://localhost:3000/",
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      payment_term_days: 3,
      payment_term_last: "RELDATE/1/-/date_from/",
      payment_term_expire_automatically: false,
      invoice_generate: "paid",
      invoice_numbers_prefix: "CONF-%Y-",
      invoice_introductory_text: { en: "Thank you", de: "Danke" },
      contact_mail: "tickets@example.org",
      name_scheme: "given_family",
      max_items_per_order: 10,
    });
    expect((await org.client.get(url)).body).toEqual(res.body);
    const unset = await org.client.patch(url, { payment_term_days: null, contact_mail: null });
    expect(unset.body.payment_term_days).toBe(14);
    expect(unset.body.contact_mail).toBeNull();
    expect(unset.body.invoice_generate).toBe("paid");
    const stored = await db().select().from(eventSettings).where(eq(eventSettings.eventId, id));
    expect(stored.map((r) => r.key).sort()).not.toContain("payment_term_days");
  });

  it("inherits the organizer's values for keys the organizer has, until set on the event", async () => {
    const { org, url } = await setup();
    await org.client.patch(`/api/v1/organizers/${org.slug}/settings/`, {
      locales: ["de", "en"],
      contact_mail: "org@example.org",
    });
    let res = await org.client.get(url);
    expect(res.body.locales).toEqual(["de", "en"]);
    expect(res.body.locale).toBe("de");
    expect(res.body.contact_mail).toBe("org@example.org");
    res = await org.client.patch(url, { contact_mail: "event@example.org", locale: "en" });
    expect(res.body.contact_mail).toBe("event@example.org");
    expect(res.body.locale).toBe("en");
    res = await org.client.patch(url, { contact_mail: null });
    expect(res.body.contact_mail).toBe("org@example.org");
  });

  it("answers 400 for unknown keys, wrong types and inconsistent values, and changes nothing", async () => {
    const { org, url, id } = await setup();
    const cases: [Record<string, unknown>, string][] = [
      [{ no_such_key: 1 }, "no_such_key"],
      [{ payment_term_days: "14" }, "payment_term_days"],
      [{ payment_term_days: -1 }, "payment_term_days"],
      [{ payment_term_days: 1e12 }, "payment_term_days"],
      [{ payment_term_last: "next week" }, "payment_term_last"],
      [{ invoice_generate: "always" }, "invoice_generate"],
      [{ name_scheme: "nickname" }, "name_scheme"],
      [{ contact_mail: "not-an-address" }, "contact_mail"],
      [{ returnurl_prefix: "http://shop.example.org/" }, "returnurl_prefix"],
      [{ returnurl_prefix: "https://shop.example.org" }, "returnurl_prefix"],
      [{ locale: "de" }, "locale"],
      [{ attendee_names_asked: false, attendee_names_required: true }, "attendee_names_required"],
      [{ attendee_emails_required: true }, "attendee_emails_required"],
      [{ invoice_address_asked: false, invoice_address_required: true }, "invoice_address_required"],
      [{ invoice_address_company_required: true }, "invoice_address_company_required"],
      [{ invoice_address_from_country: "Germany" }, "invoice_address_from_country"],
    ];
    for (const [body, field] of cases) {
      const res = await org.client.patch(url, { payment_term_weekdays: false, ...body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body), JSON.stringify(res.body)).toEqual([field]);
    }
    expect(await db().select().from(eventSettings).where(eq(eventSettings.eventId, id))).toHaveLength(0);
    const ok = await org.client.patch(url, {
      locales: ["en", "de"],
      locale: "de",
      attendee_emails_asked: true,
      attendee_emails_required: true,
    });
    expect(ok.status).toBe(200);
    const mismatch = await org.client.patch(url, { locales: ["en"] });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body).toEqual({
      locale: ["Your default locale must also be enabled for your event (see locales)."],
    });
  });

  it("accepts only http and https URLs in URL settings, and http(s) return URL prefixes only", async () => {
    const { org, url, id } = await setup();
    const cases: [string, unknown][] = [
      ["imprint_url", "javascript:alert(1)"],
      ["privacy_url", "javascript:alert(1)"],
      ["imprint_url", "data:text/html,<script>alert(1)</script>"],
      ["privacy_url", "ftp://files.example.org/privacy"],
      ["returnurl_prefix", "javascript:alert(1)//"],
      ["returnurl_prefix", "https://shop.example.org/done/\njavascript://example.org/%0aalert(1)"],
      ["returnurl_prefix", "data:text/html,x/"],
    ];
    for (const [key, value] of cases) {
      const res = await org.client.patch(url, { payment_term_days: 3, [key]: value });
      expect(res.status, `${key}=${String(value)}`).toBe(400);
      expect(Object.keys(res.body), JSON.stringify(res.body)).toEqual([key]);
    }
    const bad = await org.client.patch(url, { imprint_url: "javascript:alert(1)" });
    expect(bad.body).toEqual({ imprint_url: ["Enter a valid URL."] });
    expect(await db().select().from(eventSettings).where(eq(eventSettings.eventId, id))).toHaveLength(0);
    const shown = await org.client.get(url);
    expect(shown.body).toMatchObject({
      imprint_url: null,
      privacy_url: null,
      returnurl_prefix: null,
      payment_term_days: 14,
    });

    const ok = await org.client.patch(url, {
      imprint_url: "https://example.org/imprint",
      privacy_url: "http://example.org/privacy",
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      imprint_url: "https://example.org/imprint",
      privacy_url: "http://example.org/privacy",
    });
  });

  it("does not accept PUT (405)", async () => {
    const { org, url } = await setup();
    const res = await org.client.put(url, { payment_term_days: 3 });
    expect(res.status).toBe(405);
    expect(res.body).toEqual({ detail: 'Method "PUT" not allowed.' });
  });

  it("needs can_change_event_settings; devices read the keys apps need and cannot change them", async () => {
    const { org, url } = await setup();
    const creator = await seedTeam(org.id, { permissions: ["can_create_events", "can_change_organizer_settings"] });
    expect((await creator.client.get(url)).status).toBe(403);
    expect((await creator.client.patch(url, { payment_term_days: 1 })).status).toBe(403);
    const device = await seedDevice(org.id);
    const read = await device.client.get(url);
    expect(read.status).toBe(200);
    expect(read.body).toHaveProperty("name_scheme", "full");
    expect(read.body).toHaveProperty("locales");
    expect(read.body).not.toHaveProperty("invoice_numbers_prefix");
    expect(read.body).not.toHaveProperty("returnurl_prefix");
    expect((await device.client.patch(url, { payment_term_days: 1 })).status).toBe(403);
    expect((await org.client.get(url)).body.payment_term_days).toBe(14);
  });

  it("keeps events apart: settings of one event do not show on another", async () => {
    const { org, url } = await setup();
    const other = await createEvent(org.client, org.slug);
    await org.client.patch(url, { payment_term_days: 2 });
    expect(
      (await org.client.get(`/api/v1/organizers/${org.slug}/events/${other.slug}/settings/`)).body.payment_term_days,
    ).toBe(14);
    const foreign = await seedOrganizer();
    expect((await foreign.client.get(url)).status).toBe(403);
  });
});

describe("return URL rule of the redirection plugin", () => {
  it("allows only URLs below a configured prefix with the plugin enabled", () => {
    const prefix = "https://shop.example.org/done/\nhttp://localhost:3000/";
    expect(returnUrlAllowed(["pretix.plugins.returnurl"], prefix, "https://shop.example.org/done/order-1")).toBe(true);
    expect(returnUrlAllowed(["pretix.plugins.returnurl"], prefix, "http://localhost:3000/x")).toBe(true);
    expect(returnUrlAllowed(["pretix.plugins.returnurl"], prefix, "https://evil.example/done/")).toBe(false);
    expect(returnUrlAllowed([], prefix, "https://shop.example.org/done/order-1")).toBe(false);
    expect(returnUrlAllowed(["pretix.plugins.returnurl"], null, "https://shop.example.org/done/")).toBe(false);
  });
});
