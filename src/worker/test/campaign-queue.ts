import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { expect } from "vitest";
import { createLogger } from "../log";
import { createCampaign } from "../messaging/campaign-commands";
import type { CampaignInput } from "../messaging/campaign-request";
import { jobHandlers } from "../messaging/jobs";
import { leaseMs } from "../messaging/waits";
import { handleQueueBatch, type Job } from "../queue";
import { fakeTenant, signInAs, uniquePhone, uniqueTag } from "./fixtures";
import { batchWithRetryDelays, queueMessage, recordingQueue, requeuesAsRetries } from "./queue-batch";

/**
 * A campaign's queue jobs run through the real consumer against the fake provider over HTTP, for
 * the messaging pipeline's tests (expand, dispatch, provider-send, recover-stalled-work).
 */

export const log = createLogger({ test: "dispatch" });
/** SEND_LEASE_SECONDS of the test configuration (wrangler.toml), in milliseconds. */
export const LEASE_MS = leaseMs(env);

export type Setup = ReturnType<typeof fakeTenant> & { workerEnv: Env; queue: ReturnType<typeof recordingQueue> };

/** A private fake-provider tenant, a private sender (so a private pacer), and a recording queue. */
export function setup(overrides: Partial<Env> = {}, queueOpts: { failOnBatch?: number } = {}): Setup {
  const tenant = fakeTenant();
  const queue = recordingQueue(queueOpts);
  const workerEnv = tenant.env({ TWILIO_FROM: uniquePhone(), WHATSAPP_PHONE_NUMBER_ID: "100000000000000", DISPATCH: queue.queue, ...overrides });
  return { ...tenant, workerEnv, queue };
}

export async function listCampaign(s: Setup, phones: string[], extra: Partial<CampaignInput> = {}) {
  const { user } = await signInAs("owner");
  const author = (await env.DB.prepare("SELECT * FROM users WHERE id = ?").bind(user.id).first())!;
  const input: CampaignInput = {
    idempotencyKey: uniqueTag("k"),
    app: "flex",
    channel: "sms",
    message: "Hello from the dispatch test",
    template: null,
    recipients: { source: "list", phones, app: "flex" },
    excludedPhones: [],
    liftLimit: false,
    purpose: "service",
    category: "transactional",
    language: "en",
    scheduledAt: null,
    ...extra,
  };
  const { campaign } = await createCampaign(s.workerEnv, log, toSessionUser(author), input);
  return campaign.id;
}

function toSessionUser(row: Record<string, unknown>) {
  const roleProperties = typeof row.role_properties === "string" ? (JSON.parse(row.role_properties) as { billingDetails?: boolean }) : null;
  return { id: row.id as number, roleName: row.role_name as string | null, roleProperties } as Parameters<typeof createCampaign>[2];
}

/** Runs one batch through the real consumer and reports acks, retries and the delays asked for. */
export async function deliver(s: Setup, jobs: Job[], { queue = "blockpilot-dispatch", attempts = 1, withContext = false } = {}) {
  const messages = jobs.map((job, i) => queueMessage(`m${i}`, job, attempts));
  const { batch, delays } = batchWithRetryDelays(queue, messages);
  const ctx = createExecutionContext();
  const started = Date.now();
  const queuedBefore = s.queue.jobs.length;
  await handleQueueBatch(batch, s.workerEnv, jobHandlers, withContext ? ctx : undefined);
  const tookMs = Date.now() - started;
  const result = await getQueueResult(batch, ctx);
  // A retry sent back at once as a new message counts as the retry it stands for (the ack that went with it does not).
  const requeued = requeuesAsRetries(s.queue.jobs, messages, queuedBefore);
  return {
    acked: result.explicitAcks.filter((id) => !requeued.retried.includes(id)).sort(),
    retried: [...result.retryMessages.map((m) => m.msgId), ...requeued.retried].sort(),
    delays: { ...delays, ...requeued.delays },
    ctx,
    tookMs,
  };
}

export const rows = async (campaignId: number) =>
  (
    await env.DB.prepare(
      "SELECT id, phone, status, provider_id, error_code, error_message, attempts, dead_lettered, updated_at FROM campaign_messages WHERE campaign_id = ? ORDER BY id",
    )
      .bind(campaignId)
      .all<{
        id: number;
        phone: string;
        status: string;
        provider_id: string | null;
        error_code: string | null;
        error_message: string | null;
        attempts: number;
        dead_lettered: number;
        updated_at: number;
      }>()
  ).results;

export const campaignStatus = async (id: number) =>
  (await env.DB.prepare("SELECT status, total, skipped, dispatch_cursor FROM campaigns WHERE id = ?")
    .bind(id)
    .first<{ status: string; total: number; skipped: number; dispatch_cursor: number }>())!;

export const dispatchJobs = (s: Setup) => s.queue.jobs.filter((j) => j.job.kind === "dispatch").map((j) => j.job as Extract<Job, { kind: "dispatch" }>);

export async function expanded(s: Setup, phones: string[], extra: Partial<CampaignInput> = {}) {
  const id = await listCampaign(s, phones, extra);
  const res = await deliver(s, [{ kind: "expand", campaignId: id }]);
  expect(res.acked).toEqual(["m0"]);
  return id;
}

/** Moves a held row's wait into the past, as CALLBACK_WAIT_SECONDS passing would. */
export async function expireHold(campaignId: number) {
  await env.DB.prepare("UPDATE campaign_messages SET held_until = ? WHERE campaign_id = ? AND held_until IS NOT NULL")
    .bind(Date.now() - 1, campaignId)
    .run();
}
