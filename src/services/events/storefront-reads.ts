/**
 * What the public pages read of the shop: an organizer and event by their slugs, the
 * organizer's public events and stored settings, an event's items on sale and its dates, the
 * labels of an order's items, variations and dates. Each read takes the database (`{ db }`: a
 * service context or the route's variables) and the ids the page found by slug.
 */
import * as storefront from "../../db/storefront";
import * as settings from "../../db/settings";
import { withDb } from "../scoped-reads";

export type { EventRecord, OrganizerRecord, ShopItem } from "../../db/storefront";

export const organizerBySlug = withDb(storefront.organizerBySlug);
export const organizerEventBySlugs = withDb(storefront.organizerEventBySlugs);
export const publicEvents = withDb(storefront.publicEvents);
export const publicSubevents = withDb(storefront.publicSubevents);
export const publicSubevent = withDb(storefront.publicSubevent);
export const shopItems = withDb(storefront.shopItems);
export const orderLabels = withDb(storefront.orderLabels);
export const storedOrganizerSettings = withDb(settings.storedOrganizerSettings);
