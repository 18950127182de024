/**
 * Every customer-facing page sends the same security headers (hono/secure-headers) and renders
 * through hono/html, escaping whatever a client or organizer typed: the invitation and
 * activation pages too, which sent none before.
 */
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { mailOutbox } from "../../src/db/schema";
import { anonymous, db, seedOrganizer, unique } from "../harness";
import { getPage, placeOrder, ticketShop } from "../helpers/pages";

const SECURITY = {
  "x-frame-options": "DENY",
  "content-security-policy": "frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
  "strict-transport-security": "max-age=15552000; includeSubDomains",
  "cross-origin-opener-policy": "same-origin",
  "x-permitted-cross-domain-policies": "none",
};

function expectSecurityHeaders(headers: Headers, what: string) {
  for (const [name, value] of Object.entries(SECURITY)) expect(headers.get(name), `${what}: ${name}`).toBe(value);
}

async function linkOf(organizerId: number, kind: string, pattern: RegExp): Promise<string> {
  const mails = await db().select().from(mailOutbox).where(eq(mailOutbox.organizerId, organizerId));
  const mail = mails.find((m) => m.kind === kind)!;
  return pattern.exec(mail.textBody)![0];
}

describe("security headers of the customer pages", () => {
  it("the same on every page: order, payment, public, invitation, activation, and the 404 pages", async () => {
    const s = await ticketShop();
    const order = await placeOrder(s, { payment_provider: "manual", email: "buyer@example.org" });
    await s.client.patch(`${s.path}/`, { live: true });
    const pages: [string, string][] = [
      ["order page", order.url],
      ["payment page", order.payments[0].payment_url],
      ["organizer page", `/${s.orgSlug}/`],
      ["unknown order", `${order.url.replace(/\/order\/\w+\//, "/order/NOPE1/")}`],
    ];

    const org = await seedOrganizer();
    const team = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: "Door" });
    await org.client.post(`/api/v1/organizers/${org.slug}/teams/${team.body.id}/invites/`, {
      email: `${unique("i")}@example.org`,
    });
    pages.push(["invitation", await linkOf(org.id, "team_invite", /https?:\/\/\S+\/invite\/\w+/)]);
    pages.push(["unknown invitation", "/invite/doesnotexist"]);
    await org.client.post(`/api/v1/organizers/${org.slug}/customers/`, {
      email: `${unique("c")}@example.org`,
      send_email: true,
    });
    pages.push([
      "activation",
      await linkOf(org.id, "customer_activation", /https?:\/\/\S+\/customer\/activate\/[a-z0-9]+/),
    ]);
    pages.push(["unknown activation", "/customer/activate/doesnotexist"]);

    for (const [what, url] of pages) {
      const res = await getPage(url);
      expect(res.headers.get("content-type"), what).toMatch(/^text\/html/);
      expectSecurityHeaders(res.headers, what);
    }
  });

  it("framed with iframe=1: no framing refusal, the other headers stay", async () => {
    const s = await ticketShop();
    const order = await placeOrder(s, { payment_provider: "manual" });
    const res = await getPage(`${order.url}?iframe=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBeNull();
    expect(res.headers.get("content-security-policy")).toBeNull();
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("same-origin");
  });

  it("the API keeps its JSON answers without page headers", async () => {
    const org = await seedOrganizer();
    const res = await org.client.get(`/api/v1/organizers/${org.slug}/`);
    expect(res.headers.get("content-type")).toMatch(/json/);
    expect(res.headers.get("x-frame-options")).toBeNull();
  });
});

describe("escaping", () => {
  it("what organizers and customers typed is shown as text, never as markup", async () => {
    const hostile = `<script>alert("x")</script><img src=x onerror=alert(1)>`;
    const org = await seedOrganizer({ name: `Org ${hostile}` });
    const team = await org.client.post(`/api/v1/organizers/${org.slug}/teams/`, { name: `Team ${hostile}` });
    await org.client.post(`/api/v1/organizers/${org.slug}/teams/${team.body.id}/invites/`, {
      email: `${unique("i")}@example.org`,
    });
    const link = await linkOf(org.id, "team_invite", /https?:\/\/\S+\/invite\/\w+/);
    const page = await getPage(link);
    expect(page.status).toBe(200);
    expect(page.text).not.toContain("<script>alert");
    expect(page.text).not.toContain("<img src=x");
    expect(page.text).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");

    const accepted = await anonymous.request("POST", link, undefined, {
      raw: new URLSearchParams({ fullname: hostile }).toString(),
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    });
    expect(accepted.status).toBe(200);
    expect(accepted.text).not.toContain("<script>alert");
  });
});
