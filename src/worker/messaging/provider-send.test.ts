import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { dbFor } from "../db/client";
import { createSmsProvider } from "../providers/sms/provider";
import { DEAD_LETTER_QUEUE } from "../queue";
import { campaignStatus, deliver, dispatchJobs, expanded, expireHold, LEASE_MS, log, rows, setup } from "../test/campaign-queue";
import { uniquePhone, uniqueTag } from "../test/fixtures";
import { HOLD_SLEEP_MS } from "./dispatch";
import { recordDeliveryStatus } from "./message-receipts";
import { record } from "./provider-send";
import { applyStatusCallback } from "./receipts";
import { recoverStalledWork } from "./recover-stalled-work";
import { callbackWaitMs, resendWaitMs } from "./waits";

// Every send here gets 1.5 s before it counts as unanswered: the sends meant to be answered
// went unanswered within 500 ms under a clean-clone run's load.
describe("ambiguous sends: accepted, but the answer never came", () => {
  it("waits for the status callback, which names the row, and never sends again", async () => {
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    // The lookup that settles it has the provider time-out too: 1.5 s, as 500 ms failed once under CI's load.
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500", APP_ORIGIN: "http://127.0.0.1:9" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
    const s = setup({ PROVIDER_TIMEOUT_MS: "1500" });
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
