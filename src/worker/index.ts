import { app } from "./app";
import { runHousekeeping } from "./housekeeping";
import { jobHandlers } from "./messaging/jobs";
import { handleQueueBatch } from "./queue";

export default {
  fetch: app.fetch,
  queue: (batch, env) => handleQueueBatch(batch, env, jobHandlers),
  scheduled: (controller, env, ctx) => {
    ctx.waitUntil(runHousekeeping(env, controller.scheduledTime));
  },
} satisfies ExportedHandler<Env, unknown>;
