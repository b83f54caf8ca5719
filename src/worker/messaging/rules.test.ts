import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { CampaignView, ReviewSummary } from "../../shared/campaigns";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";
import { recordConsent } from "../compliance/consent";
import { createDb } from "../db/client";
import { handleQueueBatch, type Job } from "../queue";
import { api, createUser, signInAs, uniqueTag } from "../test/fixtures";
import { batchWithRetryDelays, queueMessage, recordingQueue } from "../test/queue-batch";
import { jobHandlers } from "./jobs";

/**
 * The messaging rules end to end through the API and the real queue consumer
 * (docs/messaging-rules.md): classification, consent, quiet hours through the queue's delay,
 * scheduling and cancel, the frequency cap, WhatsApp marketing to +1, and the review's account.
 */

// Wednesday 15 July 2026, 22:00 in New York = Thursday 16 July 02:00 UTC.
const NIGHT_IN_NEW_YORK = Date.parse("2026-07-16T02:00:00Z");
const EIGHT_IN_NEW_YORK = Date.parse("2026-07-16T12:00:00Z");

afterEach(() => {
  vi.useRealTimers();
});

let areaSeq = Math.floor(Math.random() * 9000);
/** A fresh number in a given area code (the fixtures' numbers pick their area codes at random). */
function phoneIn(areaCode: string): string {
  areaSeq += 1;
  const exchange = 200 + (areaSeq % 700);
  // An N11 exchange (211, 311 … 911) is a service code no text can reach: the API refuses it.
  if (exchange % 100 === 11) return phoneIn(areaCode);
  return `+1${areaCode}${exchange}${String(areaSeq).padStart(4, "0").slice(-4)}`;
}

const consent = (phone: string) =>
  recordConsent(createDb(env.DB), { phone, basis: "express", source: "registration", text: REGISTRATION_CONSENT, language: "en" });

async function post(path: string, token: string, json: unknown) {
  const res = await api(path, { method: "POST", token, json });
  return {
    status: res.status,
    body: (await res.json()) as { campaign: CampaignView; message?: string; outcome?: unknown; error?: { code: string; message: string; details?: unknown } },
  };
}

function queueEnv() {
  const queue = recordingQueue();
  return { queue, workerEnv: { ...env, DISPATCH: queue.queue } as Env };
}

async function runJobs(workerEnv: Env, jobs: Job[]) {
  const { batch, delays } = batchWithRetryDelays(
    "blockpilot-dispatch",
    jobs.map((job, i) => queueMessage(`m${i}`, job)),
  );
  await handleQueueBatch(batch, workerEnv, jobHandlers);
  const result = await getQueueResult(batch, createExecutionContext());
  return { acked: result.explicitAcks, retried: result.retryMessages.map((m) => m.msgId), delays };
}

const messages = async (campaignId: number) =>
  (
    await env.DB.prepare("SELECT id, phone, status, deferred_until, error_code FROM campaign_messages WHERE campaign_id = ? ORDER BY id")
      .bind(campaignId)
      .all<{ id: number; phone: string; status: string; deferred_until: number | null; error_code: string | null }>()
  ).results;

describe("classification at creation", () => {
  it("asks every campaign what it is for", async () => {
    const { token } = await signInAs("owner");
    const res = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("k"),
      source: "list",
      channel: "sms",
      message: "Hi",
      phones: [phoneIn("415")],
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body.error)).toContain("purpose");
  });

  it("refuses WhatsApp marketing to +1 numbers, saying why, and a marketing template passed off as a service notice", async () => {
    const { token } = await signInAs("owner");
    const name = uniqueTag("promo");
    await env.DB.prepare(
      "INSERT INTO whatsapp_templates (id, name, language, status, category, components) VALUES (?, ?, 'en_US', 'APPROVED', 'MARKETING', '[]')",
    )
      .bind(uniqueTag("id"), name)
      .run();
    const phone = phoneIn("415");
    await consent(phone);
    const base = { source: "list", channel: "whatsapp", template: { name, language: "en_US" }, phones: [phone] };
    const marketing = await post("/api/admin/campaigns", token, { ...base, idempotencyKey: uniqueTag("k"), purpose: "marketing" });
    expect(marketing.status).toBe(422);
    expect(marketing.body.error).toMatchObject({ message: expect.stringContaining("+1"), details: { reason: "whatsapp_marketing_us" } });
    const disguised = await post("/api/admin/campaigns", token, { ...base, idempotencyKey: uniqueTag("k"), purpose: "service" });
    expect(disguised.status).toBe(422);
    expect(disguised.body.error?.message).toContain("marketing template");
    expect(await env.DB.prepare("SELECT count(*) AS n FROM campaigns WHERE template LIKE ?").bind(`%${name}%`).first()).toEqual({ n: 0 });
  });
});

describe("a marketing campaign created at 22:00 Eastern", () => {
  it("goes to Pacific recipients now and waits in the queue until 8:00 for Eastern ones; opted-out and unconsented numbers are skipped", async () => {
    vi.useFakeTimers({ now: NIGHT_IN_NEW_YORK, toFake: ["Date"] });
    const { token } = await signInAs("owner");
    const [pacific, eastern, optedOut, stranger] = [phoneIn("415"), phoneIn("212"), phoneIn("310"), phoneIn("213")];
    for (const p of [pacific, eastern, optedOut]) await consent(p);
    await createUser({ phone: optedOut, smsOptOut: true });
    const created = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("k"),
      source: "list",
      channel: "sms",
      purpose: "marketing",
      message: "New blocks tonight",
      phones: [pacific, eastern, optedOut, stranger],
    });
    expect(created.status).toBe(201);
    expect(created.body.campaign).toMatchObject({ category: "marketing", message: "New blocks tonight\nReply STOP to opt out", total: 4 });
    // The answer says who goes now, who waits for their morning, and who is skipped and why.
    expect(created.body.message).toBe(
      "Message sent successfully to 4 users. 1 queued now, 1 deferred to their allowed hours, 2 skipped (opted out: 1, no consent basis: 1).",
    );
    // The same figures, for the console to say in the admin's language.
    expect(created.body.outcome).toEqual({
      total: 4,
      sendNow: 1,
      deferred: 1,
      excluded: { opted_out: 1, no_consent: 1, frequency_cap: 0, whatsapp_marketing_us: 0 },
    });

    const { queue, workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId: created.body.campaign.id }]);
    const rows = await messages(created.body.campaign.id);
    const byPhone = Object.fromEntries(rows.map((r) => [r.phone, r]));
    expect(byPhone[pacific]).toMatchObject({ status: "pending", deferred_until: null });
    expect(byPhone[eastern]).toMatchObject({ status: "deferred", deferred_until: EIGHT_IN_NEW_YORK });
    expect(byPhone[optedOut]).toMatchObject({ status: "skipped", error_code: "opted_out" });
    expect(byPhone[stranger]).toMatchObject({ status: "skipped", error_code: "no_consent" });
    // The Eastern job rides the queue's delay (10 hours); nothing waits in a consumer.
    const jobs = queue.jobs.filter((j) => j.job.kind === "dispatch");
    expect(jobs.map((j) => [(j.job as { messageId: number }).messageId, j.delaySeconds])).toEqual([
      [byPhone[pacific]!.id, undefined],
      [byPhone[eastern]!.id, 10 * 3600],
    ]);

    // The campaign page's state: one sent now, one deferred until 8:00.
    await runJobs(workerEnv, [{ kind: "dispatch", messageId: byPhone[pacific]!.id }]);
    const view = (await (await api(`/api/admin/campaigns/${created.body.campaign.id}`, { token })).json()) as { campaign: CampaignView };
    expect(view.campaign.counts).toMatchObject({ sent: 1, deferred: 1, skipped: 2 });
    expect(view.campaign.deferred).toEqual({ first: EIGHT_IN_NEW_YORK, last: EIGHT_IN_NEW_YORK });
    expect(view.campaign.status).toBe("sending");

    // Delivered early (the queue is not a clock): back to the queue for the rest, still unsent.
    vi.setSystemTime(EIGHT_IN_NEW_YORK - 60_000);
    queue.jobs.length = 0;
    await runJobs(workerEnv, [{ kind: "dispatch", messageId: byPhone[eastern]!.id }]);
    expect(queue.jobs).toEqual([{ job: { kind: "dispatch", messageId: byPhone[eastern]!.id }, delaySeconds: 60 }]);
    expect((await messages(created.body.campaign.id)).find((r) => r.phone === eastern)?.status).toBe("deferred");

    // At 8:00 it goes, and the campaign is done.
    vi.setSystemTime(EIGHT_IN_NEW_YORK);
    await runJobs(workerEnv, [{ kind: "dispatch", messageId: byPhone[eastern]!.id }]);
    expect((await messages(created.body.campaign.id)).find((r) => r.phone === eastern)?.status).toBe("sent");
    const outbox = await env.DB.prepare('SELECT body FROM outbox WHERE "to" = ?').bind(eastern).first();
    expect(outbox).toEqual({ body: "New blocks tonight\nReply STOP to opt out" });
    expect((await env.DB.prepare("SELECT status FROM campaigns WHERE id = ?").bind(created.body.campaign.id).first())!.status).toBe("done");
  });

  it("re-checks at the moment of sending: an opt-out or lost consent after expansion stops the message", async () => {
    vi.useFakeTimers({ now: NIGHT_IN_NEW_YORK, toFake: ["Date"] });
    const { token } = await signInAs("owner");
    const eastern = phoneIn("646");
    await consent(eastern);
    const created = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("k"),
      source: "list",
      channel: "sms",
      purpose: "marketing",
      message: "Promo",
      phones: [eastern],
    });
    const { workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId: created.body.campaign.id }]);
    await env.DB.prepare("INSERT INTO opt_outs (phone, channel, keyword) VALUES (?, 'sms', 'STOP')").bind(eastern).run();
    vi.setSystemTime(EIGHT_IN_NEW_YORK);
    const [row] = await messages(created.body.campaign.id);
    await runJobs(workerEnv, [{ kind: "dispatch", messageId: row!.id }]);
    expect((await messages(created.body.campaign.id))[0]).toMatchObject({ status: "skipped", error_code: "opted_out" });
  });

  it("transactional messages are not held to quiet hours or consent", async () => {
    vi.useFakeTimers({ now: NIGHT_IN_NEW_YORK, toFake: ["Date"] });
    const { token } = await signInAs("owner");
    const eastern = phoneIn("917");
    const created = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("k"),
      source: "list",
      channel: "sms",
      purpose: "payment",
      message: "Your payment failed",
      phones: [eastern],
    });
    expect(created.body.campaign.message).toBe("Your payment failed");
    const { workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId: created.body.campaign.id }]);
    expect((await messages(created.body.campaign.id))[0]).toMatchObject({ status: "pending", deferred_until: null });
  });
});

describe("frequency cap", () => {
  it("holds Florida to three marketing messages in 24 hours", async () => {
    vi.useFakeTimers({ now: Date.parse("2026-07-16T15:00:00Z"), toFake: ["Date"] });
    let { token } = await signInAs("owner");
    const [miami, newYork] = [phoneIn("305"), phoneIn("212")];
    for (const p of [miami, newYork]) await consent(p);
    const { workerEnv } = queueEnv();
    const send = async () => {
      const created = await post("/api/admin/campaigns", token, {
        idempotencyKey: uniqueTag("k"),
        source: "list",
        channel: "sms",
        purpose: "marketing",
        message: "Promo",
        phones: [miami, newYork],
      });
      expect(created.status).toBe(201);
      await runJobs(workerEnv, [{ kind: "expand", campaignId: created.body.campaign.id }]);
      const rows = await messages(created.body.campaign.id);
      await runJobs(
        workerEnv,
        rows.filter((r) => r.status === "pending").map((r) => ({ kind: "dispatch", messageId: r.id })),
      );
      return Object.fromEntries((await messages(created.body.campaign.id)).map((r) => [r.phone, r.error_code ?? r.status]));
    };
    for (let i = 0; i < 3; i++) expect(await send()).toEqual({ [miami]: "sent", [newYork]: "sent" });
    expect(await send()).toEqual({ [miami]: "frequency_cap", [newYork]: "sent" });
    // A day later the window has moved on.
    vi.setSystemTime(Date.parse("2026-07-17T15:01:00Z"));
    ({ token } = await signInAs("owner"));
    expect((await send())[miami]).toBe("sent");
  });
});

describe("scheduling and cancel", () => {
  it("starts at the scheduled time through the queue's delay, and can be cancelled until then", async () => {
    const { token } = await signInAs("owner");
    const phone = phoneIn("415");
    const at = Date.now() + 30 * 3600_000;
    const scheduled = await post("/api/admin/campaigns", token, {
      idempotencyKey: uniqueTag("k"),
      source: "list",
      channel: "sms",
      purpose: "service",
      message: "Maintenance tonight",
      phones: [phone],
      scheduledAt: at,
    });
    expect(scheduled.status).toBe(201);
    expect(scheduled.body.campaign).toMatchObject({ status: "scheduled", scheduledAt: at });

    // Delivered early (12 hours is the queue's longest delay): it re-queues itself for the rest.
    const { queue, workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId: scheduled.body.campaign.id }]);
    expect(queue.jobs).toEqual([{ job: { kind: "expand", campaignId: scheduled.body.campaign.id }, delaySeconds: 43_200 }]);
    expect(await messages(scheduled.body.campaign.id)).toEqual([]);

    const cancelled = await post(`/api/admin/campaigns/${scheduled.body.campaign.id}/cancel`, token, {});
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.campaign.status).toBe("cancelled");
    vi.useFakeTimers({ now: at, toFake: ["Date"] });
    await runJobs(workerEnv, [{ kind: "expand", campaignId: scheduled.body.campaign.id }]);
    expect(await messages(scheduled.body.campaign.id)).toEqual([]);
    expect(
      await env.DB.prepare("SELECT action FROM audit_log WHERE target = ? ORDER BY id").bind(`campaign:${scheduled.body.campaign.id}`).all(),
    ).toMatchObject({
      results: [{ action: "campaign.create" }, { action: "campaign.cancel" }],
    });
  });

  it("cannot cancel a campaign that has started, and refuses a time in the past", async () => {
    const { token } = await signInAs("owner");
    const phone = phoneIn("415");
    const base = { source: "list", channel: "sms", purpose: "service", message: "Hi", phones: [phone] };
    const past = await post("/api/admin/campaigns", token, { ...base, idempotencyKey: uniqueTag("k"), scheduledAt: Date.now() - 1000 });
    expect(past.status).toBe(422);
    const now = await post("/api/admin/campaigns", token, { ...base, idempotencyKey: uniqueTag("k") });
    const { workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId: now.body.campaign.id }]);
    const late = await post(`/api/admin/campaigns/${now.body.campaign.id}/cancel`, token, {});
    expect(late.status).toBe(409);
    expect((await post("/api/admin/campaigns/999999999/cancel", token, {})).status).toBe(404);
  });
});

describe("the review explains every exclusion", () => {
  it("counts each reason, the deferred and until when, and marks the rows", async () => {
    vi.useFakeTimers({ now: NIGHT_IN_NEW_YORK, toFake: ["Date"] });
    const { token } = await signInAs("support");
    const region = uniqueTag("Rev");
    // Signed up before the (faked) present: the review counts only accounts that existed then.
    const createdAt = NIGHT_IN_NEW_YORK - 86_400_000;
    const pacific = await createUser({ humanRegion: region, phone: phoneIn("206"), createdAt });
    const eastern = await createUser({ humanRegion: region, phone: phoneIn("718"), createdAt });
    const optedOut = await createUser({ humanRegion: region, phone: phoneIn("503"), smsOptOut: true, createdAt });
    const stranger = await createUser({ humanRegion: region, phone: phoneIn("619"), createdAt });
    for (const u of [pacific, eastern, optedOut]) await consent(u.phone);
    const qs = `region=${region}&channel=sms&purpose=marketing`;
    const summary = (await (await api(`/api/admin/audience/review?${qs}`, { token })).json()) as ReviewSummary;
    expect(summary).toEqual({
      total: 4,
      excluded: { opted_out: 1, no_consent: 1, frequency_cap: 0, whatsapp_marketing_us: 0 },
      sendNow: 1,
      deferred: { count: 1, first: EIGHT_IN_NEW_YORK, last: EIGHT_IN_NEW_YORK },
      refusal: null,
    });
    const page = (await (await api(`/api/admin/audience?${qs}`, { token })).json()) as {
      rows: { phone: string; exclusion: string | null; deferredUntil: number | null }[];
    };
    const marks = Object.fromEntries(page.rows.map((r) => [r.phone, [r.exclusion, r.deferredUntil]]));
    expect(marks).toEqual({
      [pacific.phone]: [null, null],
      [eastern.phone]: [null, EIGHT_IN_NEW_YORK],
      [optedOut.phone]: ["opted_out", null],
      [stranger.phone]: ["no_consent", null],
    });
    // A transactional notice leaves out only the opted-out, and waits for nobody.
    const service = (await (await api(`/api/admin/audience/review?region=${region}&channel=sms&purpose=service`, { token })).json()) as ReviewSummary;
    expect(service).toMatchObject({ total: 4, sendNow: 3, excluded: { opted_out: 1, no_consent: 0 }, deferred: { count: 0 } });
    // WhatsApp marketing: every +1 row is marked and the refusal says why.
    const whatsapp = (await (await api(`/api/admin/audience/review?region=${region}&channel=whatsapp&purpose=marketing`, { token })).json()) as ReviewSummary;
    // (The SMS opt-out of one of them does not cover WhatsApp until they ask to stop there or by words.)
    expect(whatsapp.excluded).toEqual({ opted_out: 0, no_consent: 1, frequency_cap: 0, whatsapp_marketing_us: 3 });
    expect(whatsapp.refusal).toContain("+1");
    expect((await api(`/api/admin/audience/review?region=${region}&channel=fax&purpose=marketing`, { token })).status).toBe(400);
    expect((await api(`/api/admin/audience/review?region=${region}`, { token })).status).toBe(400);
  });
});

describe("consent history API", () => {
  it("shows a number's consent and opt-outs, newest first, to administrators only", async () => {
    const phone = phoneIn("305");
    await consent(phone);
    await api("/api/webhooks/twilio/inbound", { method: "POST" }); // unsigned: ignored, writes nothing
    await env.DB.prepare("INSERT INTO consent_events (phone, kind, channel, source, text, at) VALUES (?, 'opt_out', 'all', 'inbound_sms', 'no más', ?)")
      .bind(phone, Date.now() + 1000)
      .run();
    const { token } = await signInAs("support");
    const res = await api(`/api/admin/consent/${encodeURIComponent(phone)}`, { token });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { state: { basis: string }; history: { total: number; rows: { kind: string; text: string }[] } };
    expect(body.state.basis).toBe("express");
    expect(body.history.total).toBe(2);
    expect(body.history.rows.map((r) => r.kind)).toEqual(["opt_out", "consent"]);
    expect((await api(`/api/admin/consent/${encodeURIComponent(phone)}`, { token: (await signInAs("driver")).token })).status).toBe(403);
    expect((await api("/api/admin/consent/12", { token })).status).toBe(400);
  });
});
