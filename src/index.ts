/** Worker entry: HTTP (the API and the few customer pages), queues and cron. */
import { createApp } from "./app";
import type { Env } from "./env";
import { runHousekeeping } from "./jobs/housekeeping";
import { handleQueueBatch, type QueueMessage } from "./jobs/queue";

export { EventObject } from "./objects/event-object";
export { RateLimiter } from "./objects/rate-limiter";

const app = createApp();

export default {
  fetch: app.fetch,
  async queue(batch, env) {
    await handleQueueBatch(batch, env);
  },
  async scheduled(controller, env, ctx) {
    ctx.waitUntil(runHousekeeping(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, QueueMessage>;
