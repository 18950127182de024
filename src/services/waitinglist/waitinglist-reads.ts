/**
 * What the waiting list's routes read: a page of the event's entries, scoped by the context
 * (services/scoped-reads.ts), with the row type and list ordering the routes serialize.
 */
import * as waitinglist from "../../db/waitinglist";
import { inEvent } from "../scoped-reads";

export type { WaitingEntryRow } from "../../db/waitinglist";
export { WAITINGLIST_ORDERING } from "../../db/waitinglist";

export const listWaitingEntries = inEvent(waitinglist.listWaitingEntries);
