import { env, runInDurableObject, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createSmsProvider } from "../providers/sms/provider";
import { backoffSeconds, DEAD_LETTER_QUEUE, type Job } from "../queue";
import { campaignStatus, deliver, dispatchJobs, expanded, expireHold, LEASE_MS, rows, setup } from "../test/campaign-queue";
import { uniquePhone, uniqueTag } from "../test/fixtures";
import { DETACH_AFTER_MS, SLOT_HORIZON_MS } from "./dispatch";
import { BURST_SECONDS, pacerFor, type SendPacer } from "./pacer";
import { callbackWaitMs, resendWaitMs } from "./waits";

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
