import { createMessageBatch } from "cloudflare:test";
import { vi } from "vitest";
import type { Job } from "../queue";

/** A queue message as the test harness takes it. */
export const queueMessage = <T>(id: string, body: T, attempts = 1) => ({ id, timestamp: new Date(), attempts, body });

/**
 * A batch for the consumer, and the delay each message's retry() asks for: the harness's
 * getQueueResult says which messages were retried, not with what delay.
 */
export function batchWithRetryDelays<T>(queue: string, messages: ReturnType<typeof queueMessage<T>>[]) {
  const batch = createMessageBatch(queue, messages);
  const delays: Record<string, number | undefined> = {};
  for (const m of batch.messages) {
    const retry = m.retry.bind(m);
    vi.spyOn(m, "retry").mockImplementation((options) => {
      delays[m.id] = options?.delaySeconds;
      retry(options);
    });
  }
  return { batch, delays };
}

/**
 * A producer that records instead of delivering: the test decides when (and how often) each job
 * reaches the consumer, so redeliveries and crashes happen exactly where the test says.
 */
export function recordingQueue(opts: { failOnBatch?: number } = {}) {
  const jobs: { job: Job; delaySeconds?: number }[] = [];
  const batches: number[] = [];
  const queue = {
    async send(body: Job, options?: { delaySeconds?: number }) {
      jobs.push({ job: body, delaySeconds: options?.delaySeconds });
    },
    async sendBatch(messages: Iterable<{ body: Job; delaySeconds?: number }>) {
      const list = [...messages];
      if (opts.failOnBatch !== undefined && batches.length + 1 === opts.failOnBatch) {
        opts.failOnBatch = undefined;
        throw new Error("queue unavailable");
      }
      batches.push(list.length);
      for (const m of list) jobs.push({ job: m.body, delaySeconds: m.delaySeconds });
    },
  };
  return { queue: queue as unknown as Queue, jobs, batches };
}

const withoutRetries = (body: unknown) => {
  const { retries: _, ...rest } = body as Record<string, unknown>;
  return JSON.stringify(Object.fromEntries(Object.entries(rest).sort(([a], [b]) => a.localeCompare(b))));
};

/**
 * handleQueueBatch sends a RetryLater back at once as a new message carrying `retries`: this takes
 * those off a recording queue (from index `from` on) and reports them as the retries they stand
 * for, by the id of the batch message whose job they carry, with the delay asked for.
 */
export function requeuesAsRetries(recorded: { job: Job; delaySeconds?: number }[], messages: readonly { id: string; body: unknown }[], from = 0) {
  const retried: string[] = [];
  const delays: Record<string, number | undefined> = {};
  for (let i = recorded.length - 1; i >= from; i--) {
    const { job, delaySeconds } = recorded[i]!;
    if (job.retries === undefined) continue;
    const source = messages.find((m) => withoutRetries(m.body) === withoutRetries(job));
    if (!source) continue;
    recorded.splice(i, 1);
    retried.push(source.id);
    delays[source.id] = delaySeconds;
  }
  return { retried, delays };
}
