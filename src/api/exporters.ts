/**
 * Exporters (docs/api.md; pretix docs exporters.rst): the list at event and organizer
 * level, `run` (202 with the download URL), and the download URL itself: 409 with `status`
 * and `percentage` while the export is waiting or running, 200 with the file, 410 with
 * `status` `failed` and `message`, 404 when unknown or expired. Event level needs
 * can_view_orders (as pretix); organizer level any team of the organizer, with the events the
 * caller may see orders of. The rules and the job are in services/exports/jobs.ts.
 */
import { Hono } from "hono";
import { z } from "zod";
import { Failure } from "../lib/failure";
import { exportStatus, listExporters, runExport } from "../services/exports/jobs";
import { type AppContext, type AppEnv, organizerContext } from "../http/context";
import { apiDocs, type RouteDoc } from "../http/openapi";
import { listRequest, respondPage } from "../http/pagination";
import { url } from "../http/responses";
import { eventScope, organizerScope } from "../http/tenancy";

export const exporterResponse = z
  .object({
    identifier: z.string(),
    verbose_name: z.string(),
    input_parameters: z.array(
      z.object({ name: z.string(), required: z.boolean(), choices: z.array(z.string()).optional() }),
    ),
  })
  .meta({ id: "Exporter" });
export type ExporterResponse = z.infer<typeof exporterResponse>;

export const exportRunResponse = z.object({ download: url() });
export type ExportRunResponse = z.infer<typeof exportRunResponse>;

/** The download URL's answer while the export is not finished (409). */
export const exportPendingResponse = z.object({
  status: z.enum(["waiting", "running"]),
  percentage: z.number().int().nullable(),
});
export type ExportPendingResponse = z.infer<typeof exportPendingResponse>;

/** The download URL's answer when the export failed (410). */
export const exportFailedResponse = z.object({ status: z.literal("failed"), message: z.string() });
export type ExportFailedResponse = z.infer<typeof exportFailedResponse>;

export const exporterRoutes = new Hono<AppEnv>();
const ORG = "/organizers/:organizer/exporters";
const EVENT = "/organizers/:organizer/events/:event/exporters";
const orgScope = organizerScope(null);
const evScope = eventScope("can_view_orders");

function eventOf(c: AppContext) {
  return c.req.param("event") ? c.var.event : null;
}

async function list(c: AppContext) {
  const req = listRequest(c);
  const all: ExporterResponse[] = await listExporters(organizerContext(c), c.var.principal, eventOf(c));
  const start = (req.page - 1) * req.pageSize;
  return respondPage(c, req, { count: all.length, rows: all.slice(start, start + req.pageSize) }, (e) => e);
}

async function run(c: AppContext) {
  const identifier = c.req.param("identifier")!;
  const body: unknown = await c.req.json().catch(() => ({}));
  const { id } = await runExport(organizerContext(c), c.var.principal, eventOf(c), identifier, body ?? {});
  const download = new URL(`${c.req.path.replace(/\/run\/?$/, "")}/download/${id}/`, c.req.url).toString();
  return c.json({ download } satisfies ExportRunResponse, 202);
}

async function download(c: AppContext) {
  const status = await exportStatus(
    organizerContext(c),
    c.var.principal,
    eventOf(c),
    c.req.param("identifier")!,
    c.req.param("id")!,
  );
  switch (status.state) {
    case "waiting":
    case "running":
      throw new Failure("not_ready", `The export is ${status.state}.`, {
        params: { retryAfter: 1 },
        body: { status: status.state, percentage: status.percentage } satisfies ExportPendingResponse,
      });
    case "failed":
      throw new Failure("gone", status.message, {
        body: { status: "failed", message: status.message } satisfies ExportFailedResponse,
      });
    case "done":
      return new Response(status.file.body, {
        status: 200,
        headers: {
          "Content-Type": status.contentType,
          "Content-Disposition": `attachment; filename="${status.filename}"`,
          "Content-Length": String(status.file.size),
        },
      });
  }
}

const doc = apiDocs("Exporters");
const pathParams = {
  identifier: { schema: { type: "string" }, description: "The exporter's `identifier`." },
  id: {
    schema: { type: "string", format: "uuid" },
    description: "The export's id (from the `download` URL of `run`).",
  },
} satisfies RouteDoc["pathParams"];
/** The body: the exporter's input parameters, checked by the exporter (services/exports/inputs.ts). */
const runDoc = (serviceBody: z.ZodType): RouteDoc => ({
  summary: "Start an export",
  description:
    "The body holds the exporter's input parameters (see `input_parameters` of the exporter). The answer's `download` URL has the file once it is done.",
  serviceBody,
  pathParams,
});
/** Event level: an exporter may take no input at all (`json`), so the body may be left out. */
const eventRunDoc = runDoc(z.record(z.string(), z.unknown()));
/** Organizer level: every exporter has a `_format` to choose. */
const organizerRunDoc = runDoc(
  z.looseObject({ _format: z.string().describe("The file format: one of the `choices` of the exporter's `_format`.") }),
);
const downloadDoc: RouteDoc = {
  summary: "Download an export",
  pathParams,
  answers: {
    409: {
      description: "The export is waiting or running; retry later.",
      schema: exportPendingResponse,
      headers: { "Retry-After": "Seconds to wait before retrying." },
    },
    410: { description: "The export failed.", schema: exportFailedResponse },
  },
};

exporterRoutes.get(ORG, orgScope, doc.list(exporterResponse, { summary: "List the organizer's exporters" }), list);
exporterRoutes.post(`${ORG}/:identifier/run`, orgScope, doc.accepted(exportRunResponse, organizerRunDoc), run);
exporterRoutes.get(`${ORG}/:identifier/download/:id`, orgScope, doc.file(downloadDoc), download);
exporterRoutes.get(EVENT, evScope, doc.list(exporterResponse, { summary: "List the event's exporters" }), list);
exporterRoutes.post(`${EVENT}/:identifier/run`, evScope, doc.accepted(exportRunResponse, eventRunDoc), run);
exporterRoutes.get(`${EVENT}/:identifier/download/:id`, evScope, doc.file(downloadDoc), download);
