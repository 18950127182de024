import { describe, expect, it } from "vitest";
import { anonymous, seedOrganizer, tokenClient } from "../harness";

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
