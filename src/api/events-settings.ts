/**
 * Event settings (docs/open-points.md row 2; pretix docs events.rst "Event settings"): GET with
 * `explain`, PATCH with `null` unsetting a key; PUT is not allowed (405). Keys and their
 * documentation: EVENT_SETTINGS in services/settings. Keys not set on the event show the
 * organizer's value (for keys the organizer has) or the global default. Devices read the keys
 * box office and check-in apps need.
 */
import { type Context, Hono } from "hono";
import { z } from "zod";
import {
  changeEventSettings,
  effectiveSettings,
  eventSettingKeysFor,
  eventSettingsLevels,
  explainSettings,
  settingsPatchInput,
} from "../services/events/settings";
import { EVENT_SETTINGS } from "../services/events/settings-keys";
import { issuerWarning } from "../rules/invoice-issuer";
import { type AppEnv, eventContext } from "../http/context";
import { eventScope } from "../http/tenancy";
import { apiDocs } from "../http/openapi";
import { jsonBody, q, queryParams } from "../http/validation";
import { settingsExplainResponse, settingsResponse } from "./organizers";

export const eventSettingsResponse = settingsResponse(EVENT_SETTINGS).meta({ id: "EventSettings" });
export const eventSettingsExplainResponse = settingsExplainResponse(EVENT_SETTINGS).meta({
  id: "EventSettingsExplained",
});
type EventSettingsResponse = z.infer<typeof eventSettingsResponse>;

export const eventSettingsRoutes = new Hono<AppEnv>();

const WARNING_TEXT =
  '`Warning: 199 - "…"` while invoices are issued without the issuer\'s name or address (`invoice_address_from_name`, `invoice_address_from`; docs/documents.md).';

/** The settings' warning (an invoice issuer without name or address) as the answer's `Warning` header. */
function warnAbout(c: Context<AppEnv>, settings: Record<string, unknown>): void {
  const warning = issuerWarning(settings);
  if (warning) c.header("Warning", `199 - "${warning}"`);
}
const doc = apiDocs("Event settings");
const settingsQuery = queryParams({ explain: q.bool("each key with its value, label and help text") });
const path = "/organizers/:organizer/events/:event/settings";

eventSettingsRoutes.get(
  path,
  eventScope("event:read"),
  doc.ok(z.union([eventSettingsResponse, eventSettingsExplainResponse]), {
    summary: "Event settings",
    description: `With \`explain=true\`, each key's value, label and help text. ${WARNING_TEXT}`,
  }),
  settingsQuery,
  async (c) => {
    const { stored, parent } = await eventSettingsLevels(c.var.db, c.var.organizer.id, c.var.event.id);
    const keys = eventSettingKeysFor(c.var.principal);
    warnAbout(c, effectiveSettings(stored, EVENT_SETTINGS, parent, keys));
    if (c.req.valid("query").explain)
      return c.json<z.infer<typeof eventSettingsExplainResponse>>(
        explainSettings(stored, EVENT_SETTINGS, parent, keys),
      );
    return c.json<EventSettingsResponse>(effectiveSettings(stored, EVENT_SETTINGS, parent, keys));
  },
);

eventSettingsRoutes.patch(
  path,
  eventScope("can_change_event_settings"),
  doc.ok(eventSettingsResponse, {
    summary: "Change event settings",
    description: `\`null\` unsets a key (the organizer's value or the default shows again). ${WARNING_TEXT}`,
  }),
  jsonBody(settingsPatchInput),
  async (c) => {
    const changed = await changeEventSettings(eventContext(c), c.req.valid("json"));
    warnAbout(c, changed);
    return c.json<EventSettingsResponse>(changed);
  },
);
