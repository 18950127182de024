/**
 * What the mail routes read: a page of the event's automatic mail rules, scoped by the context
 * (services/scoped-reads.ts), with the row type the routes serialize.
 */
import * as sendmail from "../../db/sendmail";
import { inEvent } from "../scoped-reads";

export type { SendmailRuleRecord } from "../../db/sendmail";

export const listSendmailRules = inEvent(sendmail.listSendmailRules);
