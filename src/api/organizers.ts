/** Organizers and organizer settings. Organizers are created only by the operator command. */
import { Hono } from "hono";
import { z } from "zod";
import { accessibleOrganizerCount, accessibleOrganizers } from "../db/organizers";
import { organizers } from "../db/schema";
import { storedOrganizerSettings, writeOrganizerSettings } from "../db/settings";
import { effectiveSettings, explainSettings, ORGANIZER_SETTINGS, parseSettingsPatch } from "../domain/settings";
import type { AppContext, AppEnv, OrganizerRow } from "../http/context";
import { envelope, ordering, pageRequest } from "../http/pagination";
import { authenticatedScope, organizerScope } from "../http/tenancy";
import { organizerPublicUrl } from "../domain/urls";
import { publicBase } from "../http/urls";
import { jsonBody, queryBool } from "../http/validation";

export function serializeOrganizer(c: AppContext, org: OrganizerRow) {
  return { name: org.name, slug: org.slug, public_url: organizerPublicUrl(publicBase(c), org.slug) };
}

export const organizerRoutes = new Hono<AppEnv>();

organizerRoutes.get("/organizers", authenticatedScope(), async (c) => {
  const page = pageRequest(c);
  const order = ordering(c, { slug: organizers.slug, name: organizers.name }, "slug", organizers.id);
  const db = c.var.db;
  const orgId = c.var.principal.organizerId;
  const [[total], rows] = await db.batch([
    accessibleOrganizerCount(db, orgId),
    accessibleOrganizers(db, orgId, order, page.limit, page.offset),
  ]);
  return c.json(envelope(c, page, total?.n ?? 0, rows.map((o) => serializeOrganizer(c, o))));
});

organizerRoutes.get("/organizers/:organizer", organizerScope(null), (c) => c.json(serializeOrganizer(c, c.var.organizer)));

organizerRoutes.get("/organizers/:organizer/settings", organizerScope("can_change_organizer_settings"), async (c) => {
  const stored = await storedOrganizerSettings(c.var.db, c.var.organizer.id);
  return c.json(queryBool(c, "explain") ? explainSettings(stored) : effectiveSettings(stored));
});

organizerRoutes.patch(
  "/organizers/:organizer/settings",
  organizerScope("can_change_organizer_settings"),
  jsonBody(z.record(z.string(), z.unknown())),
  async (c) => {
    const { set, unset } = parseSettingsPatch(c.req.valid("json"), ORGANIZER_SETTINGS);
    return c.json(effectiveSettings(await writeOrganizerSettings(c.var.db, c.var.organizer.id, set, unset)));
  },
);
