/**
 * Event settings (spec open point 2; pretix docs events.rst "Event settings"): GET with
 * `explain`, PATCH with `null` unsetting a key; PUT is not allowed (405). Keys and their
 * documentation: EVENT_SETTINGS in domain/settings. Keys not set on the event show the
 * organizer's value (for keys the organizer has) or the global default. Devices read the keys
 * box office and check-in apps need.
 */
import { Hono } from "hono";
import type { z } from "zod";
import {
  changeEventSettings,
  effectiveSettings,
  EVENT_SETTINGS,
  eventSettingKeysFor,
  eventSettingsLevels,
  explainSettings,
  settingsPatchInput,
} from "../domain/settings";
import { type AppEnv, eventContext } from "../http/context";
import { eventScope } from "../http/tenancy";
import { jsonBody, queryBool } from "../http/validation";
import { settingsExplainResponse, settingsResponse } from "./organizers";

export const eventSettingsResponse = settingsResponse(EVENT_SETTINGS);
export const eventSettingsExplainResponse = settingsExplainResponse(EVENT_SETTINGS);
type EventSettingsResponse = z.infer<typeof eventSettingsResponse>;

export const eventSettingsRoutes = new Hono<AppEnv>();
const path = "/organizers/:organizer/events/:event/settings";

eventSettingsRoutes.get(path, eventScope("event:read"), async (c) => {
  const { stored, parent } = await eventSettingsLevels(c.var.db, c.var.organizer.id, c.var.event.id);
  const keys = eventSettingKeysFor(c.var.principal);
  if (queryBool(c, "explain")) return c.json<z.infer<typeof eventSettingsExplainResponse>>(explainSettings(stored, EVENT_SETTINGS, parent, keys));
  return c.json<EventSettingsResponse>(effectiveSettings(stored, EVENT_SETTINGS, parent, keys));
});

eventSettingsRoutes.patch(path, eventScope("can_change_event_settings"), jsonBody(settingsPatchInput), async (c) =>
  c.json<EventSettingsResponse>(await changeEventSettings(eventContext(c), c.req.valid("json"))),
);
