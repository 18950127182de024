/**
 * The on-sale queue's public endpoints (docs/onsale-queue.md): join, status and the live
 * socket. No credential (the app's public paths); the queue ticket is the visitor's identity.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppContext, AppEnv } from "../http/context";
import { apiDocs } from "../http/openapi";
import { dateTime, id } from "../http/responses";
import { publicScope } from "../http/tenancy";
import { jsonBody, q, queryParams } from "../http/validation";
import { joinQueue, openLiveSocket, type QueueSlugs, queueStatus } from "../services/waiting-room/visitors";

/** The header that carries the queue ticket to `status/`. */
export const QUEUE_TICKET_HEADER = "X-Queue-Ticket";

export const queueStatusResponse = z
  .object({
    queue: id(),
    state: z.enum(["waiting", "admitted", "expired", "closed"]),
    opens_at: dateTime(),
    position: z
      .number()
      .int()
      .nullable()
      .meta({ description: "1-based place; null before the opening of a shuffled queue" }),
    ahead: z.number().int().nullable().meta({ description: "visitors ahead not yet admitted" }),
    estimated_wait_seconds: z.number().int().nullable(),
    poll_seconds: z.number().int().meta({ description: "when to ask again" }),
    admission: z
      .object({ token: z.string(), expires: dateTime(), orders_allowed: z.number().int() })
      .nullable()
      .meta({ description: "the admission token (header `X-Queue-Admission` of carts and orders) once admitted" }),
  })
  .meta({ id: "QueueStatus" });

export const queueJoinResponse = queueStatusResponse
  .extend({ ticket: z.string().meta({ description: "the queue ticket: send it as `X-Queue-Ticket`" }) })
  .meta({ id: "QueueJoin" });

const joinInput = z.object({ subevent: z.number().int().nullable().optional() });

function slugs(c: AppContext): QueueSlugs {
  return { organizer: c.req.param("organizer")!, event: c.req.param("event")! };
}

export const queueRoutes = new Hono<AppEnv>();
const doc = apiDocs("On-sale queue");
const base = "/organizers/:organizer/events/:event/queue";

queueRoutes.post(
  `${base}/join`,
  publicScope(),
  doc.created(queueJoinResponse, {
    summary: "Join the event's on-sale queue",
    description:
      "No credential. Joins the active queue of the event (or of the date `subevent`); the answer carries the queue ticket. 404 when no active queue applies.",
    failures: ["not_found", "unavailable"],
  }),
  jsonBody(joinInput),
  async (c) => {
    const body = await joinQueue(c.env, c.var.db, slugs(c), c.req.valid("json").subevent ?? null, Date.now());
    return c.json(body, 201);
  },
);

queueRoutes.get(
  `${base}/status`,
  publicScope(),
  doc.ok(queueStatusResponse, {
    summary: "A visitor's place in the on-sale queue",
    description: `No credential; the queue ticket in the header \`${QUEUE_TICKET_HEADER}\`. 400 for a missing, malformed or forged ticket, 404 for another event's.`,
    failures: ["invalid", "not_found", "unavailable"],
  }),
  async (c) => {
    return c.json(await queueStatus(c.env, c.var.db, slugs(c), c.req.header(QUEUE_TICKET_HEADER), Date.now()));
  },
);

queueRoutes.get(
  `${base}/live`,
  publicScope(),
  doc.ok(queueStatusResponse, {
    summary: "A visitor's place, pushed live (WebSocket)",
    description:
      "No credential; a WebSocket upgrade with the queue ticket in `ticket`. Each message is a `QueueStatus`, sent on connecting and whenever the queue moves; the socket closes once the visitor is admitted (or the admission expired, or the queue closed). A message sent by the client asks for the status again.",
    failures: ["invalid", "not_found", "unavailable"],
    answers: { 101: { description: "Switching protocols: the WebSocket is open." } },
  }),
  queryParams({ ticket: q.string("the queue ticket") }),
  async (c) => {
    const { ticket } = c.req.valid("query");
    return openLiveSocket(c.env, c.var.db, slugs(c), ticket, c.req.raw, Date.now());
  },
);
