import { appFor } from "./app";
import { loadConfig } from "./config";
import { jobHandlers } from "./messaging/jobs";
import { CaptureSessionObject } from "./platform/capture-session";
import { meteredCaptureSession } from "./platform/capture-usage";
import { handleQueueBatch } from "./queue";
import { runScheduledJobs } from "./scheduled";
import { logUsage, usageEnv } from "./usage";

// Durable Object classes must be exported by the Worker's main module (wrangler.toml binds them by name).
export { SendPacer } from "./messaging/pacer";
/** The capture engine and the driver's history, metered for the capture.usage line (capture-usage.ts). */
export const CaptureSession = meteredCaptureSession(CaptureSessionObject);
export type CaptureSession = CaptureSessionObject;

// A configuration that fails src/worker/config.ts serves nothing: requests get 503 (from the app),
// queue batches go back to the queue untouched, cron runs do nothing; each says why in the log.
export default {
  // With USAGE_LOG=1 (the benches) the bindings are counted and each request and batch logs the totals (usage.ts).
  fetch: async (request, bindings, ctx) => {
    const env = usageEnv(bindings);
    if (env === bindings) return appFor(env).fetch(request, env, ctx);
    const response = await appFor(env).fetch(request, env, ctx);
    logUsage(env, { request: true });
    return response;
  },
  queue: async (batch, bindings, ctx) => {
    const env = usageEnv(bindings);
    if (!loadConfig(env).ok) return batch.retryAll({ delaySeconds: 60 });
    await handleQueueBatch(batch, env, jobHandlers, ctx);
    logUsage(env, { batchOf: batch.messages.length });
  },
  // Every scheduled job is listed in src/worker/scheduled.ts.
  scheduled: (controller, env, ctx) => {
    if (!loadConfig(env).ok) return;
    runScheduledJobs(env, controller.scheduledTime, (promise) => ctx.waitUntil(promise));
  },
} satisfies ExportedHandler<Env, unknown>;
