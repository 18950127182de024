/**
 * The live availability of an event (docs/live-availability.md): public, for live and public
 * events only, as the event page shows them. A subscription is a stream of server-sent events
 * from the event's hub (objects/availability-hub.ts); a single look is the same state as JSON.
 */
import type { DB } from "../../db/client";
import { organizerEventBySlugs, publicSubevent } from "../../db/storefront";
import type { Env } from "../../lib/env";
import { Failure, fieldError, invalidPk, notFound } from "../../lib/failure";
import { log } from "../../lib/log";
import type { LiveDate } from "../../objects/live/snapshot";

export type LiveRequest = { organizer: string; event: string; subevent: number | undefined; stream: boolean };

/** The hub's answer: an event stream (`stream`) or the state as JSON; unknown or hidden events are 404. */
export async function liveAvailability(ctx: { env: Env; db: DB; now: number }, req: LiveRequest): Promise<Response> {
  const found = await organizerEventBySlugs(ctx.db, req.organizer, req.event);
  if (!found?.event.live || !found.event.isPublic) throw notFound();
  const event = found.event;
  if (req.subevent !== undefined) {
    if (!event.hasSubevents) throw fieldError("subevent", "This event is not a series: it has no dates.");
    if (!Number.isSafeInteger(req.subevent) || !(await publicSubevent(ctx.db, event.id, req.subevent, ctx.now)))
      throw fieldError("subevent", invalidPk(req.subevent));
  }
  const query = req.subevent === undefined ? "" : `?subevent=${req.subevent}`;
  try {
    const hub = ctx.env.AVAILABILITY_HUB.getByName(String(event.id));
    if (!req.stream) return Response.json(await hub.snapshot(req.subevent ?? null));
    const res = await hub.fetch(`https://hub/subscribe${query}`);
    if (!res.ok) throw new Error(`hub answered ${res.status}`);
    return res;
  } catch (e) {
    log.error("live availability: hub failed", { event_id: event.id, error: e });
    throw new Failure("unavailable", "The availability could not be read. Retry in a moment.");
  }
}

/** The JSON of a single look. */
export type LiveState = { dates: LiveDate[] };
