/**
 * What the waiting room's routes and page read: a page of the event's on-sale queues and the
 * queue that applies to a visit, scoped by the context (services/scoped-reads.ts), with the row
 * type the routes serialize.
 */
import * as rooms from "../../db/onsale-queues";
import { inEvent, withDb } from "../scoped-reads";

export type { OnsaleQueueRow } from "../../db/onsale-queues";

export const listOnsaleQueues = inEvent(rooms.listOnsaleQueues);
/** The queue that applies to a visit of the event `eventId` (the page has found the event by its slugs). */
export const applicableQueue = withDb(rooms.applicableQueue);
