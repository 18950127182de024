/**
 * The links the organizer's people follow: a customer account's activation link and a team
 * invite's link. Each finds its row by the token (customers by the token's hash) and accepts it
 * once; the pages (src/pages/customer-activation.ts, src/pages/invite.ts) show the answers.
 */
import * as customers from "../../db/customers";
import * as organizers from "../../db/organizers";
import * as teams from "../../db/teams";
import { withDb } from "../scoped-reads";

export const findOrganizerById = withDb(organizers.findOrganizerById);
export const findCustomerByActivationToken = withDb(customers.findCustomerByActivationToken);
export const activateCustomer = withDb(customers.activateCustomer);
export const findInviteByToken = withDb(teams.findInviteByToken);
export const acceptInvite = withDb(teams.acceptInvite);
