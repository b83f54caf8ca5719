/**
 * A driver's notifications end to end: accepted as rows by the driver's channel (notify.ts), sent
 * by the `notify` job through the real consumer (deliver.ts) to the fake push service over HTTP,
 * which checks the VAPID header and decrypts each message, or as an SMS through the text budget;
 * the cron's sweep and the "service ends soon" run.
 */
import { env } from "cloudflare:test";
import { eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { formatDDMMYY } from "../../shared/dates";
import { type PushPayload, pushPayloadSchema } from "../../shared/notifications";
import { eraseAccount } from "../account/erase";
import { REQUESTED_SMS_BUDGET_KEY, REQUESTED_SMS_BUDGET_WINDOW_MS } from "../auth/rate-limit";
import { driverNotifications, notificationChannels, optOuts, outbox, pushSubscriptions, rateLimits, users } from "../db/schema";
import { createLogger } from "../log";
import { wonBlockMessage, wonBlockNotification } from "../platform/driver-texts";
import { DEAD_LETTER_QUEUE } from "../queue";
import { createUser, db, fakeTenant, uniquePhone } from "../test/fixtures";
import { deliverJobs, deviceOf, notificationsOf, notifySetup, pushedTo, pushFault, takeJobs } from "../test/push-fixtures";
import { recordingQueue } from "../test/queue-batch";
import { notifyDriver } from "./notify";
import { notifyServiceEnding } from "./service-ending";
import { requeueStalledNotifications } from "./sweep";

const log = createLogger({ task: "test" });
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// 8:00–11:00 on Wednesday 12 March 2031 in Los Angeles.
const block = {
  platformOfferId: "offer-1",
  stationName: "Test DLA9",
  startsAt: Date.parse("2031-03-12T08:00:00-07:00"),
  endsAt: Date.parse("2031-03-12T11:00:00-07:00"),
  payCents: 7250,
  timeZone: "America/Los_Angeles",
};
const blockWon = (userId: number, offerId = crypto.randomUUID()) => ["blockWon", wonBlockNotification(userId, { ...block, platformOfferId: offerId })] as const;
const smsTo = (phone: string) => db.select().from(outbox).where(eq(outbox.to, phone));

describe("a block won, by push", () => {
  it("reaches the fake push service, which decrypts exactly the payload sent, with its headers; once however often it is replayed", async () => {
    const s = notifySetup();
    const driver = await createUser();
    const device = await deviceOf(driver.id);
    const [event, content] = blockWon(driver.id);
    expect(await notifyDriver(s.workerEnv, log, driver.id, event, content)).toEqual({ queued: 1 });
    const jobs = takeJobs(s);
    const [queued] = await notificationsOf(driver.id);
    expect((await deliverJobs(s, jobs)).acked).toEqual(["m0"]);

    const [row] = await notificationsOf(driver.id);
    // Sent: the row keeps its state, not what it said.
    expect(row).toMatchObject({ channel: "push", subscriptionId: device.id, status: "sent", attempts: 1, error: null, body: "" });
    const { messages, accepted } = await pushedTo(device.endpoint);
    expect(accepted).toBe(1);
    expect(messages[0]!.plaintext).toBe(queued!.body);
    const payload: PushPayload = pushPayloadSchema.parse(JSON.parse(messages[0]!.plaintext));
    expect(payload).toMatchObject({ event: "blockWon", title: "Block won: Test DLA9", url: "/flex/dashboard", body: expect.stringContaining("$72.50") });
    expect(messages[0]).toMatchObject({ ttl: 4 * 3600, urgency: "high", topic: expect.stringMatching(/^blockWon-[0-9a-f]{23}$/) });
    // The default with a device is push alone: no SMS.
    expect(await smsTo(driver.phone)).toEqual([]);
    // The decision replayed: the same occurrence is not notified again.
    expect(await notifyDriver(s.workerEnv, log, driver.id, event, content)).toEqual({ queued: 0 });
    expect(await notificationsOf(driver.id)).toHaveLength(1);
  });

  it("a 410 removes the subscription and fails the row as gone", async () => {
    const s = notifySetup();
    const driver = await createUser();
    const device = await deviceOf(driver.id);
    await pushFault(device.endpoint, 410);
    await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id));
    expect((await deliverJobs(s, takeJobs(s))).acked).toEqual(["m0"]);
    expect(await notificationsOf(driver.id)).toMatchObject([{ status: "failed", error: "gone" }]);
    expect(await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.id, device.id))).toEqual([]);
    expect((await pushedTo(device.endpoint)).refused).toEqual([{ status: 410, reason: "injected fault" }]);
  });

  it("a 503 is retried after its Retry-After, and the retry sends once: one delivery, the row sent", async () => {
    const s = notifySetup();
    const driver = await createUser();
    const device = await deviceOf(driver.id);
    await pushFault(device.endpoint, 503, 1, 7);
    await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id));
    const [job] = takeJobs(s);
    const first = await deliverJobs(s, [job!]);
    expect(first).toMatchObject({ retried: ["m0"], delays: { m0: 7 } });
    const [waiting] = await notificationsOf(driver.id);
    expect(waiting).toMatchObject({ status: "queued", attempts: 1 });
    expect(waiting!.leaseUntil).toBeGreaterThan(Date.now());
    expect((await deliverJobs(s, [{ ...job!, retries: 1 }])).acked).toEqual(["m0"]);
    expect(await notificationsOf(driver.id)).toMatchObject([{ status: "sent", attempts: 2 }]);
    const pushed = await pushedTo(device.endpoint);
    expect(pushed.accepted).toBe(1);
    expect(pushed.messages).toHaveLength(1);
    expect(pushed.refused.map((r) => r.status)).toEqual([503]);
  });

  it("two deliveries of one job, at once or one after the other, send once", async () => {
    const s = notifySetup();
    const driver = await createUser();
    const device = await deviceOf(driver.id);
    await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id));
    const jobs = takeJobs(s);
    await Promise.all([deliverJobs(s, jobs), deliverJobs(s, [...jobs, ...jobs])]);
    await deliverJobs(s, jobs);
    expect((await pushedTo(device.endpoint)).accepted).toBe(1);
    expect(await notificationsOf(driver.id)).toMatchObject([{ status: "sent", attempts: 1 }]);
  });

  it("a job that reaches the dead-letter queue fails its row", async () => {
    const s = notifySetup();
    const driver = await createUser();
    await deviceOf(driver.id);
    await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id));
    await deliverJobs(s, takeJobs(s), { queue: DEAD_LETTER_QUEUE });
    expect(await notificationsOf(driver.id)).toMatchObject([{ status: "failed", error: "dead_lettered" }]);
  });
});

describe("who gets what", () => {
  it("a driver who chose push and has no device gets no SMS: the row is skipped", async () => {
    const s = notifySetup();
    const driver = await createUser();
    await db.insert(notificationChannels).values({ userId: driver.id, event: "blockWon", channel: "push" });
    expect(await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id))).toEqual({ queued: 0 });
    expect(await notificationsOf(driver.id)).toMatchObject([{ channel: "push", status: "skipped", error: "no_device" }]);
    expect(takeJobs(s)).toEqual([]);
    expect(await smsTo(driver.phone)).toEqual([]);
  });

  it("both: a push per device and an SMS; an opted-out driver's SMS is skipped; none: nothing is sent", async () => {
    const s = notifySetup();
    const both = await createUser();
    const [a, b] = [await deviceOf(both.id), await deviceOf(both.id)];
    await db.insert(notificationChannels).values({ userId: both.id, event: "blockWon", channel: "both" });
    expect(await notifyDriver(s.workerEnv, log, both.id, ...blockWon(both.id))).toEqual({ queued: 3 });
    expect((await notificationsOf(both.id)).map((r) => [r.channel, r.subscriptionId])).toEqual([
      ["push", a.id],
      ["push", b.id],
      ["sms", null],
    ]);
    const optedOut = await createUser({ smsOptOut: true });
    expect(await notifyDriver(s.workerEnv, log, optedOut.id, ...blockWon(optedOut.id))).toEqual({ queued: 0 });
    expect(await notificationsOf(optedOut.id)).toMatchObject([{ channel: "sms", status: "skipped", error: "opted_out" }]);
    const none = await createUser();
    await db.insert(notificationChannels).values({ userId: none.id, event: "blockWon", channel: "none" });
    expect(await notifyDriver(s.workerEnv, log, none.id, ...blockWon(none.id))).toEqual({ queued: 0 });
    expect(await notificationsOf(none.id)).toMatchObject([{ status: "skipped", error: "none_chosen" }]);
  });
});

describe("an SMS", () => {
  const clearBudget = () => db.delete(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY));
  afterEach(clearBudget);

  it("is charged to the text budget; a full budget retries it (nothing sent), and with room it goes out once", async () => {
    const driver = await createUser({ language: "es" });
    await clearBudget();
    // A budget of 10 leaves 8 to texts outside the sign-in reserve: all 8 spent.
    await db.insert(rateLimits).values({ key: REQUESTED_SMS_BUDGET_KEY, count: 8, resetAt: Date.now() + REQUESTED_SMS_BUDGET_WINDOW_MS });
    const full = notifySetup({ CODE_SMS_HOURLY_BUDGET: "10" });
    await notifyDriver(full.workerEnv, log, driver.id, ...blockWon(driver.id));
    const [job] = takeJobs(full);
    const refused = await deliverJobs(full, [job!]);
    expect(refused.retried).toEqual(["m0"]);
    expect(refused.delays.m0).toBeGreaterThan(0);
    expect(await notificationsOf(driver.id)).toMatchObject([{ channel: "sms", status: "queued" }]);
    expect(await smsTo(driver.phone)).toEqual([]);

    const roomy = notifySetup({ CODE_SMS_HOURLY_BUDGET: "20" });
    expect((await deliverJobs(roomy, [{ ...job!, retries: 1 }])).acked).toEqual(["m0"]);
    expect(await notificationsOf(driver.id)).toMatchObject([{ status: "sent" }]);
    expect((await smsTo(driver.phone)).map((m) => m.body)).toEqual([wonBlockMessage("es", block)]);
    expect((await db.select().from(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY)).get())?.count).toBe(9);
  });
});

describe("an SMS whose send got no answer", () => {
  const clearBudget = () => db.delete(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY));
  afterEach(clearBudget);
  const inDoubt = async (fault: "accept-timeout" | "timeout") => {
    const tenant = fakeTenant();
    const queue = recordingQueue();
    const s = { queue, workerEnv: tenant.env({ TWILIO_FROM: uniquePhone(), PROVIDER_TIMEOUT_MS: "1500", DISPATCH: queue.queue }) };
    const driver = await createUser();
    await db.insert(notificationChannels).values({ userId: driver.id, event: "blockWon", channel: "sms" });
    await tenant.configure({ script: [{ kind: fault }] });
    await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id));
    const jobs = queue.jobs.splice(0).map((j) => j.job);
    const first = await deliverJobs(s, jobs);
    expect(first.retried).toEqual(["m0"]);
    expect(await notificationsOf(driver.id)).toMatchObject([{ channel: "sms", status: "queued", error: "in_doubt" }]);
    const second = await deliverJobs(s, jobs, { attempts: 2 });
    expect(second.acked).toEqual(["m0"]);
    expect(await notificationsOf(driver.id)).toMatchObject([{ status: "sent", attempts: 2 }]);
    const budget = await db.select().from(rateLimits).where(eq(rateLimits.key, REQUESTED_SMS_BUDGET_KEY)).get();
    return { accepted: (await tenant.messages()).messages.filter((m) => m.to === driver.phone), charged: budget?.count };
  };

  it("is settled from the provider's record when the provider had taken it: sent once, charged once", async () => {
    const { accepted, charged } = await inDoubt("accept-timeout");
    expect(accepted).toHaveLength(1);
    expect(charged).toBe(1);
  });

  it("is sent again when the provider holds no such text: sent once, charged once", async () => {
    const { accepted, charged } = await inDoubt("timeout");
    expect(accepted).toHaveLength(1);
    expect(charged).toBe(1);
  });
});

describe("the cron", () => {
  it("queues again rows left queued or with a lapsed lease, not one due later or still held", async () => {
    const s = notifySetup();
    const driver = await createUser();
    const now = Date.now();
    const old = now - 86_400_000;
    const rows = await db
      .insert(driverNotifications)
      .values(
        [
          { status: "queued" as const, updatedAt: old },
          { status: "sending" as const, updatedAt: old, leaseUntil: now - 1000 },
          { status: "queued" as const, updatedAt: old, leaseUntil: now + 3_600_000 },
          { status: "sending" as const, updatedAt: old, leaseUntil: now + 60_000 },
        ].map((r, i) => ({ userId: driver.id, event: "blockWon" as const, channel: "sms" as const, key: `sweep:${driver.id}:${i}`, body: "x", ...r })),
      )
      .returning({ id: driverNotifications.id });
    await requeueStalledNotifications(s.workerEnv, log, now);
    const ids = takeJobs(s).map((j) => (j.kind === "notify" ? j.notificationId : 0));
    expect(ids).toEqual(expect.arrayContaining([rows[0]!.id, rows[1]!.id]));
    expect(ids).not.toContain(rows[2]!.id);
    expect(ids).not.toContain(rows[3]!.id);
    const after = await db
      .select()
      .from(driverNotifications)
      .where(inArray(driverNotifications.id, [rows[1]!.id, rows[3]!.id]));
    expect(after.map((r) => r.status)).toEqual(["queued", "sending"]);
  });

  it("tells each driver once, 24 hours before expiry, in their language; never an admin or an unconfirmed account; a text never to an opted-out number", async () => {
    const s = notifySetup();
    // A clock of its own, far ahead, so other tests' drivers are not due in this window.
    const now = Date.now() + 400 * DAY;
    const due = await createUser({ expirationAt: now + 23 * HOUR, language: "es" });
    const later = await createUser({ expirationAt: now + 25 * HOUR });
    const expired = await createUser({ expirationAt: now - HOUR });
    const flagged = await createUser({ expirationAt: now + 2 * HOUR, smsOptOut: true });
    const stopped = await createUser({ expirationAt: now + 2 * HOUR });
    await db.insert(optOuts).values({ phone: stopped.phone, channel: "sms", keyword: "STOP" });
    const admin = await createUser({ expirationAt: now + 2 * HOUR, isAdmin: true });
    const unconfirmed = await createUser({ expirationAt: now + 2 * HOUR, phoneVerified: false });
    const rowsOf = async (users: { id: number }[]) => (await Promise.all(users.map((u) => notificationsOf(u.id)))).flat();

    await Promise.all([notifyServiceEnding(s.workerEnv, log, now), notifyServiceEnding(s.workerEnv, log, now)]);
    await notifyServiceEnding(s.workerEnv, log, now + HOUR / 2);
    const [reminder] = await notificationsOf(due.id);
    expect(await rowsOf([due, later, expired, flagged, stopped, admin, unconfirmed])).toHaveLength(3);
    expect(reminder).toMatchObject({ event: "serviceEnding", channel: "sms", key: `serviceEnding:${due.id}:${now + 23 * HOUR}:sms`, status: "queued" });
    expect(reminder!.body).toBe(
      `Blockpilot: tu servicio termina en 24 horas (${formatDDMMYY(now + 23 * HOUR)}). Renueva en ${s.workerEnv.APP_ORIGIN}/payment para seguir atrapando bloques. Responde STOP para no recibir más.`,
    );
    // The opted-out ones are told by nothing they refused: their rows are skipped, no job.
    expect(await rowsOf([flagged, stopped])).toMatchObject([
      { status: "skipped", error: "opted_out" },
      { status: "skipped", error: "opted_out" },
    ]);
    expect(takeJobs(s).map((j) => (j.kind === "notify" ? j.notificationId : 0))).toEqual([reminder!.id]);

    // Paid again: a new expiration earns a new notification when it comes near.
    await db
      .update(users)
      .set({ expirationAt: now + 8 * DAY })
      .where(eq(users.id, due.id));
    await notifyServiceEnding(s.workerEnv, log, now + 7 * DAY + HOUR);
    expect(await notificationsOf(due.id)).toHaveLength(2);
    // And the later driver gets theirs once their day comes.
    await notifyServiceEnding(s.workerEnv, log, now + 2 * HOUR);
    expect(await notificationsOf(later.id)).toHaveLength(1);
  });
});

describe("erasing the account", () => {
  it("deletes the driver's devices, channel choices and notifications (the user row stays, anonymised)", async () => {
    const s = notifySetup();
    const driver = await createUser();
    await deviceOf(driver.id);
    await db.insert(notificationChannels).values({ userId: driver.id, event: "blockWon", channel: "both" });
    await notifyDriver(s.workerEnv, log, driver.id, ...blockWon(driver.id));
    expect(await notificationsOf(driver.id)).toHaveLength(2);
    await eraseAccount(db, env, driver.id, { by: "self", actorId: driver.id });
    expect(await notificationsOf(driver.id)).toEqual([]);
    expect(await db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, driver.id))).toEqual([]);
    expect(await db.select().from(notificationChannels).where(eq(notificationChannels.userId, driver.id))).toEqual([]);
    // A job still queued for it finds nothing to send.
    expect((await deliverJobs(s, takeJobs(s))).acked).toEqual(["m0", "m1"]);
  });
});
