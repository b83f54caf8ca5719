import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../db/client";
import { createSmsProvider } from "../providers/sms/provider";
import { campaignStatus, deliver, dispatchJobs, expanded, LEASE_MS, listCampaign, log, rows, setup } from "../test/campaign-queue";
import { uniquePhone, uniqueTag } from "../test/fixtures";
import { getCampaign } from "./campaign-reads";
import { applyStatusCallback } from "./receipts";
import { recoverStalledWork } from "./recover-stalled-work";
import { requeueAfterMs } from "./waits";

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
