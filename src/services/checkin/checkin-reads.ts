/**
 * What the check-in routes read: check-in lists with their counts and status, the tickets of a
 * list or of several lists, a list's history, a ticket's add-ons, the event's devices, and the
 * items, variations, dates and questions a scan's answer expands. Organizer-level scans cover
 * several events, so most reads take the event's id besides the database (`{ db }`: a service
 * context or the route's variables); the device reads are scoped by the context
 * (services/scoped-reads.ts).
 */
import * as devices from "../../db/devices";
import * as events from "../../db/events";
import * as items from "../../db/items";
import * as variations from "../../db/item-variations";
import * as questions from "../../db/questions";
import * as subevents from "../../db/subevents";
import * as history from "../../db/checkin/history";
import * as lists from "../../db/checkin/lists";
import * as status from "../../db/checkin/status";
import * as ticketRows from "../../db/checkin/ticket-rows";
import * as tickets from "../../db/checkin/tickets";
import type { checkins } from "../../db/schema";
import { inEvent, inOrganizer, withDb } from "../scoped-reads";

/** A check-in (a scan) as stored. */
export type CheckinRow = typeof checkins.$inferSelect;

export type { DeviceRecord } from "../../db/devices";
export type { CheckinListRecord } from "../../db/checkin/lists";
export type { CheckinJson } from "../../db/checkin/passages";
export type { ScanCounts } from "../../db/checkin/status";
export type { CheckinPositionRow } from "../../db/checkin/ticket-rows";
export { HISTORY_ORDERING } from "../../db/checkin/history";
export { CHECKIN_LIST_ORDERING } from "../../db/checkin/lists";
export { positionOrdering } from "../../db/checkin/tickets";

export const listDevices = inOrganizer(devices.listDevices);
export const findDevice = inOrganizer(devices.findDevice);
export const listCheckinLists = inEvent(lists.listCheckinLists);
export const checkinListStatus = withDb(status.checkinListStatus);
export const checkinHistory = inEvent(history.checkinHistory);
export const listCheckinPositions = withDb(tickets.listCheckinPositions);
export const listTicketsOfList = withDb(tickets.listTicketsOfList);
export const findCheckinPosition = withDb(tickets.findCheckinPosition);
export const checkinAddonsOf = withDb(ticketRows.checkinAddonsOf);
export const findEvent = withDb(events.findEvent);
export const findItem = withDb(items.findItem);
export const findVariation = withDb(variations.findVariation);
export const findSubevent = withDb(subevents.findSubevent);
export const questionRecordsByIds = withDb(questions.questionRecordsByIds);
