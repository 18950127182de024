/**
 * Organizers and organizer settings (docs/api.md). Organizers are created only by the
 * operator command. Settings are PATCHed through the settings service (services/events/settings.ts).
 */
import { Hono } from "hono";
import { z } from "zod";
import {
  listAccessibleOrganizers,
  ORGANIZER_ORDERING,
  storedOrganizerSettings,
} from "../services/organizers/organizer-reads";
import {
  changeOrganizerSettings,
  effectiveSettings,
  explainSettings,
  settingsPatchInput,
} from "../services/events/settings";
import { ORGANIZER_SETTINGS, type SettingsCatalog } from "../services/events/settings-keys";
import { organizerPublicUrl } from "../rules/urls";
import { type AppEnv, organizerContext, type OrganizerRow, publicBase } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { url } from "../http/responses";
import { authenticatedScope, organizerScope } from "../http/tenancy";
import { jsonBody, q, queryParams } from "../http/validation";

export const organizerResponse = z
  .object({
    name: z.string(),
    slug: z.string(),
    public_url: url(),
  })
  .meta({ id: "Organizer" });
export type OrganizerResponse = z.infer<typeof organizerResponse>;

export function serializeOrganizer(baseUrl: string, org: OrganizerRow): OrganizerResponse {
  return { name: org.name, slug: org.slug, public_url: organizerPublicUrl(baseUrl, org.slug) };
}

/**
 * The response of a settings endpoint: every key of the catalog with its value (`partial`:
 * a caller may be shown only some keys, as devices are for events). The key list is not
 * stable (docs/api.md: discovered from the output).
 */
export function settingsResponse(catalog: SettingsCatalog) {
  return z.object(Object.fromEntries(Object.entries(catalog).map(([key, def]) => [key, readSchema(def)]))).partial();
}

/** What a key reads as: its value, or for a write-only key (a secret) whether one is set. */
function readSchema(def: SettingsCatalog[string]): z.ZodType {
  return def.writeOnly ? z.boolean().meta({ description: `${def.label}: write-only, true when set.` }) : def.schema;
}

/** The response of a settings endpoint with `explain=true`: each key's value, label and help text. */
export function settingsExplainResponse(catalog: SettingsCatalog) {
  const entry = (def: SettingsCatalog[string]) =>
    z.object({ value: readSchema(def), label: z.string(), help_text: z.string() });
  return z.object(Object.fromEntries(Object.entries(catalog).map(([key, def]) => [key, entry(def)]))).partial();
}

export const organizerSettingsResponse = settingsResponse(ORGANIZER_SETTINGS).meta({ id: "OrganizerSettings" });
export const organizerSettingsExplainResponse = settingsExplainResponse(ORGANIZER_SETTINGS).meta({
  id: "OrganizerSettingsExplained",
});

export const organizerRoutes = new Hono<AppEnv>();
const doc = apiDocs("Organizers");
const settingsQuery = queryParams({ explain: q.bool("each key with its value, label and help text") });
const settingsPath = "/organizers/:organizer/settings";
const settingsScope = organizerScope("can_change_organizer_settings");

organizerRoutes.get(
  "/organizers",
  authenticatedScope(),
  doc.list(organizerResponse, { summary: "List the organizers of the credential", ordering: ORGANIZER_ORDERING }),
  async (c) => {
    const req = listRequest(c);
    const page = await listAccessibleOrganizers({ db: c.var.db }, c.var.principal.organizerId, req);
    const baseUrl = publicBase(c);
    return respondPage(c, req, page, (o) => serializeOrganizer(baseUrl, o));
  },
);

organizerRoutes.get(
  "/organizers/:organizer",
  organizerScope(null),
  doc.ok(organizerResponse, { summary: "Organizer detail" }),
  (c) => c.json(serializeOrganizer(publicBase(c), c.var.organizer)),
);

organizerRoutes.get(
  settingsPath,
  settingsScope,
  doc.ok(z.union([organizerSettingsResponse, organizerSettingsExplainResponse]), {
    summary: "Organizer settings",
    description: "With `explain=true`, each key's value, label and help text.",
  }),
  settingsQuery,
  async (c) => {
    const stored = await storedOrganizerSettings(organizerContext(c));
    if (c.req.valid("query").explain)
      return c.json<z.infer<typeof organizerSettingsExplainResponse>>(explainSettings(stored));
    return c.json<z.infer<typeof organizerSettingsResponse>>(effectiveSettings(stored));
  },
);

organizerRoutes.patch(
  settingsPath,
  settingsScope,
  doc.ok(organizerSettingsResponse, {
    summary: "Change organizer settings",
    description: "`null` unsets a key (the default shows again).",
  }),
  jsonBody(settingsPatchInput),
  async (c) =>
    c.json<z.infer<typeof organizerSettingsResponse>>(
      await changeOrganizerSettings(organizerContext(c), c.req.valid("json")),
    ),
);
