/**
 * A newcomer builds a complete, realistic catalog through the API alone — an event series
 * with dated sub-events, items with variations and add-ons, quotas, questions, tax rules, a
 * discount, a seating plan — and reads it back with every field the spec names.
 */
import { describe, expect, it } from "vitest";
import { seedOrganizer } from "../harness";

const FIELDS = {
  event: [
    "name",
    "slug",
    "live",
    "testmode",
    "currency",
    "date_from",
    "date_to",
    "date_admission",
    "is_public",
    "presale_start",
    "presale_end",
    "location",
    "geo_lat",
    "geo_lon",
    "has_subevents",
    "meta_data",
    "plugins",
    "seating_plan",
    "seat_category_mapping",
    "timezone",
    "item_meta_properties",
    "valid_keys",
    "sales_channels",
    "public_url",
  ],
  subevent: [
    "id",
    "name",
    "event",
    "active",
    "is_public",
    "date_from",
    "date_to",
    "date_admission",
    "presale_start",
    "presale_end",
    "frontpage_text",
    "location",
    "geo_lat",
    "geo_lon",
    "item_price_overrides",
    "variation_price_overrides",
    "meta_data",
    "seating_plan",
    "seat_category_mapping",
    "last_modified",
  ],
  item: [
    "id",
    "name",
    "internal_name",
    "default_price",
    "original_price",
    "category",
    "active",
    "description",
    "free_price",
    "tax_rate",
    "tax_rule",
    "admission",
    "personalized",
    "issue_giftcard",
    "checkin_attention",
    "require_approval",
    "require_bundling",
    "generate_tickets",
    "allow_waitinglist",
    "show_quota_left",
    "allow_cancel",
    "require_voucher",
    "hide_without_voucher",
    "position",
    "picture",
    "sales_channels",
    "available_from",
    "available_until",
    "hidden_if_available",
    "min_per_order",
    "max_per_order",
    "require_membership",
    "require_membership_hidden",
    "require_membership_types",
    "grant_membership_type",
    "grant_membership_duration_like_event",
    "grant_membership_duration_days",
    "grant_membership_duration_months",
    "validity_mode",
    "validity_fixed_from",
    "validity_fixed_until",
    "validity_dynamic_duration_minutes",
    "validity_dynamic_duration_hours",
    "validity_dynamic_duration_days",
    "validity_dynamic_duration_months",
    "validity_dynamic_start_choice",
    "validity_dynamic_start_choice_day_limit",
    "has_variations",
    "variations",
    "addons",
    "bundles",
    "meta_data",
  ],
  variation: [
    "id",
    "value",
    "default_price",
    "price",
    "original_price",
    "active",
    "description",
    "position",
    "checkin_attention",
    "require_approval",
    "require_membership",
    "require_membership_hidden",
    "hide_without_voucher",
    "require_membership_types",
    "sales_channels",
    "available_from",
    "available_until",
    "meta_data",
  ],
  addon: ["addon_category", "min_count", "max_count", "position", "multi_allowed", "price_included"],
  category: ["id", "name", "internal_name", "description", "position", "is_addon"],
  question: [
    "id",
    "question",
    "help_text",
    "type",
    "required",
    "position",
    "items",
    "identifier",
    "ask_during_checkin",
    "hidden",
    "print_on_invoice",
    "options",
    "valid_number_min",
    "valid_number_max",
    "valid_date_min",
    "valid_date_max",
    "valid_datetime_min",
    "valid_datetime_max",
    "valid_file_portrait",
    "dependency_question",
    "dependency_values",
    "dependency_value",
  ],
  option: ["id", "position", "identifier", "answer"],
  taxRule: [
    "id",
    "name",
    "internal_name",
    "rate",
    "price_includes_tax",
    "eu_reverse_charge",
    "home_country",
    "keep_gross_if_rate_changes",
  ],
  discount: [
    "id",
    "active",
    "internal_name",
    "position",
    "sales_channels",
    "available_from",
    "available_until",
    "subevent_mode",
    "condition_all_products",
    "condition_limit_products",
    "condition_apply_to_addons",
    "condition_ignore_voucher_discounted",
    "condition_min_count",
    "condition_min_value",
    "benefit_discount_matching_percent",
    "benefit_only_apply_to_cheapest_n_matches",
  ],
  quota: ["id", "name", "size", "items", "variations", "subevent"],
  seatingPlan: ["id", "name", "layout"],
};

function hasFields(obj: Record<string, unknown>, fields: string[]) {
  expect(Object.keys(obj).sort()).toEqual(expect.arrayContaining([...fields].sort()));
}

describe("a complete catalog through the API alone", () => {
  it("builds an event series and reads everything back as the spec shapes it", async () => {
    const org = await seedOrganizer();
    const c = org.client;
    const o = `/api/v1/organizers/${org.slug}`;
    const ok = async (res: Promise<{ status: number; body: any }>, status = 201) => {
      const r = await res;
      expect(r.status, JSON.stringify(r.body)).toBe(status);
      return r.body;
    };

    const plan = await ok(
      c.post(`${o}/seatingplans/`, {
        name: "Main hall",
        layout: {
          categories: [{ name: "Stalls" }],
          zones: [
            {
              name: "Hall",
              rows: [{ row_number: "1", seats: [{ seat_guid: "h-1-1", seat_number: "1", category: "Stalls" }] }],
            },
          ],
        },
      }),
    );
    const event = await ok(
      c.post(`${o}/events/`, {
        name: { en: "Summer Festival", de: "Sommerfest" },
        slug: "summer",
        currency: "EUR",
        date_from: "2030-07-01T16:00:00+02:00",
        location: { en: "City park" },
        has_subevents: true,
        timezone: "Europe/Berlin",
      }),
    );
    const e = `${o}/events/summer`;
    const vat = await ok(c.post(`${e}/taxrules/`, { name: { en: "VAT" }, rate: "19.00" }));
    const extras = await ok(c.post(`${e}/categories/`, { name: { en: "Extras" }, is_addon: true }));
    const tickets = await ok(c.post(`${e}/categories/`, { name: { en: "Tickets" } }));
    const parking = await ok(
      c.post(`${e}/items/`, { name: { en: "Parking" }, default_price: "5.00", category: extras.id, tax_rule: vat.id }),
    );
    const ticket = await ok(
      c.post(`${e}/items/`, {
        name: { en: "Day ticket" },
        default_price: "39.00",
        category: tickets.id,
        tax_rule: vat.id,
        admission: true,
        variations: [{ value: { en: "Regular" } }, { value: { en: "Reduced" }, default_price: "29.00" }],
        addons: [{ addon_category: extras.id, min_count: 0, max_count: 1 }],
      }),
    );
    const day1 = await ok(
      c.post(`${e}/subevents/`, { name: { en: "Saturday" }, date_from: "2030-07-06T14:00:00+02:00", active: true }),
    );
    const day2 = await ok(
      c.post(`${e}/subevents/`, {
        name: { en: "Sunday" },
        date_from: "2030-07-07T14:00:00+02:00",
        active: true,
        item_price_overrides: [{ item: parking.id, price: "3.00" }],
        seating_plan: plan.id,
        seat_category_mapping: { Stalls: ticket.id },
      }),
    );
    const quotas = [];
    for (const day of [day1, day2]) {
      quotas.push(
        await ok(
          c.post(`${e}/quotas/`, {
            name: `Tickets ${day.name.en}`,
            size: 500,
            items: [ticket.id],
            variations: ticket.variations.map((v: { id: number }) => v.id),
            subevent: day.id,
          }),
        ),
      );
      quotas.push(
        await ok(
          c.post(`${e}/quotas/`, { name: `Parking ${day.name.en}`, size: 50, items: [parking.id], subevent: day.id }),
        ),
      );
    }
    const question = await ok(
      c.post(`${e}/questions/`, {
        question: { en: "T-shirt size" },
        type: "C",
        required: true,
        items: [ticket.id],
        options: [{ answer: { en: "S" } }, { answer: { en: "M" } }, { answer: { en: "L" } }],
      }),
    );
    const discount = await ok(
      c.post(`${e}/discounts/`, {
        internal_name: "Group of 5",
        condition_min_count: 5,
        benefit_discount_matching_percent: "10.00",
      }),
    );

    // read back
    const ev = await ok(c.get(`${e}/`), 200);
    hasFields(ev, FIELDS.event);
    expect(ev).toMatchObject({
      name: { en: "Summer Festival", de: "Sommerfest" },
      has_subevents: true,
      live: false,
      date_from: "2030-07-01T14:00:00Z",
      public_url: `http://ticketing.test/${org.slug}/summer/`,
    });
    const subs = (await ok(c.get(`${e}/subevents/`), 200)).results;
    expect(subs).toHaveLength(2);
    for (const s of subs) hasFields(s, FIELDS.subevent);
    expect(subs[1]).toMatchObject({
      id: day2.id,
      event: "summer",
      seating_plan: plan.id,
      seat_category_mapping: { Stalls: ticket.id },
    });
    expect(subs[1].item_price_overrides).toEqual([expect.objectContaining({ item: parking.id, price: "3.00" })]);
    const item = await ok(c.get(`${e}/items/${ticket.id}/`), 200);
    hasFields(item, FIELDS.item);
    expect(item).toMatchObject({
      default_price: "39.00",
      tax_rate: "19.00",
      tax_rule: vat.id,
      has_variations: true,
      category: tickets.id,
    });
    for (const v of item.variations) hasFields(v, FIELDS.variation);
    expect(item.variations.map((v: { price: string }) => v.price)).toEqual(["39.00", "29.00"]);
    hasFields(item.addons[0], FIELDS.addon);
    for (const cat of (await ok(c.get(`${e}/categories/`), 200)).results) hasFields(cat, FIELDS.category);
    const q = await ok(c.get(`${e}/questions/${question.id}/`), 200);
    hasFields(q, FIELDS.question);
    for (const opt of q.options) hasFields(opt, FIELDS.option);
    hasFields(await ok(c.get(`${e}/taxrules/${vat.id}/`), 200), FIELDS.taxRule);
    hasFields(await ok(c.get(`${e}/discounts/${discount.id}/`), 200), FIELDS.discount);
    const quotaList = (await ok(c.get(`${e}/quotas/?with_availability=true`), 200)).results;
    expect(quotaList).toHaveLength(4);
    for (const qu of quotaList) {
      hasFields(qu, FIELDS.quota);
      expect(qu.available).toBe(true);
    }
    hasFields(await ok(c.get(`${o}/seatingplans/${plan.id}/`), 200), FIELDS.seatingPlan);
    expect(event.slug).toBe("summer");

    // and it sells: a seat on Sunday, a reduced ticket with parking on Saturday
    const order = await ok(
      c.post(`${e}/orders/`, {
        email: "guest@example.org",
        positions: [
          {
            positionid: 1,
            item: ticket.id,
            variation: ticket.variations[1].id,
            subevent: day1.id,
            answers: [{ question: question.id, options: [question.options[1].id] }],
          },
          { positionid: 2, item: parking.id, subevent: day1.id, addon_to: 1 },
          {
            positionid: 3,
            item: ticket.id,
            variation: ticket.variations[0].id,
            subevent: day2.id,
            seat: "h-1-1",
            answers: [{ question: question.id, options: [question.options[0].id] }],
          },
        ],
      }),
    );
    expect(order.positions.map((p: { price: string }) => p.price)).toEqual(["29.00", "5.00", "39.00"]);
    expect(order.total).toBe("73.00");
    expect(order.positions[2].seat).toMatchObject({ seat_guid: "h-1-1" });
  });
});
