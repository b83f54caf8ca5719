/** What becomes of an erased account's number: its opt-outs, campaigns, invitations, a new registration, drop-off leads. */
import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { and, eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { fileDropOffLeads } from "../admin/leads";
import { phoneHash } from "../compliance/erased-opt-outs";
import { campaignMessages, leads, optOutHashes, optOuts, outbox, users } from "../db/schema";
import { jobHandlers } from "../messaging/jobs";
import { twilioSignature } from "../providers/webhook-signatures";
import { handleQueueBatch, type Job } from "../queue";
import { api, call, createUser, db, json, lastOutboxId, nextSms, PASSWORD, seedUser, signIn, signInAs, uniquePhone, uniqueTag } from "../test/fixtures";
import { batchWithRetryDelays, queueMessage, recordingQueue } from "../test/queue-batch";
import { eraseAccount } from "./erase";

describe("an opted-out number after its account is erased", () => {
  function queueEnv() {
    const queue = recordingQueue();
    return { queue, workerEnv: { ...env, DISPATCH: queue.queue } as Env };
  }
  async function runJobs(workerEnv: Env, jobs: Job[]) {
    const { batch } = batchWithRetryDelays(
      "blockpilot-dispatch",
      jobs.map((job, i) => queueMessage(`m${i}`, job)),
    );
    await handleQueueBatch(batch, workerEnv, jobHandlers);
    await getQueueResult(batch, createExecutionContext());
  }

  it("is kept only as a keyed hash, and a campaign to the number still skips it", async () => {
    const user = await createUser({ smsOptOut: true });
    await db.insert(optOuts).values({ phone: user.phone, channel: "sms", keyword: "STOP" });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, user.phone)).all()).toEqual([]);
    const hash = await phoneHash(env.PASSWORD_PEPPER, user.phone);
    expect(await db.select({ channel: optOutHashes.channel }).from(optOutHashes).where(eq(optOutHashes.hash, hash)).all()).toEqual([{ channel: "sms" }]);

    const { token } = await signInAs("owner");
    const other = uniquePhone();
    const created = await call("/api/admin/campaigns", {
      token,
      body: { idempotencyKey: uniqueTag("k"), source: "list", channel: "sms", purpose: "service", message: "Your blocks", phones: [user.phone, other] },
    });
    expect(created.status).toBe(201);
    const campaignId = (await json(created)).campaign.id as number;
    const { queue, workerEnv } = queueEnv();
    await runJobs(workerEnv, [{ kind: "expand", campaignId }]);
    const after = await lastOutboxId();
    await runJobs(
      workerEnv,
      queue.jobs.filter((j) => j.job.kind === "dispatch").map((j) => j.job),
    );
    const rows = await db.select().from(campaignMessages).where(eq(campaignMessages.campaignId, campaignId)).all();
    const byPhone = Object.fromEntries(rows.map((r) => [r.phone, r]));
    expect(byPhone[user.phone]).toMatchObject({ status: "skipped", errorCode: "opted_out" });
    expect(byPhone[other]?.status).toBe("sent");
    const sent = await db.select({ to: outbox.to }).from(outbox).where(sql`${outbox.id} > ${after}`).all();
    expect(sent.map((s) => s.to)).not.toContain(user.phone);
    // Now that the number is with us again, its opt-out is a plain one again (and the hash is gone).
    expect(await db.select({ channel: optOuts.channel }).from(optOuts).where(eq(optOuts.phone, user.phone)).all()).toEqual([{ channel: "sms" }]);
    expect(await db.select().from(optOutHashes).where(eq(optOutHashes.hash, hash)).all()).toEqual([]);
  });

  it("a START from the number opts it back in, as for any number", async () => {
    const user = await createUser({ smsOptOut: true });
    await db.insert(optOuts).values({ phone: user.phone, channel: "sms", keyword: "STOP" });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    const path = "/api/webhooks/twilio/inbound";
    const form = new URLSearchParams({ From: user.phone, To: "+15005550006", Body: "START", MessageSid: uniqueTag("SM") });
    const res = await api(path, {
      method: "POST",
      headers: {
        "Content-Type": "application/x-www-form-urlencoded",
        "X-Twilio-Signature": await twilioSignature(env.TWILIO_AUTH_TOKEN, `https://bp.test${path}`, form),
      },
      body: form.toString(),
    });
    expect(await res.text()).toContain("you will receive our messages again");
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, user.phone)).all()).toEqual([]);
    expect(
      await db
        .select()
        .from(optOutHashes)
        .where(eq(optOutHashes.hash, await phoneHash(env.PASSWORD_PEPPER, user.phone)))
        .all(),
    ).toEqual([]);
  });

  it("a friend's invitation is answered as for any number and never texted to it", async () => {
    const user = await createUser({ smsOptOut: true });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    const friend = await seedUser();
    const { idToken } = await signIn(friend);
    const res = await call("/api/invitations", { token: idToken, body: { phoneNumber: user.phone } });
    expect(res.status).toBe(201);
    // A stranger invited after it is texted; by then the erased number's text would have gone too.
    const stranger = uniquePhone();
    expect((await call("/api/invitations", { token: idToken, body: { phoneNumber: stranger } })).status).toBe(201);
    await nextSms(stranger);
    expect(await db.select().from(outbox).where(eq(outbox.to, user.phone))).toEqual([]);
    expect(await db.select().from(optOuts).where(eq(optOuts.phone, user.phone))).not.toEqual([]);
  });

  it("stays opted out when the number registers again", async () => {
    const user = await createUser({ smsOptOut: true, whatsappOptOut: true });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    const res = await call("/api/auth/register", {
      body: { phoneNumber: user.phone, app: "flex", name: "Back Again", password: PASSWORD, language: "en" },
    });
    expect(res.status).toBeLessThan(300);
    const again = await db
      .select()
      .from(users)
      .where(and(eq(users.phone, user.phone), eq(users.app, "flex")))
      .get();
    expect(again).toMatchObject({ smsOptOut: true, whatsappOptOut: true });
    expect(again?.id).not.toBe(user.id);
  });
});

describe("an erased account in a campaign's audience", () => {
  it("is no recipient: its row has no number", async () => {
    const day = new Date(Date.UTC(1990 + Math.floor(Math.random() * 10), Math.floor(Math.random() * 12), 1 + Math.floor(Math.random() * 28), 12));
    const date = day.toISOString().slice(0, 10);
    const kept = await createUser({ createdAt: day.getTime() });
    const gone = await createUser({ createdAt: day.getTime() });
    await eraseAccount(db, env, gone.id, { by: "self", actorId: gone.id });
    const { token } = await signInAs("owner");
    const res = await call("/api/admin/campaigns", {
      token,
      body: {
        idempotencyKey: uniqueTag("k"),
        source: "drivers",
        channel: "sms",
        purpose: "service",
        message: "Your week",
        audience: { app: "flex", startDate: date, endDate: date, timeZone: "UTC" },
      },
    });
    expect(res.status).toBe(201);
    expect((await json(res)).campaign.total).toBe(1);
    expect(kept.id).not.toBe(gone.id);
  });
});

describe("an account erased in its first day", () => {
  it("is not filed as a drop-off lead by the cron", async () => {
    const now = Date.now();
    const user = await createUser({ createdAt: now - 25 * 3_600_000, phoneVerified: false });
    await eraseAccount(db, env, user.id, { by: "self", actorId: user.id });
    await fileDropOffLeads(db, now);
    expect(await db.select().from(leads).where(eq(leads.userId, user.id)).all()).toEqual([]);
  });
});
