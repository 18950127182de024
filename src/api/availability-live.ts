/**
 * `GET /api/v1/organizers/{organizer}/events/{event}/availability/live/`: the availability of
 * the event's public products, per date, pushed live (server-sent events, `Accept:
 * text/event-stream`) or as one JSON answer (polling). No credentials: app.ts lists the path as
 * public; unknown, unpublished and private events are 404. services/events/availability-live.ts,
 * docs/live-availability.md.
 */
import { Hono } from "hono";
import { z } from "zod";
import type { AppEnv } from "../http/context";
import { apiDocs } from "../http/openapi";
import { id } from "../http/responses";
import { publicScope } from "../http/tenancy";
import { q, queryParams } from "../http/validation";
import { liveAvailability, type LiveState } from "../services/events/availability-live";

export const liveAvailabilityRoutes = new Hono<AppEnv>();

/** The path (public: app.ts lists it). */
export const LIVE_AVAILABILITY_PATH = /^\/api\/v1\/organizers\/[^/]+\/events\/[^/]+\/availability\/live\/?$/;

const state = () =>
  z.number().int().meta({ description: "100 available, 20 reserved in carts, 10 in pending orders, 0 gone." });

const liveProductResponse = z
  .object({
    item: id(),
    variation: id().nullable(),
    availability_state: state(),
    available_number: z.number().int().nullable().meta({
      description: "Units left, when the product shows them (`show_quota_left`) and they are limited; else null.",
    }),
  })
  .meta({ id: "LiveAvailabilityProduct" });

const liveStateResponse = z
  .object({
    dates: z.array(
      z
        .object({
          subevent: id().nullable(),
          best_availability_state: state().nullable(),
          products: z.array(liveProductResponse),
        })
        .meta({ id: "LiveAvailabilityDate" }),
    ),
  })
  .meta({ id: "LiveAvailability" });

const EVENTS =
  "Each event is `event: availability`, `id:` a version that grows with every change, and `data:` the state as JSON " +
  "(the schema of the JSON answer). The first event is the current state, sent at once; then one whenever it changes " +
  "(an order placed or canceled, carts reserved or expired, a quota or the catalog changed). A client that reads slowly " +
  "gets the latest state, never a backlog. Comment lines (`: keep-alive`) come every 20 seconds.";

liveAvailabilityRoutes.get(
  "/organizers/:organizer/events/:event/availability/live",
  publicScope(),
  apiDocs("Events").okOrEvents(liveStateResponse, {
    summary: "Availability, live",
    description:
      "The availability of each product the event page shows (and its variations), per date: a series reports its " +
      "upcoming public dates (the first 100), or only `subevent`. No credentials; only live, public events (else 404). " +
      "Send `Accept: text/event-stream` to subscribe (server-sent events), anything else answers the current state once.",
    events: EVENTS,
    failures: ["not_found", "invalid", "unavailable"],
  }),
  queryParams({ subevent: q.int("One date of a series (its id): only that date is reported.") }),
  async (c) => {
    const stream = (c.req.header("Accept") ?? "").includes("text/event-stream");
    const res = await liveAvailability(
      { env: c.env, db: c.var.db, now: Date.now() },
      {
        organizer: c.req.param("organizer"),
        event: c.req.param("event"),
        subevent: c.req.valid("query").subevent,
        stream,
      },
    );
    if (!stream) return c.json<z.infer<typeof liveStateResponse>>((await res.json()) as LiveState);
    return new Response(res.body, {
      headers: { "Content-Type": "text/event-stream; charset=utf-8", "Cache-Control": "no-store" },
    });
  },
);
