/**
 * Event settings (spec open point 2; pretix docs events.rst "Event settings"): GET with
 * `explain`, PATCH with `null` unsetting a key; PUT is not allowed (405). Keys and their
 * documentation: EVENT_SETTINGS in domain/settings. Keys not set on the event show the
 * organizer's value (for keys the organizer has) or the global default. Devices read the keys
 * box office and check-in apps need.
 */
import { Hono } from "hono";
import { z } from "zod";
import { writeEventSettings } from "../db/events";
import { eventSettingsLevels } from "../domain/settings";
import {
  DEVICE_EVENT_SETTING_KEYS,
  effectiveSettings,
  EVENT_SETTINGS,
  eventSettingsErrors,
  explainSettings,
  parseSettingsPatch,
} from "../domain/settings";
import type { AppContext, AppEnv } from "../http/context";
import { validationError } from "../domain/failure";
import { eventScope } from "../http/tenancy";
import { jsonBody, queryBool } from "../http/validation";

const levels = (c: AppContext) => eventSettingsLevels(c.var.db, c.var.organizer.id, c.var.event.id);

export const eventSettingsRoutes = new Hono<AppEnv>();
const path = "/organizers/:organizer/events/:event/settings";

eventSettingsRoutes.get(path, eventScope("event:read"), async (c) => {
  const { stored, parent } = await levels(c);
  const keys = c.var.principal.kind === "device" ? DEVICE_EVENT_SETTING_KEYS : Object.keys(EVENT_SETTINGS);
  return c.json(
    queryBool(c, "explain") ? explainSettings(stored, EVENT_SETTINGS, parent, keys) : effectiveSettings(stored, EVENT_SETTINGS, parent, keys),
  );
});

eventSettingsRoutes.patch(path, eventScope("can_change_event_settings"), jsonBody(z.record(z.string(), z.unknown())), async (c) => {
  const { set, unset } = parseSettingsPatch(c.req.valid("json"), EVENT_SETTINGS);
  const { stored, parent } = await levels(c);
  const after = { ...stored, ...set };
  for (const key of unset) delete after[key];
  const errors = eventSettingsErrors(effectiveSettings(after, EVENT_SETTINGS, parent));
  if (Object.keys(errors).length) throw validationError(errors);
  await writeEventSettings(c.var.db, c.var.event.id, set, unset);
  return c.json(effectiveSettings(after, EVENT_SETTINGS, parent));
});
