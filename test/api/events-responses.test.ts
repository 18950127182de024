/**
 * The response schemas of the organizer, event, sub-event, meta property, seating plan and
 * settings families describe exactly what the routes send: every field of a filled-in
 * resource (nulls and values), no field more (strict), in detail views and lists.
 */
import { describe, expect, it } from "vitest";
import type { z } from "zod";
import { eventDetailResponse, eventListResponse, eventResponse } from "../../src/api/events";
import { metaPropertyResponse } from "../../src/api/events-meta";
import { eventSettingsExplainResponse, eventSettingsResponse } from "../../src/api/events-settings";
import {
  organizerResponse,
  organizerSettingsExplainResponse,
  organizerSettingsResponse,
} from "../../src/api/organizers";
import { seatingPlanResponse } from "../../src/api/seatingplans";
import { subeventListResponse, subeventResponse } from "../../src/api/subevents";
import { type Json, seedDevice, seedOrganizer } from "../harness";
import { createEvent, createMetaProperty, eventId, seedItem, seedVariation } from "../helpers/events";

type Strictable = z.ZodObject;

/** Parses `body` with the schema made strict: a field missing, of another type or unknown fails. */
function conforms(schema: Strictable, body: Json, what: string) {
  const result = schema.strict().safeParse(body);
  expect(result.success, `${what}: ${JSON.stringify(result.error?.issues)} in ${JSON.stringify(body)}`).toBe(true);
}

const LAYOUT = {
  categories: [{ name: "Stalls" }],
  zones: [{ rows: [{ row_number: "1", seats: [{ seat_guid: "s1", seat_number: "1", category: "Stalls" }] }] }],
};

describe("response schemas", () => {
  it("describe organizers, events, dates, meta properties, seating plans and settings exactly", async () => {
    const org = await seedOrganizer();
    const base = `/api/v1/organizers/${org.slug}`;

    conforms(organizerResponse, (await org.client.get(`${base}/`)).body, "organizer");
    for (const r of (await org.client.get("/api/v1/organizers/")).body.results)
      conforms(organizerResponse, r, "organizer list");

    const prop = await createMetaProperty(org.client, org.slug, {
      name: "Genre",
      choices: [{ key: "jazz", label: { en: "Jazz" } }],
      public_label: { en: "Genre" },
    });
    conforms(metaPropertyResponse, prop, "meta property");
    await createMetaProperty(org.client, org.slug, { name: "Plain" });
    for (const r of (await org.client.get(`${base}/event_meta_properties/`)).body.results)
      conforms(metaPropertyResponse, r, "meta property list");

    const plan = (await org.client.post(`${base}/seatingplans/`, { name: "Hall", layout: LAYOUT })).body;
    conforms(seatingPlanResponse, plan, "seating plan");
    for (const r of (await org.client.get(`${base}/seatingplans/`)).body.results)
      conforms(seatingPlanResponse, r, "seating plan list");

    // one event with every field filled in, one with the defaults, and a series
    const full = await createEvent(org.client, org.slug, {
      date_to: "2030-12-28T18:00:00Z",
      date_admission: "2030-12-27T09:00:00Z",
      presale_start: "2030-01-01T00:00:00Z",
      presale_end: "2030-12-26T00:00:00Z",
      location: { en: "Hall A" },
      geo_lat: 52.5,
      geo_lon: 13.4,
      meta_data: { Genre: "jazz" },
      seating_plan: plan.id,
      item_meta_properties: { color: "red" },
    });
    conforms(eventDetailResponse, full, "event detail (created)");
    const item = await seedItem(await eventId(org.id, full.slug));
    const mapped = await org.client.patch(`${base}/events/${full.slug}/`, {
      seat_category_mapping: { Stalls: item, Balcony: null },
    });
    expect(mapped.status).toBe(200);
    conforms(eventDetailResponse, mapped.body, "event detail (changed)");
    conforms(eventDetailResponse, (await org.client.get(`${base}/events/${full.slug}/`)).body, "event detail");
    await createEvent(org.client, org.slug);
    const series = await createEvent(org.client, org.slug, { has_subevents: true });
    for (const query of ["", "?with_availability_for=web"]) {
      const list = (await org.client.get(`${base}/events/${query}`)).body;
      expect(list.count).toBe(3);
      for (const r of list.results) conforms(query ? eventListResponse : eventResponse, r, `event list ${query}`);
      if (query) for (const r of list.results) expect(r).toHaveProperty("best_availability_state");
    }

    // dates: one with overrides and meta data, one with the defaults
    const seriesId = await eventId(org.id, series.slug);
    const seriesItem = await seedItem(seriesId);
    const variation = await seedVariation(seriesItem);
    const subUrl = `${base}/events/${series.slug}/subevents/`;
    const date = await org.client.post(subUrl, {
      name: { en: "Night" },
      date_from: "2030-12-27T20:00:00Z",
      date_to: "2030-12-27T23:00:00Z",
      frontpage_text: { en: "Welcome" },
      location: { en: "Club" },
      geo_lat: "48.1",
      geo_lon: 11.5,
      item_price_overrides: [{ item: seriesItem, price: "12.50", available_from: "2030-01-01T00:00:00Z" }],
      variation_price_overrides: [{ variation, disabled: true }],
      meta_data: { Genre: "jazz" },
      seating_plan: plan.id,
      seat_category_mapping: { Stalls: seriesItem },
    });
    expect(date.status, JSON.stringify(date.body)).toBe(201);
    conforms(subeventResponse, date.body, "sub-event (created)");
    expect(date.body.item_price_overrides[0].price).toBe("12.50");
    expect(date.body.variation_price_overrides[0].price).toBeNull();
    const plain = await org.client.post(subUrl, { name: { en: "Matinee" }, date_from: "2030-12-28T14:00:00Z" });
    conforms(subeventResponse, plain.body, "sub-event (defaults)");
    conforms(
      subeventResponse,
      (
        await org.client.put(`${subUrl}${plain.body.id}/`, {
          name: { en: "Matinee" },
          date_from: "2030-12-28T15:00:00Z",
        })
      ).body,
      "sub-event (PUT)",
    );
    for (const listUrl of [subUrl, `${base}/subevents/`]) {
      for (const query of ["", "?with_availability_for=web"]) {
        const list = (await org.client.get(`${listUrl}${query}`)).body;
        expect(list.count).toBe(2);
        for (const r of list.results)
          conforms(query ? subeventListResponse : subeventResponse, r, `sub-event list ${listUrl}${query}`);
      }
    }

    // settings, effective and explained, of the organizer and the event (and as a device sees them)
    await org.client.patch(`${base}/settings/`, {
      imprint_url: "https://example.org/imprint",
      contact_mail: "info@example.org",
    });
    conforms(organizerSettingsResponse, (await org.client.get(`${base}/settings/`)).body, "organizer settings");
    conforms(
      organizerSettingsExplainResponse,
      (await org.client.get(`${base}/settings/?explain=true`)).body,
      "organizer settings explained",
    );
    const settingsUrl = `${base}/events/${full.slug}/settings/`;
    const patched = await org.client.patch(settingsUrl, {
      payment_term_last: "RELDATE/1/-/date_from/",
      invoice_introductory_text: { en: "Hi" },
      returnurl_prefix: "https://shop.example.org/done/",
    });
    expect(patched.status).toBe(200);
    conforms(eventSettingsResponse, patched.body, "event settings (changed)");
    conforms(eventSettingsResponse, (await org.client.get(settingsUrl)).body, "event settings");
    conforms(
      eventSettingsExplainResponse,
      (await org.client.get(`${settingsUrl}?explain=true`)).body,
      "event settings explained",
    );
    const device = await seedDevice(org.id);
    conforms(eventSettingsResponse, (await device.client.get(settingsUrl)).body, "event settings of a device");
  });

  it("fail for a body that does not match (the check can fail)", () => {
    expect(eventResponse.strict().safeParse({}).success).toBe(false);
    const org = { name: "x", slug: "x", public_url: "http://x/" };
    expect(organizerResponse.strict().safeParse(org).success).toBe(true);
    expect(organizerResponse.strict().safeParse({ ...org, extra: 1 }).success).toBe(false);
    expect(organizerSettingsResponse.strict().safeParse({ no_such_key: 1 }).success).toBe(false);
    expect(organizerSettingsResponse.strict().safeParse({ giftcard_length: "12" }).success).toBe(false);
  });
});
