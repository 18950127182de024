import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { organizerSettings } from "../../src/db/schema";
import { anonymous, db, seedOrganizer, seedTeam, tokenClient } from "../harness";

describe("organizers", () => {
  it("lists the caller's organizer with public_url", async () => {
    const org = await seedOrganizer({ name: "Big Events LLC" });
    const res = await org.client.get("/api/v1/organizers/");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      count: 1,
      next: null,
      previous: null,
      results: [{ name: "Big Events LLC", slug: org.slug, public_url: `http://ticketing.test/${org.slug}/` }],
    });
  });

  it("answers 401 without or with a wrong token", async () => {
    const missing = await anonymous.get("/api/v1/organizers/");
    expect(missing.status).toBe(401);
    expect(missing.body).toEqual({ detail: "Authentication credentials were not provided." });
    const wrong = await tokenClient("wrong").get("/api/v1/organizers/");
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ detail: "Invalid token." });
  });
});

describe("organizer settings", () => {
  it("shows defaults, explains keys, sets and unsets values", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/settings/`;
    const initial = await org.client.get(url);
    expect(initial.status).toBe(200);
    expect(initial.body).toMatchObject({
      locales: ["en"],
      contact_mail: null,
      customer_accounts: false,
      giftcard_length: 12,
    });

    const explained = await org.client.get(`${url}?explain=true`);
    expect(Object.keys(explained.body).sort()).toEqual(Object.keys(initial.body).sort());
    expect(explained.body.contact_mail).toEqual({
      value: null,
      label: "Contact address",
      help_text: "Reply-To address of mails sent to customers; shown on customer-facing pages.",
    });

    const patched = await org.client.patch(url, { contact_mail: "info@example.org", locales: ["de", "en"] });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      contact_mail: "info@example.org",
      locales: ["de", "en"],
      giftcard_length: 12,
    });
    expect((await org.client.get(url)).body.contact_mail).toBe("info@example.org");

    const unset = await org.client.patch(url, { contact_mail: null });
    expect(unset.body.contact_mail).toBeNull();
    expect(unset.body.locales).toEqual(["de", "en"]);
    const reset = await org.client.patch(url, { locales: null });
    expect(reset.body.locales).toEqual(["en"]);
  });

  it("validates values by type and rejects unknown keys, changing nothing", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/settings/`;
    const res = await org.client.patch(url, {
      contact_mail: "nope",
      giftcard_length: "long",
      colour: "red",
      locales: ["en"],
    });
    expect(res.status).toBe(400);
    expect(res.body.contact_mail).toEqual(["Enter a valid email address."]);
    expect(res.body.giftcard_length).toEqual(["A valid integer is required."]);
    expect(res.body.colour[0]).toMatch(/^Unknown setting/);
    expect(res.body).not.toHaveProperty("locales");
    expect((await org.client.get(url)).body.locales).toEqual(["en"]);
  });

  it("accepts only http and https URLs in URL settings (400 with field errors, nothing changes)", async () => {
    const org = await seedOrganizer();
    const url = `/api/v1/organizers/${org.slug}/settings/`;
    const bad = [
      "javascript:alert(1)",
      "JavaScript:alert(document.cookie)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "ftp://files.example.org/imprint",
      "file:///etc/passwd",
      "http:/example.org",
    ];
    for (const value of bad) {
      for (const key of ["imprint_url", "privacy_url"]) {
        const res = await org.client.patch(url, { contact_mail: "info@example.org", [key]: value });
        expect(res.status, `${key}=${value}`).toBe(400);
        expect(res.body, `${key}=${value}`).toEqual({ [key]: ["Enter a valid URL."] });
      }
    }
    const after = await org.client.get(url);
    expect(after.body).toMatchObject({ imprint_url: null, privacy_url: null, contact_mail: null });
    const stored = await db().select().from(organizerSettings).where(eq(organizerSettings.organizerId, org.id));
    expect(stored).toEqual([]);

    const ok = await org.client.patch(url, {
      imprint_url: "https://org.example.org/imprint",
      privacy_url: "http://org.example.org/privacy",
    });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      imprint_url: "https://org.example.org/imprint",
      privacy_url: "http://org.example.org/privacy",
    });
  });

  it("needs can_change_organizer_settings and does not accept PUT", async () => {
    const org = await seedOrganizer();
    const weak = await seedTeam(org.id, { permissions: ["can_change_teams"] });
    const url = `/api/v1/organizers/${org.slug}/settings/`;
    expect((await weak.client.get(url)).status).toBe(403);
    expect((await weak.client.patch(url, { contact_mail: null })).status).toBe(403);
    const put = await org.client.put(url, { contact_mail: null });
    expect(put.status).toBe(405);
    expect(put.body).toEqual({ detail: 'Method "PUT" not allowed.' });
  });

  it("shows the organizer detail to any team of the organizer", async () => {
    const org = await seedOrganizer({ name: "Detail Org" });
    const weak = await seedTeam(org.id, { permissions: [] });
    const res = await weak.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ name: "Detail Org", slug: org.slug, public_url: `http://ticketing.test/${org.slug}/` });
  });
});
