import { pruneDashboardCache } from "./admin/dashboard";
import { fileDropOffLeads } from "./admin/leads";
import { appFor } from "./app";
import { runBillingCron } from "./billing/cron";
import { loadConfig } from "./config";
import { createDb } from "./db/client";
import { runHousekeeping } from "./housekeeping";
import { createLogger } from "./log";
import { jobHandlers } from "./messaging/jobs";
import { recoverStalledWork } from "./messaging/recover-stalled-work";
import { handleQueueBatch } from "./queue";

// Durable Object classes must be exported by the Worker's main module (wrangler.toml binds them by name).
export { SendPacer } from "./messaging/pacer";
export { CaptureSession } from "./platform/capture-session";

// A configuration that fails src/worker/config.ts serves nothing: requests get 503 (from the app),
// queue batches go back to the queue untouched, cron runs do nothing; each says why in the log.
export default {
  fetch: (request, env, ctx) => appFor(env).fetch(request, env, ctx),
  queue: async (batch, env, ctx) => {
    if (!loadConfig(env).ok) return batch.retryAll({ delaySeconds: 60 });
    await handleQueueBatch(batch, env, jobHandlers, ctx);
  },
  scheduled: (controller, env, ctx) => {
    if (!loadConfig(env).ok) return;
    ctx.waitUntil(runHousekeeping(env, controller.scheduledTime));
    ctx.waitUntil(recoverStalledWork(env, createLogger({ task: "sweep" }), controller.scheduledTime));
    ctx.waitUntil(pruneDashboardCache(createDb(env.DB), controller.scheduledTime));
    ctx.waitUntil(
      fileDropOffLeads(createDb(env.DB), controller.scheduledTime).then((filed) => {
        if (filed > 0) createLogger({ task: "leads" }).info("leads.filed", { filed });
      }),
    );
    ctx.waitUntil(runBillingCron(env, controller.scheduledTime, (promise) => ctx.waitUntil(promise)));
  },
} satisfies ExportedHandler<Env, unknown>;
