/**
 * What the ticket routes read: the event's ticket layouts and their item assignments, its
 * revoked and blocked ticket secrets, scoped by the context (services/scoped-reads.ts), with the
 * row types and list orderings the routes serialize and describe.
 */
import * as layouts from "../../db/ticketlayouts";
import * as secrets from "../../db/ticket-secrets";
import { inEvent } from "../scoped-reads";

export type { LayoutItemRow, TicketLayoutRecord } from "../../db/ticketlayouts";
export type { BlockedSecretRow, RevokedSecretRow } from "../../db/ticket-secrets";
export { BLOCKED_ORDERING, REVOKED_ORDERING } from "../../db/ticket-secrets";

export const listTicketLayouts = inEvent(layouts.listTicketLayouts);
export const listLayoutItems = inEvent(layouts.listLayoutItems);
export const listRevokedSecrets = inEvent(secrets.listRevokedSecrets);
export const listBlockedSecrets = inEvent(secrets.listBlockedSecrets);
