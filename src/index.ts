/**
 * Worker entry: HTTP (the API and the few customer pages), queues and cron. The debugging and
 * simulation aids (db/debug-aids.ts) are entered here, and only when their variables are set.
 */
import { createApp } from "./app";
import { debugAidsAsked, debugEnv, fetchWithDebugAids } from "./db/debug-aids";
import type { Env } from "./lib/env";
import { runHousekeeping } from "./jobs/housekeeping";
import { handleQueueBatch } from "./jobs/queue";
import type { QueueMessage } from "./lib/queues";
import { log, withLogContext } from "./lib/log";

export { AvailabilityHub } from "./objects/availability-hub";
export { EventObject } from "./objects/event/object";
export { RateLimiter } from "./objects/rate-limiter";
export { QueueCoordinator } from "./objects/waiting-room/coordinator";
export { QueueShard } from "./objects/waiting-room/shard";

const app = createApp();

export default {
  fetch(request, env, ctx) {
    if (debugAidsAsked(env)) return fetchWithDebugAids(request, env, (aided) => app.fetch(request, aided, ctx));
    return app.fetch(request, env, ctx);
  },
  async queue(batch, given) {
    const env = debugAidsAsked(given) ? debugEnv(given) : given;
    const started = Date.now();
    await withLogContext({ queue: batch.queue }, () => handleQueueBatch(batch, env));
    log.info("queue batch handled", {
      queue: batch.queue,
      messages: batch.messages.length,
      duration_ms: Date.now() - started,
    });
  },
  async scheduled(controller, given, ctx) {
    const env = debugAidsAsked(given) ? debugEnv(given) : given;
    const run = { cron: controller.cron, scheduled_time: new Date(controller.scheduledTime).toISOString() };
    const started = Date.now();
    ctx.waitUntil(
      withLogContext(run, () => runHousekeeping(env, controller.scheduledTime)).then(
        () => log.info("cron run done", { ...run, duration_ms: Date.now() - started }),
        (e: unknown) => {
          log.error("cron run failed", { ...run, duration_ms: Date.now() - started, error: e });
          throw e;
        },
      ),
    );
  },
} satisfies ExportedHandler<Env, QueueMessage>;
