import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { customers, memberships } from "../../src/db/schema";
import { verifyPassword } from "../../src/lib/password";
import { anonymous, BASE, db, seedDevice, seedEventRow, seedOrganizer, seedTeam, unique } from "../harness";
import { customerRow, mailsTo, orderRow, seedMembershipType, seedOrder } from "../helpers/customers";

type Org = Awaited<ReturnType<typeof seedOrganizer>>;

const customersOf = (org: Org) => `/api/v1/organizers/${org.slug}/customers`;

async function createCustomer(org: Org, body: Record<string, unknown> = {}) {
  const res = await org.client.post(`${customersOf(org)}/`, body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { identifier: string; [k: string]: unknown };
}

const ISO = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);

describe("customers: create", () => {
  it("creates a customer with a generated identifier and the spec's fields", async () => {
    const org = await seedOrganizer();
    const res = await org.client.post(`${customersOf(org)}/`, {
      identifier: "IGNORED",
      name: "Ignored too",
      email: "Bar@Example.COM",
      password: "foobar-secret",
      name_parts: { _scheme: "given_family", given_name: "John", family_name: "Doe" },
      is_active: true,
      is_verified: false,
      locale: "de",
      external_identifier: "crm-17",
      notes: "VIP",
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      identifier: expect.stringMatching(/^[ABCDEFGHJKLMNPQRSTUVWXYZ23456789]{7}$/),
      external_identifier: "crm-17",
      email: "bar@example.com",
      name: "John Doe",
      name_parts: { _scheme: "given_family", given_name: "John", family_name: "Doe" },
      is_active: true,
      is_verified: false,
      last_login: null,
      date_joined: ISO,
      locale: "de",
      last_modified: ISO,
      notes: "VIP",
    });
    expect(res.text).not.toContain("password");
    expect(res.text).not.toContain("foobar-secret");
    expect(await mailsTo("bar@example.com")).toHaveLength(0);
  });

  it("applies the defaults when fields are omitted (no field is required)", async () => {
    const org = await seedOrganizer();
    const body = await createCustomer(org);
    expect(body).toMatchObject({
      external_identifier: null,
      email: null,
      name: null,
      name_parts: {},
      is_active: true,
      is_verified: true,
      locale: "en",
      notes: null,
    });
    expect((await customerRow(body.identifier))!.passwordHash).toBeNull();
  });

  it("stores the password as a salted PBKDF2-SHA256 hash and never returns it", async () => {
    const org = await seedOrganizer();
    const a = await createCustomer(org, { email: "a@example.org", password: "correct horse" });
    const b = await createCustomer(org, { email: "b@example.org", password: "correct horse" });
    const rowA = (await customerRow(a.identifier))!;
    const rowB = (await customerRow(b.identifier))!;
    expect(rowA.passwordHash).toMatch(/^pbkdf2_sha256\$100000\$[A-Za-z0-9]{22}\$[A-Za-z0-9+/]{43}=$/);
    expect(rowA.passwordHash).not.toBe(rowB.passwordHash);
    expect(rowA.passwordHash).not.toContain("correct horse");
    expect(await verifyPassword("correct horse", rowA.passwordHash)).toBe(true);
    expect(await verifyPassword("wrong horse", rowA.passwordHash)).toBe(false);
    // nowhere in any response
    for (const path of [`${customersOf(org)}/`, `${customersOf(org)}/${a.identifier}/`]) {
      const res = await org.client.get(path);
      expect(res.text).not.toContain("password");
      expect(res.text).not.toContain("pbkdf2");
    }
    const patched = await org.client.patch(`${customersOf(org)}/${a.identifier}/`, { notes: "x" });
    expect(patched.text).not.toContain("pbkdf2");
    const anonymized = await org.client.post(`${customersOf(org)}/${b.identifier}/anonymize/`);
    expect(anonymized.text).not.toContain("pbkdf2");
  });

  it("derives the name from name_parts, adding the default scheme when none is named", async () => {
    const org = await seedOrganizer();
    expect(await createCustomer(org, { name_parts: { full_name: "Jane Roe" } })).toMatchObject({
      name: "Jane Roe",
      name_parts: { full_name: "Jane Roe", _scheme: "full" },
    });
    expect(
      await createCustomer(org, {
        name_parts: { _scheme: "family_comma_given", given_name: "Jane", family_name: "Roe" },
      }),
    ).toMatchObject({
      name: "Roe, Jane",
    });
    expect(
      await createCustomer(org, {
        name_parts: { _scheme: "title_given_middle_family", title: "Dr", given_name: "Jane", family_name: "Roe" },
      }),
    ).toMatchObject({
      name: "Dr Jane Roe",
    });
  });

  it("answers 400 with field errors for invalid input and creates nothing", async () => {
    const org = await seedOrganizer();
    const cases: [Record<string, unknown>, Record<string, unknown>][] = [
      [{ email: "not-an-email" }, { email: ["Enter a valid email address."] }],
      [
        { name_parts: "should be a dictionary" },
        { name_parts: ['Expected a dictionary of items but got type "str".'] },
      ],
      [
        { name_parts: { _scheme: "klingon", full_name: "Worf" } },
        { name_parts: ['"klingon" is not a valid name scheme.'] },
      ],
      [{ name_parts: { full_name: 42 } }, { name_parts: { full_name: ["Not a valid string."] } }],
      [{ is_active: "yes" }, { is_active: ["Must be a valid boolean."] }],
      [{ locale: "not a locale" }, { locale: ['Enter a language code such as "en" or "de-formal".'] }],
      [{ password: "" }, { password: ["This field may not be blank."] }],
      [{ password: 12345678 }, { password: ["Not a valid string."] }],
      [{ send_email: true }, { email: ["An email address is required to send the activation mail."] }],
      [
        { external_identifier: "x".repeat(256) },
        { external_identifier: ["Ensure this field has no more than 255 characters."] },
      ],
    ];
    for (const [body, errors] of cases) {
      const res = await org.client.post(`${customersOf(org)}/`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body, JSON.stringify(body)).toEqual(errors);
    }
    expect((await org.client.get(`${customersOf(org)}/`)).body.count).toBe(0);
  });

  it("keeps email addresses unique per organizer, ignoring case", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    await createCustomer(org, { email: "dup@example.org" });
    const dup = await org.client.post(`${customersOf(org)}/`, { email: "DUP@example.org" });
    expect(dup.status).toBe(400);
    expect(dup.body).toEqual({ email: ["A customer with this email address already exists."] });
    expect((await org.client.get(`${customersOf(org)}/`)).body.count).toBe(1);
    await createCustomer(other, { email: "dup@example.org" });
    // several customers without an address are fine
    await createCustomer(org);
    await createCustomer(org);
  });

  it("never creates two customers with one email under parallel requests", async () => {
    const org = await seedOrganizer();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => org.client.post(`${customersOf(org)}/`, { email: "race@example.org" })),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    for (const r of results.filter((x) => x.status !== 201)) {
      expect(r.status).toBe(400);
      expect(r.body).toEqual({ email: ["A customer with this email address already exists."] });
    }
  });
});

describe("customers: activation mail and page", () => {
  async function activationLink(org: Org, address: string, extra: Record<string, unknown> = {}) {
    const customer = await createCustomer(org, { email: address, send_email: true, is_verified: false, ...extra });
    const mails = await mailsTo(address);
    expect(mails).toHaveLength(1);
    const link = /https?:\/\/\S+\/customer\/activate\/[a-z0-9]+/.exec(mails[0]!.textBody)![0];
    return { customer, link, mail: mails[0]! };
  }

  it("queues an activation mail with a link to a page that sets the password and verifies the address", async () => {
    const org = await seedOrganizer({ name: "Big Events LLC" });
    const address = `${unique("c")}@example.org`;
    const { customer, link, mail } = await activationLink(org, address, { name_parts: { full_name: "Jane Roe" } });
    expect(mail).toMatchObject({
      kind: "customer_activation",
      organizerId: org.id,
      subject: "Activate your account at Big Events LLC",
    });
    expect(mail.textBody).toContain("Hello Jane Roe,");
    expect(link.startsWith(`${BASE}/customer/activate/`)).toBe(true);
    expect((await customerRow(customer.identifier))!.passwordHash).toBeNull();

    const page = await anonymous.get(link);
    expect(page.status).toBe(200);
    expect(page.headers.get("Content-Type")).toContain("text/html");
    expect(page.text).toContain("Big Events LLC");
    expect(page.text).toContain('name="password"');

    const form = (fields: Record<string, string>) =>
      anonymous.request("POST", link, undefined, {
        raw: new URLSearchParams(fields).toString(),
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
    const short = await form({ password: "short", password_repeat: "short" });
    expect(short.status).toBe(400);
    expect(short.text).toContain("at least 8 characters");
    const mismatch = await form({ password: "long enough 1", password_repeat: "long enough 2" });
    expect(mismatch.status).toBe(400);
    expect(mismatch.text).toContain("do not match");
    expect((await customerRow(customer.identifier))!.isVerified).toBe(false);

    const done = await form({ password: "long enough 1", password_repeat: "long enough 1" });
    expect(done.status).toBe(200);
    expect(done.text).toContain("Your password has been set");
    const row = (await customerRow(customer.identifier))!;
    expect(row.isVerified).toBe(true);
    expect(await verifyPassword("long enough 1", row.passwordHash)).toBe(true);
    expect((await org.client.get(`${customersOf(org)}/${customer.identifier}/`)).body.is_verified).toBe(true);

    // the link works once
    expect((await anonymous.get(link)).status).toBe(404);
    expect((await form({ password: "another pass", password_repeat: "another pass" })).status).toBe(404);
  });

  it("refuses expired links, unknown tokens and disabled accounts", async () => {
    const org = await seedOrganizer();
    const expired = await activationLink(org, `${unique("e")}@example.org`);
    await db()
      .update(customers)
      .set({ activationExpires: Date.now() - 1 })
      .where(eq(customers.identifier, expired.customer.identifier));
    expect((await anonymous.get(expired.link)).status).toBe(404);
    expect((await anonymous.get(`${BASE}/customer/activate/doesnotexist`)).status).toBe(404);
    const disabled = await activationLink(org, `${unique("d")}@example.org`, { is_active: false });
    expect((await anonymous.get(disabled.link)).status).toBe(404);
  });

  it("sends no mail without send_email or with send_email false", async () => {
    const org = await seedOrganizer();
    const address = `${unique("n")}@example.org`;
    await createCustomer(org, { email: address, send_email: false });
    expect(await mailsTo(address)).toHaveLength(0);
    expect(
      (await customerRow((await createCustomer(org, { email: `x${address}` })).identifier))!.activationTokenHash,
    ).toBeNull();
  });
});

describe("customers: list and detail", () => {
  it("lists ordered by email with the email filter", async () => {
    const org = await seedOrganizer();
    const b = await createCustomer(org, { email: "b@example.org" });
    const none = await createCustomer(org);
    const a = await createCustomer(org, { email: "a@example.org" });
    const list = await org.client.get(`${customersOf(org)}/`);
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ count: 3, next: null, previous: null, results: [a, b, none] });
    expect((await org.client.get(`${customersOf(org)}/?email=B@EXAMPLE.ORG`)).body.results).toEqual([b]);
    expect((await org.client.get(`${customersOf(org)}/?email=c@example.org`)).body.count).toBe(0);
  });

  it("shows one customer by identifier; unknown and other organizers' identifiers are 404", async () => {
    const org = await seedOrganizer();
    const other = await seedOrganizer();
    const mine = await createCustomer(org, { email: "me@example.org" });
    const foreign = await createCustomer(other, { email: "them@example.org" });
    expect((await org.client.get(`${customersOf(org)}/${mine.identifier}/`)).body).toEqual(mine);
    expect((await org.client.get(`${customersOf(org)}/NOPE123/`)).status).toBe(404);
    expect((await org.client.get(`${customersOf(org)}/${mine.identifier.toLowerCase()}/`)).status).toBe(404);
    const reads = [
      org.client.get(`${customersOf(org)}/${foreign.identifier}/`),
      org.client.patch(`${customersOf(org)}/${foreign.identifier}/`, { notes: "x" }),
      org.client.put(`${customersOf(org)}/${foreign.identifier}/`, {}),
      org.client.post(`${customersOf(org)}/${foreign.identifier}/anonymize/`),
    ];
    for (const r of await Promise.all(reads)) {
      expect(r.status).toBe(404);
      expect(r.body).toEqual({ detail: "Not found." });
    }
    expect(await customerRow(foreign.identifier)).toMatchObject({
      email: "them@example.org",
      notes: null,
      isActive: true,
    });
  });

  it("cannot be deleted (405) and is refused to devices and teams without can_manage_customers", async () => {
    const org = await seedOrganizer();
    const c = await createCustomer(org);
    expect((await org.client.delete(`${customersOf(org)}/${c.identifier}/`)).status).toBe(405);
    expect((await (await seedDevice(org.id)).client.get(`${customersOf(org)}/`)).status).toBe(403);
    expect(
      (await (await seedTeam(org.id, { permissions: ["can_manage_gift_cards"] })).client.get(`${customersOf(org)}/`))
        .status,
    ).toBe(403);
  });
});

describe("customers: update", () => {
  it("PATCH changes the sent fields; identifier, name, date_joined, last_login, last_modified are read-only", async () => {
    const org = await seedOrganizer();
    const c = await createCustomer(org, {
      email: "old@example.org",
      password: "initial pass",
      notes: "n",
      locale: "de",
    });
    await db().update(customers).set({ lastModified: 1_000 }).where(eq(customers.identifier, c.identifier));
    const before = (await customerRow(c.identifier))!;
    const res = await org.client.patch(`${customersOf(org)}/${c.identifier}/`, {
      identifier: "HACKED",
      name: "Ignored",
      date_joined: "2000-01-01T00:00:00Z",
      last_login: "2000-01-01T00:00:00Z",
      last_modified: "2000-01-01T00:00:00Z",
      password: "changed pass",
      email: "NEW@example.org",
      name_parts: { _scheme: "given_family", given_name: "Ann", family_name: "Lee" },
      external_identifier: "ext-1",
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ...c,
      email: "new@example.org",
      name: "Ann Lee",
      name_parts: { _scheme: "given_family", given_name: "Ann", family_name: "Lee" },
      external_identifier: "ext-1",
      last_modified: expect.any(String),
    });
    expect(Date.parse(res.body.last_modified)).toBeGreaterThanOrEqual(Date.parse(c.last_modified as string));
    const after = (await customerRow(c.identifier))!;
    expect(after.identifier).toBe(c.identifier);
    expect(after.dateJoined).toBe(before.dateJoined);
    // password is settable only at creation
    expect(after.passwordHash).toBe(before.passwordHash);
    expect(await verifyPassword("initial pass", after.passwordHash)).toBe(true);
  });

  it("PATCH to an email another customer has is a 400 and changes nothing", async () => {
    const org = await seedOrganizer();
    await createCustomer(org, { email: "taken@example.org" });
    const c = await createCustomer(org, { email: "mine@example.org" });
    const res = await org.client.patch(`${customersOf(org)}/${c.identifier}/`, {
      email: "Taken@example.org",
      notes: "changed",
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ email: ["A customer with this email address already exists."] });
    expect(await customerRow(c.identifier)).toMatchObject({ email: "mine@example.org", notes: null });
    // keeping one's own address is fine
    expect((await org.client.patch(`${customersOf(org)}/${c.identifier}/`, { email: "MINE@example.org" })).status).toBe(
      200,
    );
  });

  it("PUT resets omitted fields to their defaults", async () => {
    const org = await seedOrganizer();
    const c = await createCustomer(org, {
      email: "p@example.org",
      notes: "n",
      external_identifier: "e",
      is_verified: false,
      locale: "de",
      name_parts: { full_name: "P" },
    });
    const res = await org.client.put(`${customersOf(org)}/${c.identifier}/`, { email: "p@example.org" });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      email: "p@example.org",
      notes: null,
      external_identifier: null,
      is_verified: true,
      locale: "en",
      name: null,
      name_parts: {},
    });
  });

  it("PATCH validates like create", async () => {
    const org = await seedOrganizer();
    const c = await createCustomer(org);
    const res = await org.client.patch(`${customersOf(org)}/${c.identifier}/`, {
      name_parts: "should be a dictionary",
    });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ name_parts: ['Expected a dictionary of items but got type "str".'] });
  });
});

describe("customers: anonymize", () => {
  it("removes the personal data, disconnects orders and clears membership names", async () => {
    const org = await seedOrganizer();
    const event = await seedEventRow(org.id);
    const type = await seedMembershipType(org.id);
    const c = await createCustomer(org, {
      email: "private@example.org",
      password: "secret pass",
      name_parts: { full_name: "Private Person" },
      external_identifier: "crm-9",
      notes: "likes window seats",
      send_email: true,
    });
    const keep = await createCustomer(org, { email: "keep@example.org" });
    const row = (await customerRow(c.identifier))!;
    const keepRow = (await customerRow(keep.identifier))!;
    const o1 = await seedOrder(event.id, row.id);
    const o2 = await seedOrder(event.id, row.id);
    const o3 = await seedOrder(event.id, keepRow.id);
    const m = await org.client.post(`/api/v1/organizers/${org.slug}/memberships/`, {
      customer: c.identifier,
      membership_type: type.id,
      date_start: "2030-01-01T00:00:00Z",
      date_end: "2030-12-31T00:00:00Z",
      attendee_name_parts: { _scheme: "full", full_name: "Private Person" },
    });
    expect(m.status).toBe(201);

    const res = await org.client.post(`${customersOf(org)}/${c.identifier}/anonymize/`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      identifier: c.identifier,
      external_identifier: null,
      email: null,
      name: null,
      name_parts: {},
      is_active: false,
      is_verified: false,
      last_login: null,
      date_joined: c.date_joined,
      locale: "en",
      last_modified: expect.any(String),
      notes: null,
    });
    expect((await org.client.get(`${customersOf(org)}/${c.identifier}/`)).body).toEqual(res.body);

    const after = (await customerRow(c.identifier))!;
    expect(after).toMatchObject({
      email: null,
      nameCached: null,
      nameParts: {},
      externalIdentifier: null,
      notes: null,
      passwordHash: null,
      activationTokenHash: null,
    });
    expect(JSON.stringify(after)).not.toContain("Private");
    expect(JSON.stringify(after)).not.toContain("private@example.org");
    expect((await orderRow(o1.id))!.customerId).toBeNull();
    expect((await orderRow(o2.id))!.customerId).toBeNull();
    expect((await orderRow(o3.id))!.customerId).toBe(keepRow.id);
    const membership = await db().select().from(memberships).where(eq(memberships.id, m.body.id)).get();
    expect(membership!.attendeeNameParts).toBeNull();
    expect(
      (await org.client.get(`/api/v1/organizers/${org.slug}/memberships/${m.body.id}/`)).body.attendee_name_parts,
    ).toBeNull();
    expect((await org.client.get(`${customersOf(org)}/?email=private@example.org`)).body.count).toBe(0);
    // the address is free again; a second anonymize is harmless
    await createCustomer(org, { email: "private@example.org" });
    expect((await org.client.post(`${customersOf(org)}/${c.identifier}/anonymize/`)).status).toBe(200);
    // the other customer is untouched
    expect(await customerRow(keep.identifier)).toMatchObject({ email: "keep@example.org", isActive: true });
  });
});
