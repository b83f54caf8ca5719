/**
 * The notification tests' fixtures: subscriptions made by the fake push service of test/fake-push
 * (which decrypts what it is sent), a Worker env whose queue records the `notify` jobs, and a queue
 * delivery of chosen jobs through the real consumer (handleQueueBatch with the real handlers).
 */
import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { and, eq, inArray } from "drizzle-orm";
import type { PushSubscriptionJson } from "../../shared/notifications";
import { driverNotifications, pushSubscriptions } from "../db/schema";
import { jobHandlers } from "../messaging/jobs";
import { handleQueueBatch, type Job } from "../queue";
import { db } from "./fixtures";
import { batchWithRetryDelays, queueMessage, recordingQueue, requeuesAsRetries } from "./queue-batch";

export type FakePushMessage = { plaintext: string; ttl: number; urgency: string | null; topic: string | null };

/** A browser's subscription at the fake push service (a fresh key pair and auth secret). */
export async function fakeSubscription(): Promise<PushSubscriptionJson> {
  return (await fetch(`${env.FAKE_PUSH_URL}/__control/subscriptions`, { method: "POST" })).json();
}

const control = (endpoint: string) => `${env.FAKE_PUSH_URL}/__control/subscriptions/${endpoint.split("/push/")[1]}`;

/** What the fake push service kept for an endpoint (as a browser would be shown it), and what it accepted and refused. */
export async function pushedTo(endpoint: string): Promise<{ messages: FakePushMessage[]; accepted: number; refused: { status: number; reason: string }[] }> {
  return (await fetch(`${control(endpoint)}/messages`)).json();
}

/** The endpoint answers `status` to its next `times` messages. */
export async function pushFault(endpoint: string, status: 404 | 410 | 429 | 503, times = 1, retryAfter?: number) {
  await fetch(`${control(endpoint)}/faults`, { method: "POST", body: JSON.stringify({ status, times, retryAfter }) });
}

/** A device of the driver's: a fake subscription stored for them. */
export async function deviceOf(userId: number): Promise<PushSubscriptionJson & { id: number }> {
  const subscription = await fakeSubscription();
  const [row] = await db
    .insert(pushSubscriptions)
    .values({ userId, endpoint: subscription.endpoint, p256dh: subscription.keys.p256dh, auth: subscription.keys.auth })
    .returning({ id: pushSubscriptions.id });
  return { ...subscription, id: row!.id };
}

/** A Worker env whose DISPATCH queue records jobs instead of delivering them. */
export function notifySetup(overrides: Partial<Env> = {}) {
  const queue = recordingQueue();
  return { queue, workerEnv: { ...env, ...overrides, DISPATCH: queue.queue } as Env };
}
type NotifySetup = ReturnType<typeof notifySetup>;

/** The notify jobs the recording queue holds (taken off it). */
export function takeJobs(s: NotifySetup): Job[] {
  return s.queue.jobs.splice(0).map((j) => j.job);
}

/** One delivery of `jobs` through the consumer: which were acked, which retried (a RetryLater's new message counts), with what delay. */
export async function deliverJobs(s: NotifySetup, jobs: Job[], { queue = "blockpilot-dispatch", attempts = 1 } = {}) {
  const messages = jobs.map((job, i) => queueMessage(`m${i}`, job, attempts));
  const { batch, delays } = batchWithRetryDelays(queue, messages);
  const ctx = createExecutionContext();
  const queuedBefore = s.queue.jobs.length;
  await handleQueueBatch(batch, s.workerEnv, jobHandlers);
  const result = await getQueueResult(batch, ctx);
  const requeued = requeuesAsRetries(s.queue.jobs, messages, queuedBefore);
  return {
    acked: result.explicitAcks.filter((id) => !requeued.retried.includes(id)).sort(),
    retried: [...result.retryMessages.map((m) => m.msgId), ...requeued.retried].sort(),
    delays: { ...delays, ...requeued.delays },
  };
}

export const notificationsOf = (userId: number) =>
  db.select().from(driverNotifications).where(eq(driverNotifications.userId, userId)).orderBy(driverNotifications.id);

/**
 * Waits (at most `timeoutMs`) until none of these drivers' notifications is still queued or being
 * sent, twice in a row: an engine's notification goes out by the queue a second or so after the
 * block it tells of, and a file whose tests end before that would see it written into the next
 * file's tables (malformed-input.test.ts counts every table). A row still waiting after that
 * (a retry's long delay) is left to the queue.
 */
export async function settleNotifications(userIds: readonly number[], timeoutMs = 5000): Promise<void> {
  if (userIds.length === 0) return;
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  while (Date.now() < deadline && quiet < 2) {
    const open = await db
      .select({ id: driverNotifications.id })
      .from(driverNotifications)
      .where(and(inArray(driverNotifications.userId, [...userIds]), inArray(driverNotifications.status, ["queued", "sending"])))
      .limit(1);
    quiet = open.length === 0 ? quiet + 1 : 0;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
