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
