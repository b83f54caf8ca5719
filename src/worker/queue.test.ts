import { createExecutionContext, env, getQueueResult } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { backoffSeconds, DEAD_LETTER_QUEUE, handleQueueBatch, type JobHandlers, MAX_DELAY_SECONDS, RetryLater } from "./queue";
import { batchWithRetryDelays, queueMessage } from "./test/queue-batch";

const msg = queueMessage;

async function run(queue: string, messages: ReturnType<typeof msg>[], handlers: JobHandlers) {
  const { batch, delays } = batchWithRetryDelays(queue, messages);
  const ctx = createExecutionContext();
  await handleQueueBatch(batch, env, handlers);
  return { ...(await getQueueResult(batch, ctx)), delays };
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

  it("honours a handler's requested delay", async () => {
    const result = await run("blockpilot-dispatch", [msg("limited", { kind: "expand", campaignId: 7 })], {
      expand: async () => {
        throw new RetryLater("429 from provider", 17);
      },
    });
    expect(result.retryMessages.map((m) => m.msgId)).toEqual(["limited"]);
    expect(result.delays).toEqual({ limited: 17 });
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
    expect(result.explicitAcks.sort()).toEqual(["m0", "m1", "m3", "m4"]);
    expect(result.delays).toEqual({ m2: 9 });
  });

  it("never asks for a delay the queue would refuse", async () => {
    const result = await run("blockpilot-dispatch", [msg("far", { kind: "dispatch", messageId: 1 })], {
      dispatch: async () => {
        throw new RetryLater("come back next week", 7 * 86_400);
      },
    });
    expect(result.delays).toEqual({ far: MAX_DELAY_SECONDS });
  });

  it("backs off exponentially up to five minutes", () => {
    expect([1, 2, 3, 4, 8, 20].map(backoffSeconds)).toEqual([2, 4, 8, 16, 256, 300]);
  });
});
