/**
 * Options of choice questions (pretix docs question_options.rst): the nested endpoints under
 * a question. Reading needs access to the event; writing needs can_change_items. The rules
 * and services are in services/catalog/questions.ts (option identifiers are unique within the event;
 * without a position a new option goes last).
 */
import { Hono } from "hono";
import { listOptions } from "../services/catalog/catalog-reads";
import { notFound } from "../lib/failure";
import {
  createOption,
  deleteOption,
  loadOption,
  optionInput,
  optionPatch,
  updateOption,
} from "../services/catalog/questions";
import { type AppEnv, eventContext } from "../http/context";
import { listRequest, respondPage } from "../http/pagination";
import { apiDocs } from "../http/openapi";
import { eventScope } from "../http/tenancy";
import { jsonBody, pathId } from "../http/validation";
import { optionResponse, serializeOption } from "./questions";

export const questionOptionRoutes = new Hono<AppEnv>();
const doc = apiDocs("Question options");
const read = eventScope(null);
const write = eventScope("can_change_items");
const optionBase = "/organizers/:organizer/events/:event/questions/:question/options";

questionOptionRoutes.get(
  optionBase,
  read,
  doc.list(optionResponse, { summary: "List a question's options" }),
  async (c) => {
    const questionId = pathId(c, "question");
    const req = listRequest(c);
    const page = await listOptions(eventContext(c), questionId, req);
    if (!page.questionExists) throw notFound();
    return respondPage(c, req, page, serializeOption);
  },
);

questionOptionRoutes.get(
  `${optionBase}/:id`,
  read,
  doc.ok(optionResponse, { summary: "Question option detail" }),
  async (c) => {
    return c.json(serializeOption(await loadOption(eventContext(c), pathId(c, "question"), pathId(c, "id"))));
  },
);

questionOptionRoutes.post(
  optionBase,
  write,
  doc.created(optionResponse, { summary: "Create a question option" }),
  jsonBody(optionInput),
  async (c) => {
    return c.json(
      serializeOption(await createOption(eventContext(c), pathId(c, "question"), c.req.valid("json"))),
      201,
    );
  },
);

questionOptionRoutes.put(
  `${optionBase}/:id`,
  write,
  doc.ok(optionResponse, { summary: "Replace a question option" }),
  jsonBody(optionInput),
  async (c) => {
    return c.json(
      serializeOption(
        await updateOption(eventContext(c), pathId(c, "question"), pathId(c, "id"), c.req.valid("json"), "put"),
      ),
    );
  },
);

questionOptionRoutes.patch(
  `${optionBase}/:id`,
  write,
  doc.ok(optionResponse, { summary: "Change a question option" }),
  jsonBody(optionPatch),
  async (c) => {
    return c.json(
      serializeOption(
        await updateOption(eventContext(c), pathId(c, "question"), pathId(c, "id"), c.req.valid("json"), "patch"),
      ),
    );
  },
);

questionOptionRoutes.delete(
  `${optionBase}/:id`,
  write,
  doc.noContent({ summary: "Delete a question option" }),
  async (c) => {
    await deleteOption(eventContext(c), pathId(c, "question"), pathId(c, "id"));
    return c.body(null, 204);
  },
);
