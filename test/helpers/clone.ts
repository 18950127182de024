/**
 * Helpers for the event cloning tests: a rich source event built through the API (settings,
 * meta data, seating, tax rules, categories, items with variations / add-ons / bundles /
 * membership types / pictures, quotas, questions with options and dependencies), the things a
 * clone must NOT copy (sub-events, vouchers, discounts, email rules, ticket layouts, orders),
 * and a reader that loads an event's whole catalog through the API.
 */
import { expect } from "vitest";
import { type Client, type Json, seedOrderRow, unique } from "../harness";
import { eventId } from "./events";
import { upload } from "./items";

export type Org = { id: number; slug: string; client: Client };

export const orgPath = (org: Org) => `/api/v1/organizers/${org.slug}`;
export const eventPath = (org: Org, slug: string) => `${orgPath(org)}/events/${slug}`;

async function post(client: Client, path: string, body: unknown): Promise<Json> {
  const res = await client.post(path, body);
  expect(res.status, `POST ${path}: ${JSON.stringify(res.body)}`).toBe(201);
  return res.body;
}

async function patch(client: Client, path: string, body: unknown): Promise<Json> {
  const res = await client.patch(path, body);
  expect(res.status, `PATCH ${path}: ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

export const SEATING_LAYOUT = {
  name: "Hall",
  categories: [{ name: "Stalls" }, { name: "Balcony" }],
  size: { width: 100, height: 100 },
  zones: [
    {
      name: "Floor",
      position: { x: 0, y: 0 },
      rows: [
        {
          row_number: "1",
          position: { x: 0, y: 0 },
          seats: [
            { seat_guid: "s-1", seat_number: "1", category: "Stalls", position: { x: 0, y: 0 } },
            { seat_guid: "b-1", seat_number: "2", category: "Balcony", position: { x: 10, y: 0 } },
          ],
        },
      ],
    },
  ],
};

export type RichSource = {
  slug: string;
  path: string;
  id: number;
  metaProperty: string;
  membershipTypeId: number;
  seatingPlanId: number;
};

/**
 * Builds the rich source event of `org`. Names of tax rules, categories, items, quotas and
 * questions are unique within it, so copies can be matched to their originals by name.
 */
export async function buildRichSource(org: Org): Promise<RichSource> {
  const c = org.client;
  const metaProperty = unique("Format");
  await post(c, `${orgPath(org)}/event_meta_properties/`, { name: metaProperty, default: "Talk" });
  const membershipType = await post(c, `${orgPath(org)}/membershiptypes/`, { name: "Season pass" });
  const plan = await post(c, `${orgPath(org)}/seatingplans/`, { name: "Hall", layout: SEATING_LAYOUT });

  const slug = unique("src");
  await post(c, `${orgPath(org)}/events/`, {
    name: { en: "Source conference" },
    slug,
    currency: "USD",
    date_from: "2030-05-10T10:00:00Z",
    date_to: "2030-05-11T18:00:00Z",
    date_admission: "2030-05-10T09:00:00Z",
    presale_start: "2030-01-01T00:00:00Z",
    location: { en: "Old hall" },
    is_public: false,
    testmode: true,
    plugins: ["pretix.plugins.banktransfer", "pretix.plugins.ticketoutputpdf", "pretix.plugins.returnurl"],
    timezone: "Europe/Berlin",
    sales_channels: ["web", "pretixpos"],
    item_meta_properties: { color: "blue" },
    meta_data: { [metaProperty]: "Conference" },
    seating_plan: plan.id,
  });
  const path = eventPath(org, slug);
  await patch(c, `${path}/settings/`, {
    max_items_per_order: 5,
    returnurl_prefix: "https://example.org/return/",
    locales: ["en", "de"],
  });

  const vat19 = await post(c, `${path}/taxrules/`, {
    name: { en: "VAT 19" },
    rate: "19.00",
    internal_name: "standard",
  });
  const vat7 = await post(c, `${path}/taxrules/`, { name: { en: "VAT 7" }, rate: "7.00", price_includes_tax: false });
  const tickets = await post(c, `${path}/categories/`, { name: { en: "Tickets" }, position: 3 });
  const extras = await post(c, `${path}/categories/`, { name: { en: "Extras" }, position: 5, is_addon: true });

  const picture = await upload(c, "image/png", "ticket.png");
  const ticket = await post(c, `${path}/items/`, {
    name: { en: "Ticket" },
    default_price: "30.00",
    category: tickets.id,
    tax_rule: vat19.id,
    admission: true,
    position: 7,
    picture,
    meta_data: { color: "red" },
    require_membership: true,
    require_membership_types: [membershipType.id],
    variations: [
      { value: { en: "Regular" }, default_price: "30.00", position: 1 },
      { value: { en: "Reduced" }, default_price: "20.00", position: 2, require_membership_types: [membershipType.id] },
    ],
    addons: [{ addon_category: extras.id, min_count: 0, max_count: 2, price_included: true }],
  });
  const shirt = await post(c, `${path}/items/`, {
    name: { en: "T-Shirt" },
    default_price: "15.00",
    category: extras.id,
    tax_rule: vat7.id,
    position: 2,
  });
  const reduced = ticket.variations[1];
  const combo = await post(c, `${path}/items/`, {
    name: { en: "Combo" },
    default_price: "40.00",
    category: tickets.id,
    tax_rule: vat19.id,
    grant_membership_type: membershipType.id,
    bundles: [
      { bundled_item: ticket.id, bundled_variation: reduced.id, count: 1, designated_price: "5.00" },
      { bundled_item: shirt.id, count: 2 },
    ],
  });
  const main = await post(c, `${path}/quotas/`, {
    name: "Main",
    size: 100,
    items: [ticket.id, combo.id],
    variations: [ticket.variations[0].id, reduced.id],
    close_when_sold_out: true,
  });
  await post(c, `${path}/quotas/`, { name: "Shirts", size: 50, items: [shirt.id], closed: true });
  await post(c, `${path}/items/`, {
    name: { en: "Late ticket" },
    default_price: "50.00",
    hidden_if_available: main.id,
  });
  await patch(c, `${path}/`, { seat_category_mapping: { Stalls: ticket.id, Balcony: null } });

  const size = await post(c, `${path}/questions/`, {
    question: { en: "Size" },
    type: "C",
    identifier: "SIZE",
    items: [ticket.id, shirt.id],
    options: [
      { answer: { en: "S" }, identifier: "size-s" },
      { answer: { en: "M" }, identifier: "size-m" },
    ],
  });
  await post(c, `${path}/questions/`, {
    question: { en: "Fit" },
    type: "S",
    identifier: "FIT",
    items: [shirt.id],
    dependency_question: size.id,
    dependency_values: ["size-m"],
  });
  await post(c, `${path}/questions/`, {
    question: { en: "Age" },
    type: "N",
    identifier: "AGE",
    required: true,
    valid_number_min: "0",
  });

  return {
    slug,
    path,
    id: await eventId(org.id, slug),
    metaProperty,
    membershipTypeId: membershipType.id,
    seatingPlanId: plan.id,
  };
}

/** Objects of the source that a clone must not copy. */
export async function addUncopiedObjects(org: Org, src: RichSource) {
  const c = org.client;
  const items = (await c.get(`${src.path}/items/`)).body.results as Json[];
  await post(c, `${src.path}/vouchers/`, { code: unique("VOUCHER").toUpperCase(), item: items[0].id });
  await post(c, `${src.path}/discounts/`, {
    internal_name: "Group",
    condition_min_count: 3,
    benefit_discount_matching_percent: "10.00",
  });
  await post(c, `${src.path}/sendmail_rules/`, {
    subject: { en: "Hi" },
    template: { en: "Hello" },
    send_date: "2030-05-01T10:00:00Z",
  });
  await post(c, `${src.path}/ticketlayouts/`, { name: "Default", default: true, layout: [] });
  await seedOrderRow(src.id);
}

/** Every list of an event's catalog, read through the API. */
export async function readCatalog(client: Client, path: string) {
  const list = async (p: string) => {
    const res = await client.get(`${path}${p}`);
    expect(res.status, `GET ${p}: ${JSON.stringify(res.body)}`).toBe(200);
    return res.body.results as Json[];
  };
  const event = (await client.get(`${path}/`)).body;
  const settings = (await client.get(`${path}/settings/`)).body;
  return {
    event,
    settings,
    taxrules: await list("/taxrules/"),
    categories: await list("/categories/"),
    items: await list("/items/?ordering=id"),
    quotas: await list("/quotas/"),
    questions: await list("/questions/"),
  };
}

export type Catalog = Awaited<ReturnType<typeof readCatalog>>;

/** Source id → copy id, matching objects by a key (their names are unique). */
export function idMap(src: Json[], copy: Json[], key: (o: Json) => string): Map<number, number> {
  expect(copy.map(key).sort()).toEqual(src.map(key).sort());
  const byKey = new Map(copy.map((o) => [key(o), o.id as number]));
  return new Map(src.map((o) => [o.id as number, byKey.get(key(o))!]));
}
