import { createMessageBatch } from "cloudflare:test";
import { vi } from "vitest";

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
