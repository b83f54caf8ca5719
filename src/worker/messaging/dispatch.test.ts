import { createExecutionContext, env, getQueueResult, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../db/client";
import { createLogger } from "../log";
import { createSmsProvider } from "../providers/sms/provider";
import { backoffSeconds, DEAD_LETTER_QUEUE, handleQueueBatch, type Job } from "../queue";
import { createUser, fakeTenant, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";
import { batchWithRetryDelays, queueMessage, recordingQueue, requeuesAsRetries } from "../test/queue-batch";
import { type CampaignInput, createCampaign, getCampaign } from "./campaigns";
import { callbackWaitMs, DETACH_AFTER_MS, HOLD_SLEEP_MS, leaseMs, record, resendWaitMs, SLOT_HORIZON_MS } from "./dispatch";
import { jobHandlers } from "./jobs";
import { recordDeliveryStatus } from "./opt-outs";
import { BURST_SECONDS, pacerFor, type SendPacer } from "./pacer";
import { applyStatusCallback } from "./receipts";
import { recoverStalledWork, requeueAfterMs } from "./sweep";

const log = createLogger({ test: "dispatch" });
/** SEND_LEASE_SECONDS of the test configuration (wrangler.toml), in milliseconds. */
const LEASE_MS = leaseMs(env);

type Setup = ReturnType<typeof fakeTenant> & { workerEnv: Env; queue: ReturnType<typeof recordingQueue> };

/** A private fake-provider tenant, a private sender (so a private pacer), and a recording queue. */
function setup(overrides: Partial<Env> = {}, queueOpts: { failOnBatch?: number } = {}): Setup {
  const tenant = fakeTenant();
  const queue = recordingQueue(queueOpts);
  const workerEnv = tenant.env({ TWILIO_FROM: uniquePhone(), WHATSAPP_PHONE_NUMBER_ID: "100000000000000", DISPATCH: queue.queue, ...overrides });
  return { ...tenant, workerEnv, queue };
}

async function listCampaign(s: Setup, phones: string[], extra: Partial<CampaignInput> = {}) {
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
async function deliver(s: Setup, jobs: Job[], { queue = "blockpilot-dispatch", attempts = 1, withContext = false } = {}) {
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

const rows = async (campaignId: number) =>
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

const campaignStatus = async (id: number) =>
  (await env.DB.prepare("SELECT status, total, skipped, dispatch_cursor FROM campaigns WHERE id = ?")
    .bind(id)
    .first<{ status: string; total: number; skipped: number; dispatch_cursor: number }>())!;

const dispatchJobs = (s: Setup) => s.queue.jobs.filter((j) => j.job.kind === "dispatch").map((j) => j.job as Extract<Job, { kind: "dispatch" }>);

async function expanded(s: Setup, phones: string[], extra: Partial<CampaignInput> = {}) {
  const id = await listCampaign(s, phones, extra);
  const res = await deliver(s, [{ kind: "expand", campaignId: id }]);
  expect(res.acked).toEqual(["m0"]);
  return id;
}

describe("expand", () => {
  it("materialises the recipients in one statement and queues dispatch jobs in batches of at most 100", async () => {
    const s = setup();
    const phones = Array.from({ length: 250 }, () => uniquePhone());
    const optedOut = await createUser({ phone: phones[7]!, smsOptOut: true });
    await env.DB.prepare("INSERT INTO opt_outs (phone, channel, keyword) VALUES (?, 'sms', 'STOP')").bind(phones[8]).run();
    const id = await expanded(s, phones);
    const all = await rows(id);
    expect(all).toHaveLength(250);
    expect(
      all
        .filter((r) => r.status === "skipped")
        .map((r) => r.phone)
        .sort(),
    ).toEqual([optedOut.phone, phones[8]!].sort());
    expect(s.queue.batches).toEqual([100, 100, 48]);
    expect(new Set(dispatchJobs(s).map((j) => j.messageId)).size).toBe(248);
    expect(await campaignStatus(id)).toMatchObject({
      status: "sending",
      total: 250,
      skipped: 2,
      dispatch_cursor: Math.max(...all.filter((r) => r.status === "pending").map((r) => r.id)),
    });

    // Redelivered: nothing inserted twice, nothing queued twice.
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    expect(await rows(id)).toHaveLength(250);
    expect(s.queue.batches).toEqual([100, 100, 48]);
  });

  it("resumes from its cursor after dying halfway through queueing", async () => {
    const s = setup({}, { failOnBatch: 2 });
    const phones = Array.from({ length: 230 }, () => uniquePhone());
    const id = await listCampaign(s, phones);
    const first = await deliver(s, [{ kind: "expand", campaignId: id }]);
    expect(first.retried).toEqual(["m0"]);
    expect(await campaignStatus(id)).toMatchObject({ status: "expanding" });
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    const ids = dispatchJobs(s).map((j) => j.messageId);
    expect(ids).toHaveLength(230);
    expect(new Set(ids).size).toBe(230);
    expect(await campaignStatus(id)).toMatchObject({ status: "sending" });
  });

  it("records a dead-lettered expansion on the campaign and its rows", async () => {
    const s = setup({}, { failOnBatch: 1 });
    const id = await listCampaign(s, [uniquePhone(), uniquePhone()]);
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    await deliver(s, [{ kind: "expand", campaignId: id }], { queue: DEAD_LETTER_QUEUE });
    expect(await campaignStatus(id)).toMatchObject({ status: "failed" });
    expect((await rows(id)).map((r) => [r.status, r.error_code, r.dead_lettered])).toEqual([
      ["failed", "expand_failed", 1],
      ["failed", "expand_failed", 1],
    ]);
  });
});

describe("dispatch through Twilio (fake provider over HTTP)", () => {
  it("sends each message once with the provider id recorded, and finishes the campaign", async () => {
    const s = setup();
    const phones = [uniquePhone(), uniquePhone(), uniquePhone()];
    const id = await expanded(s, phones);
    const res = await deliver(s, dispatchJobs(s));
    expect(res.acked).toEqual(["m0", "m1", "m2"]);
    const sent = await rows(id);
    expect(sent.map((r) => r.status)).toEqual(["sent", "sent", "sent"]);
    const { messages } = await s.messages();
    expect(messages.map((m) => m.to).sort()).toEqual([...phones].sort());
    expect(sent.map((r) => r.provider_id).sort()).toEqual(messages.map((m) => m.id).sort());
    expect(messages.every((m) => m.from === s.workerEnv.TWILIO_FROM && m.body === "Hello from the dispatch test")).toBe(true);
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });

  it("never sends twice when the queue delivers a job again, in sequence or at once", async () => {
    const s = setup();
    const id = await expanded(s, [uniquePhone(), uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs);
    const again = await deliver(s, jobs);
    expect(again.acked).toEqual(["m0", "m1"]);
    const concurrent = await Promise.all([deliver(s, jobs), deliver(s, [...jobs, ...jobs])]);
    expect(concurrent.every((r) => r.retried.length === 0)).toBe(true);
    expect((await s.stats()).accepted).toBe(2);
    expect((await rows(id)).every((r) => r.attempts === 1)).toBe(true);
  });

  it("runs duplicate jobs of one batch concurrently without a double send", async () => {
    const s = setup();
    await expanded(s, [uniquePhone()]);
    const [job] = dispatchJobs(s);
    await deliver(
      s,
      Array.from({ length: 10 }, () => job!),
    );
    const stats = await s.stats();
    expect(stats.accepted).toBe(1);
    expect(stats.duplicates).toBe(0);
  });

  it("survives a crash mid-batch: the redelivered batch sends only what was not sent, and the row caught mid-send after its claim runs out", async () => {
    const s = setup();
    const id = await expanded(
      s,
      Array.from({ length: 5 }, () => uniquePhone()),
    );
    const jobs = dispatchJobs(s);
    // The crashed invocation had sent two messages (recorded, never acked) and was inside the
    // provider call for the third (claimed a moment ago, never recorded) when it died.
    await deliver(s, jobs.slice(0, 2));
    const crashed = (await rows(id))[2]!;
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', attempts = 1, updated_at = ? WHERE id = ?").bind(Date.now(), crashed.id).run();

    const redelivered = await deliver(s, jobs, { attempts: 2 });
    expect(redelivered.acked).toEqual(["m0", "m1", "m3", "m4"]);
    expect(redelivered.retried).toEqual(["m2"]);
    expect(redelivered.delays.m2).toBeGreaterThan(100);
    expect(redelivered.delays.m2).toBeLessThanOrEqual(LEASE_MS / 1000 + 1);
    expect((await s.stats()).accepted).toBe(4);

    await env.DB.prepare("UPDATE campaign_messages SET updated_at = ? WHERE id = ?")
      .bind(Date.now() - LEASE_MS - 1, crashed.id)
      .run();
    const later = await deliver(s, [jobs[2]!], { attempts: 3 });
    expect(later.acked).toEqual(["m0"]);
    expect((await rows(id)).map((r) => [r.status, r.attempts])).toEqual([
      ["sent", 1],
      ["sent", 1],
      ["sent", 2],
      ["sent", 1],
      ["sent", 1],
    ]);
    expect(await s.stats()).toMatchObject({ accepted: 5, duplicates: 0 });
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });

  it("retries a 429 after the provider's Retry-After, keeping the error visible meanwhile", async () => {
    const s = setup();
    await s.configure({ script: [{ kind: "429", retryAfter: 7 }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    const first = await deliver(s, jobs);
    expect(first.retried).toEqual(["m0"]);
    expect(first.delays.m0).toBe(7);
    expect((await rows(id))[0]).toMatchObject({ status: "pending", error_code: "20429", attempts: 1 });
    const second = await deliver(s, jobs, { attempts: 2 });
    expect(second.acked).toEqual(["m0"]);
    expect((await rows(id))[0]).toMatchObject({ status: "sent", error_code: null, attempts: 2 });
    expect(await s.stats()).toMatchObject({ accepted: 1, rejected: { injected429: 1 } });
  });

  it("backs off exponentially on 5xx; a time-out is held, looked up at the provider, then sent again", async () => {
    const s = setup();
    await s.configure({ script: [{ kind: "5xx", status: 503 }, { kind: "5xx", status: 502 }, { kind: "timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    const r1 = await deliver(s, jobs, { attempts: 1 });
    expect(r1.delays.m0).toBe(backoffSeconds(1));
    expect((await rows(id))[0]).toMatchObject({ status: "pending", error_code: "20500" });
    const r2 = await deliver(s, jobs, { attempts: 2 });
    expect(r2.delays.m0).toBe(backoffSeconds(2));
    const r3 = await deliver(s, jobs, { attempts: 3 });
    // No answer: it may have gone out, so the row stays claimed until the request we gave up on can
    // no longer land at the provider (as long again as the time-out), not the whole callback wait.
    expect(resendWaitMs(s.workerEnv, "sms")).toBe(1_000);
    expect(callbackWaitMs(s.workerEnv)).toBe(30_000);
    expect(r3.delays.m0).toBe(1);
    expect((await rows(id))[0]).toMatchObject({ status: "sending", error_code: "timeout" });
    await expireHold(id);
    await deliver(s, jobs, { attempts: 4 });
    expect((await rows(id))[0]).toMatchObject({ status: "sent", attempts: 4 });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("fails a permanently refused number with the provider's code, without retrying", async () => {
    const s = setup();
    const [bad, unsubscribed, good] = [uniquePhone(), uniquePhone(), uniquePhone()];
    await s.configure({ permanent: { [bad]: "21211", [unsubscribed]: "21610" } });
    const id = await expanded(s, [bad, unsubscribed, good]);
    const res = await deliver(s, dispatchJobs(s));
    expect(res.retried).toEqual([]);
    expect((await rows(id)).map((r) => [r.phone, r.status, r.error_code])).toEqual([
      [bad, "failed", "21211"],
      [unsubscribed, "failed", "21610"],
      [good, "sent", null],
    ]);
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });

  it("marks what the dead-letter queue receives as failed and dead-lettered, with the last error", async () => {
    const s = setup();
    await s.configure({ script: [{ kind: "429", retryAfter: 1 }] });
    const id = await expanded(s, [uniquePhone(), uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, [jobs[0]!]);
    await deliver(s, [jobs[1]!]);
    const dead = await deliver(s, [jobs[0]!], { queue: DEAD_LETTER_QUEUE });
    expect(dead.acked).toEqual(["m0"]);
    const [died, fine] = await rows(id);
    expect(died).toMatchObject({ status: "failed", dead_lettered: 1, error_code: "dead_lettered" });
    expect(died!.error_message).toBe("Gave up after 1 send attempt; last error 20429: Too Many Requests");
    // A dead letter for a row that did get sent changes nothing.
    await deliver(s, [jobs[1]!], { queue: DEAD_LETTER_QUEUE });
    expect((await rows(id))[1]).toMatchObject({ status: fine!.status, dead_lettered: 0 });
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });

  it("skips a number that opted out after the campaign was expanded", async () => {
    const s = setup();
    const phone = uniquePhone();
    const id = await expanded(s, [phone]);
    await env.DB.prepare("INSERT INTO opt_outs (phone, channel, keyword) VALUES (?, 'sms', 'STOP')").bind(phone).run();
    await deliver(s, dispatchJobs(s));
    expect((await rows(id))[0]).toMatchObject({ status: "skipped", error_code: "opted_out" });
    expect((await s.stats()).accepted).toBe(0);
  });

  it("lets a slow provider call finish in the background instead of holding its batch", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "3000" });
    await s.configure({ script: [{ kind: "timeout" }] });
    const id = await expanded(s, [uniquePhone(), uniquePhone()]);
    const res = await deliver(s, dispatchJobs(s), { withContext: true });
    // The batch was settled after the half-second grace, not after the three-second time-out.
    expect(res.tookMs).toBeGreaterThanOrEqual(DETACH_AFTER_MS - 100);
    expect(res.tookMs).toBeLessThan(2_900);
    expect(res.acked).toEqual(["m1"]);
    expect(res.retried).toEqual(["m0"]);
    // Back as the hold that follows the time-out ends: its three-second time-out and the hold (as
    // long again), less the half second already waited, rounded down (the rest is slept out in place).
    expect(resendWaitMs(s.workerEnv, "sms")).toBe(3_000);
    expect([4, 5]).toContain(res.delays.m0);
    await waitOnExecutionContext(res.ctx);
    expect((await rows(id)).map((r) => [r.status, r.error_code])).toEqual([
      ["sending", "timeout"],
      ["sent", null],
    ]);
  });
});

/** Moves a held row's wait into the past, as CALLBACK_WAIT_SECONDS passing would. */
async function expireHold(campaignId: number) {
  await env.DB.prepare("UPDATE campaign_messages SET held_until = ? WHERE campaign_id = ? AND held_until IS NOT NULL")
    .bind(Date.now() - 1, campaignId)
    .run();
}

describe("ambiguous sends: accepted, but the answer never came", () => {
  it("waits for the status callback, which names the row, and never sends again", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    await s.configure({ script: [{ kind: "accept-timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs, { attempts: 1 });
    const [row] = await rows(id);
    expect(row).toMatchObject({ status: "sending", error_code: "timeout", provider_id: null });
    // The provider has it, and its callback URL names the row.
    const [accepted] = (await s.messages()).messages;
    expect(accepted?.unanswered).toBe(true);
    expect(new URL(accepted!.statusCallback!).searchParams.get("m")).toBe(String(row!.id));

    // A redelivery while the row is still held sends nothing.
    await env.DB.prepare("UPDATE campaign_messages SET held_until = ? WHERE id = ?")
      .bind(Date.now() + 10_000, row!.id)
      .run();
    const early = await deliver(s, jobs, { attempts: 2 });
    expect(early.retried).toEqual(["m0"]);
    expect((await s.stats()).accepted).toBe(1);

    await applyStatusCallback(env, { messageId: row!.id, providerId: accepted!.id, status: "delivered", errorCode: null, errorMessage: null });
    expect((await rows(id))[0]).toMatchObject({ status: "delivered", provider_id: accepted!.id });
    await expireHold(id);
    expect((await deliver(s, jobs, { attempts: 3 })).acked).toEqual(["m0"]);
    expect((await s.stats()).accepted).toBe(1);
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });

  it("sends again once the wait is over without a callback (the provider never had it)", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    await s.configure({ script: [{ kind: "timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs, { attempts: 1 });
    expect((await s.stats()).accepted).toBe(0);
    await expireHold(id);
    await deliver(s, jobs, { attempts: 2 });
    expect((await rows(id))[0]).toMatchObject({ status: "sent", attempts: 2 });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("waits out the last moment of a callback wait in place instead of going round the queue again", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    await s.configure({ script: [{ kind: "timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs, { attempts: 1 });
    // Back (as the queue's whole-second delays bring it) a moment before the wait ends.
    await env.DB.prepare("UPDATE campaign_messages SET held_until = ? WHERE campaign_id = ?")
      .bind(Date.now() + HOLD_SLEEP_MS / 2, id)
      .run();
    const back = await deliver(s, jobs, { attempts: 2 });
    expect(back.acked).toEqual(["m0"]);
    // (Less the moments between setting held_until and the delivery starting, on a busy machine.)
    expect(back.tookMs).toBeGreaterThanOrEqual(HOLD_SLEEP_MS / 2 - 150);
    expect((await rows(id))[0]).toMatchObject({ status: "sent", attempts: 2 });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("settles an accepted send whose callback never came from the provider's record, and never sends it again", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    // The callback is refused for good (the provider gave up retrying it): only the lookup can tell.
    await s.configure({ script: [{ kind: "accept-timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs, { attempts: 1 });
    expect((await rows(id))[0]).toMatchObject({ status: "sending", provider_id: null });
    await expireHold(id);
    const back = await deliver(s, jobs, { attempts: 2 });
    expect(back.acked).toEqual(["m0"]);
    const [accepted] = (await s.messages()).messages;
    expect((await rows(id))[0]).toMatchObject({ status: "sent", provider_id: accepted!.id, error_code: null, attempts: 1 });
    expect((await s.stats()).accepted).toBe(1);
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
    // A redelivered job finds it settled and sends nothing.
    await deliver(s, jobs, { attempts: 3 });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("takes the outcome the provider's record gives: undelivered is failed with Twilio's code", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500", APP_ORIGIN: "http://127.0.0.1:9" });
    const phone = uniquePhone();
    await s.configure({ script: [{ kind: "accept-timeout" }], callbackDelayMs: 0, undeliverable: [phone] });
    const id = await expanded(s, [phone]);
    await deliver(s, dispatchJobs(s), { attempts: 1 });
    await expireHold(id);
    await deliver(s, dispatchJobs(s), { attempts: 2 });
    expect((await rows(id))[0]).toMatchObject({ status: "failed", error_code: "30003" });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("holds the row again when the lookup itself fails, sending nothing, and sends once the provider says it has none", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    await s.configure({ script: [{ kind: "timeout" }], lookupScript: [{ kind: "5xx", status: 503 }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs, { attempts: 1 });
    await expireHold(id);
    const failed = await deliver(s, jobs, { attempts: 2 });
    expect(failed.retried).toEqual(["m0"]);
    expect(failed.delays.m0).toBe(Math.ceil(resendWaitMs(s.workerEnv, "sms") / 1000));
    const [held] = await rows(id);
    expect(held).toMatchObject({ status: "sending", error_code: "lookup_failed", attempts: 1 });
    expect(held!.error_message).toMatch(/^Could not ask the provider whether it has the message \(20500: /);
    expect((await s.stats()).accepted).toBe(0);
    await expireHold(id);
    await deliver(s, jobs, { attempts: 3 });
    expect((await rows(id))[0]).toMatchObject({ status: "sent", attempts: 2 });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("ends a row whose lookups keep failing as a visible dead letter", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    await s.configure({ script: [{ kind: "timeout" }], lookupScript: [{ kind: "timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    await deliver(s, jobs, { attempts: 1 });
    await expireHold(id);
    await deliver(s, jobs, { attempts: 2 });
    // The queue's retries are spent; once the claim has run out the dead-letter queue fails the row.
    await env.DB.prepare("UPDATE campaign_messages SET updated_at = ? WHERE campaign_id = ?")
      .bind(Date.now() - LEASE_MS - 1, id)
      .run();
    await deliver(s, jobs, { queue: DEAD_LETTER_QUEUE });
    const [died] = await rows(id);
    expect(died).toMatchObject({ status: "failed", dead_lettered: 1, error_code: "dead_lettered" });
    expect(died!.error_message).toMatch(/^Gave up after 1 send attempt; last error lookup_failed: Could not ask the provider/);
    expect((await s.stats()).accepted).toBe(0);
  });

  it("settles from the provider's record a row whose consumer died after the provider accepted it", async () => {
    const s = setup();
    const id = await expanded(s, [uniquePhone()]);
    const jobs = dispatchJobs(s);
    // The consumer claimed and sent it, then died before recording anything (no callback either).
    const [row] = await rows(id);
    const claimedAt = Date.now();
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', attempts = 1, first_claimed_at = ?, updated_at = ? WHERE id = ?")
      .bind(claimedAt, claimedAt, row!.id)
      .run();
    const sms = createSmsProvider(s.workerEnv);
    const sent = await sms.send({ to: row!.phone, body: "Hello from the dispatch test" });
    // Its claim runs out; the redelivered job asks before sending.
    await env.DB.prepare("UPDATE campaign_messages SET updated_at = ? WHERE id = ?")
      .bind(claimedAt - LEASE_MS - 1, row!.id)
      .run();
    await deliver(s, jobs, { attempts: 2 });
    expect((await rows(id))[0]).toMatchObject({ status: "sent", provider_id: (sent as { providerId: string }).providerId, attempts: 1 });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("keeps a held row held when the sweep re-queues it, so it is looked up rather than sent blindly", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    await s.configure({ script: [{ kind: "accept-timeout" }] });
    const id = await expanded(s, [uniquePhone()]);
    await deliver(s, dispatchJobs(s), { attempts: 1 });
    const [row] = await rows(id);
    // Its job went missing: long after the hold, the sweep finds it.
    await env.DB.prepare("UPDATE campaign_messages SET updated_at = ?, held_until = ? WHERE id = ?")
      .bind(Date.now() - 6 * LEASE_MS, Date.now() - 5 * LEASE_MS, row!.id)
      .run();
    const before = s.queue.jobs.length;
    await recoverStalledWork(s.workerEnv, log, Date.now());
    expect(s.queue.jobs.slice(before).map((j) => j.job)).toContainEqual({ kind: "dispatch", messageId: row!.id });
    expect((await rows(id))[0]).toMatchObject({ status: "sending" });
    await deliver(s, [{ kind: "dispatch", messageId: row!.id }]);
    expect((await rows(id))[0]).toMatchObject({ status: "sent", provider_id: (await s.messages()).messages[0]!.id });
    expect((await s.stats()).accepted).toBe(1);
  });

  it("tags WhatsApp sends with the row (biz_opaque_callback_data), and a callback naming it settles it", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "500" });
    const name = uniqueTag("tpl");
    await env.DB.prepare(
      "INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', '[]')",
    )
      .bind(uniqueTag("id"), name)
      .run();
    await s.configure({
      templates: [{ id: "t1", name, language: "en_US", status: "APPROVED", category: "UTILITY", components: [] }],
      script: [{ kind: "accept-timeout" }],
    });
    const id = await expanded(s, [uniquePhone()], { channel: "whatsapp", message: null, template: { name, language: "en_US" } });
    const first = await deliver(s, dispatchJobs(s), { attempts: 1 });
    // WhatsApp cannot be asked whether it has the message: it waits the whole callback wait.
    expect(first.delays.m0).toBe(callbackWaitMs(s.workerEnv) / 1000);
    const [row] = await rows(id);
    const [accepted] = (await s.messages()).messages;
    expect(accepted?.reference).toBe(`m:${row!.id}`);
    await applyStatusCallback(env, { messageId: row!.id, providerId: accepted!.id, status: "accepted", errorCode: null, errorMessage: null });
    expect((await rows(id))[0]).toMatchObject({ status: "sent", provider_id: accepted!.id });
  });
});

describe("delivery receipts racing the record of the send", () => {
  async function claimedRow() {
    const s = setup();
    const id = await expanded(s, [uniquePhone()]);
    const [row] = await rows(id);
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', attempts = 1, updated_at = ? WHERE id = ?").bind(Date.now(), row!.id).run();
    return { campaignId: id, row: { id: row!.id, campaignId: id } };
  }

  it("applies a receipt that arrived before the provider id was written", async () => {
    const { campaignId, row } = await claimedRow();
    const sid = uniqueTag("SMearly");
    await recordDeliveryStatus(dbFor(env.DB), sid, "delivered", null, null);
    expect(await env.DB.prepare("SELECT status FROM delivery_receipts WHERE provider_id = ?").bind(sid).first()).toEqual({ status: "delivered" });
    await record(env, row, { ok: true, providerId: sid });
    expect((await rows(campaignId))[0]).toMatchObject({ status: "delivered", provider_id: sid });
    expect(await env.DB.prepare("SELECT 1 FROM delivery_receipts WHERE provider_id = ?").bind(sid).first()).toBeNull();
    expect(await campaignStatus(campaignId)).toMatchObject({ status: "done" });
  });

  it("applies an early failure receipt with its code, and a late one the usual way", async () => {
    const early = await claimedRow();
    const sid = uniqueTag("SMfail");
    await recordDeliveryStatus(dbFor(env.DB), sid, "failed", "30007", "Carrier filtered");
    await record(env, early.row, { ok: true, providerId: sid });
    expect((await rows(early.campaignId))[0]).toMatchObject({ status: "failed", error_code: "30007", error_message: "Carrier filtered" });

    const late = await claimedRow();
    const lateSid = uniqueTag("SMlate");
    await record(env, late.row, { ok: true, providerId: lateSid });
    await recordDeliveryStatus(dbFor(env.DB), lateSid, "delivered", null, null);
    expect((await rows(late.campaignId))[0]).toMatchObject({ status: "delivered" });
    // A repeated receipt for a settled row is not kept as an early one.
    await recordDeliveryStatus(dbFor(env.DB), lateSid, "delivered", null, null);
    expect(await env.DB.prepare("SELECT 1 FROM delivery_receipts WHERE provider_id = ?").bind(lateSid).first()).toBeNull();
  });
});

describe("dispatch through the WhatsApp Cloud API (fake provider over HTTP)", () => {
  it("sends the template and fails numbers not on WhatsApp with 131026", async () => {
    const s = setup();
    const name = uniqueTag("tpl");
    await env.DB.prepare(
      "INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', '[]')",
    )
      .bind(uniqueTag("id"), name)
      .run();
    await s.configure({ templates: [{ id: "t1", name, language: "en_US", status: "APPROVED", category: "UTILITY", components: [] }] });
    const [ok, notOnWhatsApp] = [uniquePhone(), uniquePhone()];
    await s.configure({ permanent: { [notOnWhatsApp]: "131026" } });
    const id = await expanded(s, [ok, notOnWhatsApp], { channel: "whatsapp", message: null, template: { name, language: "en_US" } });
    await deliver(s, dispatchJobs(s));
    const [a, b] = await rows(id);
    expect(a).toMatchObject({ status: "sent" });
    expect(a!.provider_id).toMatch(/^wamid\./);
    expect(b).toMatchObject({ status: "failed", error_code: "131026" });
    const { messages } = await s.messages();
    expect(messages).toMatchObject([{ channel: "whatsapp", to: ok, body: `template:${name}:en_US` }]);
  });
});

describe("pacing", () => {
  // The spacing rule itself is tested on nextSlot (pacer.test.ts); the rate achieved against a
  // provider's own limit is measured by bench:dispatch. Here: every send goes through the one pacer.
  it("takes a slot from the sender's one pacer for every send, across concurrent batches", async () => {
    const rate = 20;
    const s = setup({ SEND_RATE_PER_SECOND: String(rate) });
    await expanded(
      s,
      Array.from({ length: 16 }, () => uniquePhone()),
    );
    const jobs = dispatchJobs(s);
    const started = Date.now();
    await Promise.all([deliver(s, jobs.slice(0, 8)), deliver(s, jobs.slice(8))]);
    expect((await s.messages()).messages).toHaveLength(16);
    // Each reservation moves the sender's next free slot on by 1/R, from no earlier than the burst
    // allows: 16 of them put it at least (16 − burst + 1)/R past the first, whatever the timing.
    const burst = Math.max(1, Math.floor(rate * BURST_SECONDS));
    const sender = createSmsProvider(s.workerEnv).sender!;
    const nextFree = await runInDurableObject(pacerFor(s.workerEnv, sender), async (_pacer: SendPacer, state) => state.storage.kv.get<number>("nextFree"));
    expect(nextFree).toBeGreaterThanOrEqual(started + ((16 - burst + 1) * 1000) / rate);
  });

  it("sends a job whose slot is far off back to the queue, keeping its slot, instead of sleeping", async () => {
    const s = setup({ SEND_RATE_PER_SECOND: "0.05" });
    await expanded(s, [uniquePhone(), uniquePhone()]);
    const [first, second] = dispatchJobs(s);
    await deliver(s, [first!]);
    expect((await s.stats()).accepted).toBe(1);
    const queuedBefore = s.queue.jobs.length;
    const res = await deliver(s, [second!]);
    expect(res.acked).toEqual(["m0"]);
    const deferred = s.queue.jobs.slice(queuedBefore);
    expect(deferred).toHaveLength(1);
    const job = deferred[0]!.job as Extract<Job, { kind: "dispatch" }>;
    expect(job).toMatchObject({ kind: "dispatch", messageId: second!.messageId });
    expect(job.slotAt! - Date.now()).toBeGreaterThan(SLOT_HORIZON_MS);
    expect(deferred[0]!.delaySeconds).toBe(Math.floor((job.slotAt! - Date.now() - 5_000) / 1000));
    expect((await s.stats()).accepted).toBe(1);
  });
});

describe("the cron sweep", () => {
  /** REQUEUE_AFTER_SECONDS of the test configuration, in milliseconds. */
  const GRACE_MS = requeueAfterMs(env);

  it("re-queues stalled expansions and abandoned sends, keeping an abandoned send claimed, and closes finished campaigns", async () => {
    const s = setup();
    const stalledId = await listCampaign(s, [uniquePhone()]);
    const now = Date.now();
    await env.DB.prepare("UPDATE campaigns SET updated_at = ? WHERE id = ?")
      .bind(now - 120_000, stalledId)
      .run();
    const abandonedCampaign = await expanded(s, [uniquePhone()]);
    const [row] = await rows(abandonedCampaign);
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', attempts = 1, first_claimed_at = ?, updated_at = ? WHERE id = ?")
      .bind(now - 6 * LEASE_MS, now - 6 * LEASE_MS, row!.id)
      .run();
    const before = s.queue.jobs.length;
    await recoverStalledWork(s.workerEnv, log, now);
    const queued = s.queue.jobs.slice(before).map((j) => j.job);
    expect(queued).toContainEqual({ kind: "expand", campaignId: stalledId });
    expect(queued).toContainEqual({ kind: "dispatch", messageId: row!.id });
    // Never released to 'pending' (which would send it blindly): its job asks the provider first.
    expect((await rows(abandonedCampaign))[0]).toMatchObject({ status: "sending" });
    // The provider has nothing: sent by the re-queued job, then closed.
    await deliver(s, [{ kind: "dispatch", messageId: row!.id }]);
    expect((await rows(abandonedCampaign))[0]).toMatchObject({ status: "sent", attempts: 2 });
    expect((await s.stats()).accepted).toBe(1);
    await env.DB.prepare("UPDATE campaigns SET status = 'sending' WHERE id = ?").bind(abandonedCampaign).run();
    await recoverStalledWork(s.workerEnv, log, Date.now());
    expect(await campaignStatus(abandonedCampaign)).toMatchObject({ status: "done" });
  });

  it("settles from the provider, never sends again, a row whose sender stopped between the provider's answer and the ledger write", async () => {
    const s = setup();
    const id = await expanded(s, [uniquePhone(), uniquePhone()]);
    const [accepted, notYet] = await rows(id);
    const claimedAt = Date.now() - LEASE_MS - GRACE_MS - 1_000;
    // Both claimed; the provider accepted the first, then the runtime died before either was recorded
    // (no callback either). Their queue messages died with it.
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', attempts = 1, first_claimed_at = ?, updated_at = ? WHERE campaign_id = ?")
      .bind(claimedAt, claimedAt, id)
      .run();
    const sent = await createSmsProvider(s.workerEnv).send({ to: accepted!.phone, body: "Hello from the dispatch test" });
    s.queue.jobs.length = 0;

    await recoverStalledWork(s.workerEnv, log, Date.now());
    const queued = s.queue.jobs.map((j) => j.job);
    expect(queued).toContainEqual({ kind: "dispatch", messageId: accepted!.id });
    expect(queued).toContainEqual({ kind: "dispatch", messageId: notYet!.id });
    expect((await rows(id)).map((r) => r.status)).toEqual(["sending", "sending"]);
    // The campaign says they are in doubt while they are.
    expect((await getCampaign(dbFor(env.DB), id, LEASE_MS))!).toMatchObject({ inDoubt: 2, counts: { sending: 2 } });
    // The next tick does not queue them again (one job per row per grace period).
    const before = s.queue.jobs.length;
    await recoverStalledWork(s.workerEnv, log, Date.now());
    expect(s.queue.jobs.slice(before).map((j) => j.job)).not.toContainEqual({ kind: "dispatch", messageId: accepted!.id });

    await deliver(s, [
      { kind: "dispatch", messageId: accepted!.id },
      { kind: "dispatch", messageId: notYet!.id },
    ]);
    expect((await rows(id)).map((r) => [r.status, r.provider_id === (sent as { providerId: string }).providerId])).toEqual([
      ["sent", true],
      ["sent", false],
    ]);
    // Each number got exactly one text.
    const texts = (await s.messages()).messages;
    expect(texts.map((m) => m.to).sort()).toEqual([accepted!.phone, notYet!.phone].sort());
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
    expect((await getCampaign(dbFor(env.DB), id, LEASE_MS))!).toMatchObject({ inDoubt: 0, counts: { sending: 0, sent: 2 } });
  });

  it("fails visibly as in doubt, never sends again, a WhatsApp row whose sender stopped with nothing recorded; a late status still settles it", async () => {
    const s = setup();
    const name = uniqueTag("tpl");
    await env.DB.prepare(
      "INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'UTILITY', '[]')",
    )
      .bind(uniqueTag("id"), name)
      .run();
    await s.configure({ templates: [{ id: "t1", name, language: "en_US", status: "APPROVED", category: "UTILITY", components: [] }] });
    const id = await expanded(s, [uniquePhone()], { channel: "whatsapp", message: null, template: { name, language: "en_US" } });
    const [row] = await rows(id);
    const claimedAt = Date.now() - LEASE_MS - GRACE_MS - 1_000;
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', attempts = 1, first_claimed_at = ?, updated_at = ? WHERE id = ?")
      .bind(claimedAt, claimedAt, row!.id)
      .run();
    s.queue.jobs.length = 0;
    await recoverStalledWork(s.workerEnv, log, Date.now());
    expect(s.queue.jobs.map((j) => j.job)).toContainEqual({ kind: "dispatch", messageId: row!.id });
    await deliver(s, [{ kind: "dispatch", messageId: row!.id }]);
    expect((await rows(id))[0]).toMatchObject({ status: "failed", error_code: "in_doubt" });
    expect((await s.stats()).accepted).toBe(0);
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
    // Meta's status for the send the stopped sender did make arrives late: it settles the row.
    await applyStatusCallback(env, { messageId: row!.id, providerId: "wamid.late", status: "accepted", errorCode: null, errorMessage: null });
    expect((await rows(id))[0]).toMatchObject({ status: "sent", provider_id: "wamid.late", error_code: null });
  });

  it("queues pending rows whose jobs were lost again once their channel has been idle for the grace period, once per period", async () => {
    const s = setup();
    const phones = Array.from({ length: 150 }, () => uniquePhone());
    const id = await expanded(s, phones);
    const ids = (await rows(id)).map((r) => r.id);
    // The runtime stopped: every queued job is gone, the rows stay pending.
    s.queue.jobs.length = 0;
    // Later than every other test's sends, so the channel is idle unless this test says otherwise.
    const later = Date.now() + 10 * GRACE_MS;
    const busyCampaign = await expanded(s, [uniquePhone()]);
    const [busyRow] = await rows(busyCampaign);
    await env.DB.prepare("UPDATE campaign_messages SET status = 'sent', first_claimed_at = ?, updated_at = ? WHERE id = ?")
      .bind(later - 1_000, later - 1_000, busyRow!.id)
      .run();
    s.queue.jobs.length = 0;

    // A row of the channel was claimed a second ago: its pending rows' jobs are alive, waiting for slots.
    await recoverStalledWork(s.workerEnv, log, later);
    expect(s.queue.jobs.filter((j) => j.job.kind === "dispatch" && ids.includes(j.job.messageId))).toHaveLength(0);

    // Nothing claimed for a whole grace period: the pending rows are queued again, a hundred per sendBatch.
    const idle = later + GRACE_MS + 1_000;
    await recoverStalledWork(s.workerEnv, log, idle);
    const requeued = dispatchJobs(s).map((j) => j.messageId);
    expect(ids.every((m) => requeued.includes(m))).toBe(true);
    expect(Math.max(...s.queue.batches)).toBeLessThanOrEqual(100);
    // Not again on the next tick.
    const before = s.queue.jobs.length;
    await recoverStalledWork(s.workerEnv, log, idle + 60_000);
    expect(s.queue.jobs.slice(before).filter((j) => j.job.kind === "dispatch" && ids.includes(j.job.messageId))).toHaveLength(0);

    // Sent, each exactly once.
    const jobs = dispatchJobs(s).filter((j) => ids.includes(j.messageId));
    for (let i = 0; i < jobs.length; i += 50) await deliver(s, jobs.slice(i, i + 50));
    expect((await rows(id)).every((r) => r.status === "sent")).toBe(true);
    const texts = (await s.messages()).messages.map((m) => m.to);
    expect(texts.sort()).toEqual([...phones].sort());
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });

  it("queues again the rows whose jobs a failed sendBatch never queued, after the expansion resumed past them", async () => {
    // The expansion's second sendBatch fails after every row was written and the first hundred
    // queued; then the runtime stops and its queue loses everything, the expand job's retry too.
    const s = setup({}, { failOnBatch: 2 });
    const phones = Array.from({ length: 230 }, () => uniquePhone());
    const id = await listCampaign(s, phones);
    expect((await deliver(s, [{ kind: "expand", campaignId: id }])).retried).toEqual(["m0"]);
    expect(await campaignStatus(id)).toMatchObject({ status: "expanding", dispatch_cursor: (await rows(id))[99]!.id });
    s.queue.jobs.length = 0;

    // The sweep re-queues the stalled expansion, which resumes from its cursor: rows past it get jobs.
    const later = Date.now() + 10 * GRACE_MS;
    await recoverStalledWork(s.workerEnv, log, later);
    expect(s.queue.jobs.map((j) => j.job)).toContainEqual({ kind: "expand", campaignId: id });
    s.queue.jobs.length = 0;
    await deliver(s, [{ kind: "expand", campaignId: id }]);
    expect(await campaignStatus(id)).toMatchObject({ status: "sending" });
    const ids = (await rows(id)).map((r) => r.id);
    expect(dispatchJobs(s).map((j) => j.messageId)).toEqual(ids.slice(100));

    // The first hundred have no job anywhere: the next sweep on the idle channel queues them.
    await recoverStalledWork(s.workerEnv, log, later + GRACE_MS + 1_000);
    const queued = new Set(dispatchJobs(s).map((j) => j.messageId));
    expect(ids.every((m) => queued.has(m))).toBe(true);
    const jobs = dispatchJobs(s).filter((j) => ids.includes(j.messageId));
    for (let i = 0; i < jobs.length; i += 50) await deliver(s, jobs.slice(i, i + 50));
    expect((await s.messages()).messages.map((m) => m.to).sort()).toEqual([...phones].sort());
    expect(await campaignStatus(id)).toMatchObject({ status: "done" });
  });
});
