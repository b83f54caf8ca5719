import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { backoffSeconds, DEAD_LETTER_QUEUE, handleQueueBatch, type JobHandlers, MAX_DELAY_SECONDS, QUEUE_MAX_RETRIES, RetryLater } from "./queue";
import { batchWithRetryDelays, queueMessage, recordingQueue } from "./test/queue-batch";

const msg = queueMessage;

/** One batch through the consumer, with a recording queue for what it sends back; `sent` is that. */
async function run(queue: string, messages: ReturnType<typeof msg>[], handlers: JobHandlers, { sendFails = false } = {}) {
  const recording = recordingQueue();
  if (sendFails) {
    recording.queue.send = async () => {
      throw new Error("queue unavailable");
    };
  }
  const { batch, delays } = batchWithRetryDelays(queue, messages);
  const ctx = createExecutionContext();
  await handleQueueBatch(batch, { ...env, DISPATCH: recording.queue }, handlers);
  return { ...(await getQueueResult(batch, ctx)), delays, sent: recording.jobs };
}

describe("queue consumer", () => {
  it("acks each message on its own: a malformed one is acked, a failing one retried", async () => {
    const seen: number[] = [];
    const result = await run(
      "blockpilot-dispatch",
      [msg("ok", { kind: "dispatch", messageId: 1 }), msg("bad", { kind: "nonsense" }), msg("flaky", { kind: "dispatch", messageId: 2 }, 3)],
      {
        dispatch: async (job) => {
          seen.push(job.messageId);
          if (job.messageId === 2) throw new Error("provider timed out");
        },
      },
    );
    expect(seen).toEqual([1, 2]);
    expect(result.explicitAcks.sort()).toEqual(["bad", "ok"]);
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["flaky"]);
    expect(result.delays).toEqual({ flaky: backoffSeconds(3) });
    expect(result.ackAll).toBe(false);
    expect(result.retryBatch.retry).toBe(false);
  });

  it("sends a RetryLater back at once, as a new message with the delay asked for and the deliveries so far, and acks this one", async () => {
    const result = await run("blockpilot-dispatch", [msg("limited", { kind: "expand", campaignId: 7 }, 2)], {
      expand: async () => {
        throw new RetryLater("429 from provider", 17);
      },
    });
    expect(result.retryMessages).toEqual([]);
    expect(result.explicitAcks).toEqual(["limited"]);
    expect(result.sent).toEqual([{ job: { kind: "expand", campaignId: 7, retries: 2 }, delaySeconds: 17 }]);
  });

  it("counts a job's earlier deliveries as attempts, and leaves it to the queue's own retries (and so its dead-letter queue) from the limit on", async () => {
    const seen: number[] = [];
    const handlers: JobHandlers = {
      dispatch: async (_job, ctx) => {
        seen.push(ctx.attempts);
        throw new RetryLater("busy", 3);
      },
    };
    const last = await run("blockpilot-dispatch", [msg("last", { kind: "dispatch", messageId: 4, retries: QUEUE_MAX_RETRIES - 1 })], handlers);
    expect(last.sent).toEqual([{ job: { kind: "dispatch", messageId: 4, retries: QUEUE_MAX_RETRIES }, delaySeconds: 3 }]);
    const over = await run("blockpilot-dispatch", [msg("over", { kind: "dispatch", messageId: 4, retries: QUEUE_MAX_RETRIES })], handlers);
    expect(seen).toEqual([QUEUE_MAX_RETRIES, QUEUE_MAX_RETRIES + 1]);
    expect(over.sent).toEqual([]);
    expect(over.retryMessages.map((m) => m.msgId)).toEqual(["over"]);
    expect(over.delays).toEqual({ over: 3 });
  });

  it("falls back to the queue's retry when the new message cannot be sent, and never sends back from the dead-letter queue", async () => {
    const handlers: JobHandlers = {
      dispatch: async () => {
        throw new RetryLater("busy", 5);
      },
    };
    const unsent = await run("blockpilot-dispatch", [msg("m", { kind: "dispatch", messageId: 1 })], handlers, { sendFails: true });
    expect(unsent.retryMessages.map((m) => m.msgId)).toEqual(["m"]);
    expect(unsent.delays).toEqual({ m: 5 });
    const dead = await run(DEAD_LETTER_QUEUE, [msg("d", { kind: "dispatch", messageId: 1 })], handlers);
    expect(dead.sent).toEqual([]);
    expect(dead.retryMessages.map((m) => m.msgId)).toEqual(["d"]);
  });

  it("tells handlers when a message comes from the dead-letter queue", async () => {
    const flags: boolean[] = [];
    await run(DEAD_LETTER_QUEUE, [msg("dead", { kind: "dispatch", messageId: 9 })], {
      dispatch: async (_job, ctx) => {
        flags.push(ctx.deadLettered);
      },
    });
    expect(flags).toEqual([true]);
  });

  it("runs the messages of a batch at the same time, each settled on its own", async () => {
    let running = 0;
    let peak = 0;
    const result = await run(
      "blockpilot-dispatch",
      Array.from({ length: 5 }, (_, i) => msg(`m${i}`, { kind: "dispatch", messageId: i + 1 })),
      {
        dispatch: async (job) => {
          running++;
          peak = Math.max(peak, running);
          await new Promise((r) => setTimeout(r, 50));
          running--;
          if (job.messageId === 3) throw new RetryLater("busy", 9);
        },
      },
    );
    expect(peak).toBe(5);
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1", "m2", "m3", "m4"]);
    expect(result.sent).toEqual([{ job: { kind: "dispatch", messageId: 3, retries: 1 }, delaySeconds: 9 }]);
  });

  it("never asks for a delay the queue would refuse", async () => {
    const result = await run("blockpilot-dispatch", [msg("far", { kind: "dispatch", messageId: 1 })], {
      dispatch: async () => {
        throw new RetryLater("come back next week", 7 * 86_400);
      },
    });
    expect(result.sent.map((s) => s.delaySeconds)).toEqual([MAX_DELAY_SECONDS]);
  });

  it("backs off exponentially up to five minutes", () => {
    expect([1, 2, 3, 4, 8, 20].map(backoffSeconds)).toEqual([2, 4, 8, 16, 256, 300]);
  });
});
