/**
 * What the organizer's routes read: the lists and single rows of customers, memberships and
 * their types, teams with their members, invites and tokens, webhooks and their calls, the
 * organizers a credential reaches and the organizer's stored settings, scoped by the context
 * (services/scoped-reads.ts), with the row types and list orderings the routes serialize.
 */
import * as customers from "../../db/customers";
import * as memberships from "../../db/memberships";
import * as membershipTypes from "../../db/membership-types";
import * as teams from "../../db/teams";
import * as webhooks from "../../db/webhooks";
import * as organizers from "../../db/organizers";
import * as settings from "../../db/settings";
import { inOrganizer, withDb } from "../scoped-reads";

export type { CustomerRow } from "../../db/customers";
export type { MembershipRecord } from "../../db/memberships";
export type { MembershipTypeRow } from "../../db/membership-types";
export type { InviteRecord, MemberRecord, TeamRecord, TokenRecord } from "../../db/teams";
export type { WebhookCallRow, WebhookRecord } from "../../db/webhooks";
export { TEAM_FLAG_COLUMNS } from "../../db/teams";
export { WEBHOOK_CALL_ORDERING } from "../../db/webhooks";
export { ORGANIZER_ORDERING } from "../../db/organizers";

export const listCustomers = inOrganizer(customers.listCustomers);
export const findCustomer = inOrganizer(customers.findCustomer);
export const listMemberships = inOrganizer(memberships.listMemberships);
export const findMembership = inOrganizer(memberships.findMembership);
export const listMembershipTypes = inOrganizer(membershipTypes.listMembershipTypes);
export const findMembershipType = inOrganizer(membershipTypes.findMembershipType);
export const listTeams = inOrganizer(teams.listTeams);
export const findTeam = inOrganizer(teams.findTeam);
export const listMembers = inOrganizer(teams.listMembers);
export const findMember = inOrganizer(teams.findMember);
export const listInvites = inOrganizer(teams.listInvites);
export const findInvite = inOrganizer(teams.findInvite);
export const listTokens = inOrganizer(teams.listTokens);
export const findToken = inOrganizer(teams.findToken);
export const listWebhooks = inOrganizer(webhooks.listWebhooks);
export const findWebhook = inOrganizer(webhooks.findWebhook);
export const listWebhookCalls = inOrganizer(webhooks.listWebhookCalls);
export const findWebhookCall = inOrganizer(webhooks.findWebhookCall);
export const storedOrganizerSettings = inOrganizer(settings.storedOrganizerSettings);
/** The organizers a credential of `organizerId` reaches (its own): no organizer context yet. */
export const listAccessibleOrganizers = withDb(organizers.listAccessibleOrganizers);
