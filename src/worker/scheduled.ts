import { pruneDashboardCache } from "./admin/dashboard";
import { fileDropOffLeads } from "./admin/leads";
import { runBillingCron } from "./billing/cron";
import { createDb } from "./db/client";
import { createLogger } from "./log";
import { expiredMessages } from "./messaging/message-ledger";
import { recoverStalledWork } from "./messaging/recover-stalled-work";
import { notifyServiceEnding } from "./notifications/service-ending";
import { requeueStalledNotifications } from "./notifications/sweep";
import { deleteExpiredRows } from "./retention";

type WaitUntil = (promise: Promise<unknown>) => void;

/**
 * Every job the cron trigger runs (wrangler.toml [triggers]: every minute). Each is started on its
 * own and kept alive with waitUntil, so one that fails or runs long holds back none of the others.
 */
export const SCHEDULED_JOBS: { name: string; run: (env: Env, now: number, waitUntil: WaitUntil) => Promise<unknown> }[] = [
  { name: "retention", run: (env, now) => deleteExpiredRows(env, now, [expiredMessages]) },
  { name: "recover stalled sends", run: (env, now) => recoverStalledWork(env, createLogger({ task: "sweep" }), now) },
  { name: "prune dashboard cache", run: (env, now) => pruneDashboardCache(createDb(env.DB), now) },
  {
    name: "file drop-off leads",
    run: (env, now) =>
      fileDropOffLeads(createDb(env.DB), now).then((filed) => {
        if (filed > 0) createLogger({ task: "leads" }).info("leads.filed", { filed });
      }),
  },
  { name: "billing", run: (env, now, waitUntil) => runBillingCron(env, now, waitUntil) },
  { name: "recover stalled notifications", run: (env, now) => requeueStalledNotifications(env, createLogger({ task: "notifications" }), now) },
  { name: "tell drivers their service ends", run: (env, now) => notifyServiceEnding(env, createLogger({ task: "notifications" }), now) },
];

/** One cron tick: starts every scheduled job for the tick's time. */
export function runScheduledJobs(env: Env, now: number, waitUntil: WaitUntil, jobs = SCHEDULED_JOBS): void {
  for (const job of jobs) waitUntil(job.run(env, now, waitUntil));
}
