/**
 * Event meta properties (docs/open-points.md row 27; pretix docs event_meta_properties.rst): the keys
 * an organizer defines for the `meta_data` of events and sub-events. Reading needs access to
 * the organizer; changes need the permission to change organizer settings. The rules are in
 * services/events/event-meta.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { listMetaProperties, type MetaPropertyRecord } from "../services/events/event-reads";
import {
  changeMetaProperty,
  createMetaProperty,
  deleteMetaProperty,
  loadMetaProperty,
  metaPropertyFullInput,
  metaPropertyPatchInput,
} from "../services/events/event-meta";
import { type AppEnv, organizerContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { i18n, id } from "../http/responses";
import { organizerScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";

export const metaPropertyResponse = z
  .object({
    id: id(),
    name: z.string(),
    default: z.string(),
    required: z.boolean(),
    protected: z.boolean(),
    filter_public: z.boolean(),
    public_label: i18n().nullable(),
    filter_allowed: z.boolean(),
    choices: z.array(z.object({ key: z.string(), label: i18n().nullable() })).nullable(),
    allowed_values: z.array(z.string()).nullable(),
  })
  .meta({ id: "EventMetaProperty" });
export type MetaPropertyResponse = z.infer<typeof metaPropertyResponse>;

export function serializeMetaProperty(p: MetaPropertyRecord): MetaPropertyResponse {
  return {
    id: p.id,
    name: p.name,
    default: p.defaultValue,
    required: p.required,
    protected: p.protected,
    filter_public: p.filterPublic,
    public_label: p.publicLabel ?? null,
    filter_allowed: p.filterAllowed,
    choices: p.choices,
    allowed_values: p.choices ? p.choices.map((ch) => ch.key) : null,
  };
}

export const eventMetaRoutes = new Hono<AppEnv>();
const doc = apiDocs("Event meta properties");
const base = "/organizers/:organizer/event_meta_properties";
const read = organizerScope(null);
const write = organizerScope("can_change_organizer_settings");

eventMetaRoutes.get(
  base,
  read,
  doc.list(metaPropertyResponse, { summary: "List event meta properties" }),
  async (c) => {
    const req = listRequest(c);
    return respondPage(c, req, await listMetaProperties(organizerContext(c), req), serializeMetaProperty);
  },
);

eventMetaRoutes.get(
  `${base}/:id`,
  read,
  doc.ok(metaPropertyResponse, { summary: "Event meta property detail" }),
  async (c) => c.json(serializeMetaProperty(await loadMetaProperty(organizerContext(c), pathId(c, "id")))),
);

eventMetaRoutes.post(
  base,
  write,
  doc.created(metaPropertyResponse, { summary: "Create an event meta property" }),
  jsonBody(metaPropertyFullInput),
  async (c) => c.json(serializeMetaProperty(await createMetaProperty(organizerContext(c), c.req.valid("json"))), 201),
);

eventMetaRoutes.put(
  `${base}/:id`,
  write,
  doc.ok(metaPropertyResponse, { summary: "Replace an event meta property" }),
  jsonBody(metaPropertyFullInput),
  async (c) =>
    c.json(
      serializeMetaProperty(await changeMetaProperty(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "put")),
    ),
);

eventMetaRoutes.patch(
  `${base}/:id`,
  write,
  doc.ok(metaPropertyResponse, { summary: "Change an event meta property" }),
  jsonBody(metaPropertyPatchInput),
  async (c) =>
    c.json(
      serializeMetaProperty(
        await changeMetaProperty(organizerContext(c), pathId(c, "id"), c.req.valid("json"), "patch"),
      ),
    ),
);

eventMetaRoutes.delete(`${base}/:id`, write, doc.noContent({ summary: "Delete an event meta property" }), async (c) => {
  await deleteMetaProperty(organizerContext(c), pathId(c, "id"));
  return c.body(null, 204);
});
