/**
 * What the event routes read: the lists and single rows of events, their dates (subevents) and
 * the organizer's event meta properties, scoped by the context (services/scoped-reads.ts), with
 * the row types, filters and list orderings the routes serialize and describe.
 */
import * as events from "../../db/events";
import * as eventMeta from "../../db/event-meta";
import * as subevents from "../../db/subevents";
import { inEvent, inOrganizer } from "../scoped-reads";

export type { AttrFilter, EventWithMeta } from "../../db/events";
export type { MetaPropertyRecord } from "../../db/event-meta";
export type { SubeventFilter, SubeventWithDetails } from "../../db/subevents";
export { EVENT_ORDERING } from "../../db/events";
export { SUBEVENT_ORDERING } from "../../db/subevents";

export const listEvents = inOrganizer(events.listEvents);
export const findEvent = inOrganizer(events.findEvent);
export const listMetaProperties = inOrganizer(eventMeta.listMetaProperties);
export const listSubevents = inEvent(subevents.listSubevents);
export const listOrganizerSubevents = inOrganizer(subevents.listOrganizerSubevents);
