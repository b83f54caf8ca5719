import { z } from "zod";
import { createLogger, type Logger } from "./log";

/** Deliveries a job already had as earlier queue messages (see handleQueueBatch): counted with the queue's own attempts. */
const retries = z.number().int().nonnegative().optional();

/** Every job the dispatch queue carries. A body that does not parse can never succeed and is acked. */
export const jobSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("expand"), campaignId: z.number().int().positive(), retries }),
  // slotAt: a send slot already reserved from the sender's pacer by an earlier delivery of this job.
  z.object({ kind: z.literal("dispatch"), messageId: z.number().int().positive(), slotAt: z.number().int().positive().optional(), retries }),
  // One driver notification (a push to one device, or an SMS): src/worker/notifications/deliver.ts.
  z.object({ kind: z.literal("notify"), notificationId: z.number().int().positive(), retries }),
]);
export type Job = z.infer<typeof jobSchema>;
export type JobKind = Job["kind"];

/** Throw from a handler when trying again later can succeed (429, 5xx, time-outs, a busy sender). */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly delaySeconds?: number,
  ) {
    super(message);
    this.name = "RetryLater";
  }
}

export type JobContext = {
  env: Env;
  log: Logger;
  attempts: number;
  deadLettered: boolean;
  /** Keeps work running after the message is settled (a provider call that outlives its batch); absent outside a real invocation. */
  waitUntil?: (promise: Promise<unknown>) => void;
  /**
   * Every job of the delivery this one came in (the same array for all of them), so a handler can
   * do per batch what would otherwise cost one round trip per message (set-based reads, one pacer
   * call for the batch's slots). Absent when a job is handled on its own.
   */
  batch?: readonly Job[];
};
export type JobHandlers = { [K in JobKind]?: (job: Extract<Job, { kind: K }>, ctx: JobContext) => Promise<void> };

/** Exponential back-off in seconds for attempt n (1-based): 2, 4, 8 … capped at 5 minutes. */
export function backoffSeconds(attempts: number): number {
  return Math.min(300, 2 ** Math.max(1, attempts));
}

export const DEAD_LETTER_QUEUE = "blockpilot-dispatch-dlq";
/** The dispatch consumer's max_retries (wrangler.toml). */
export const QUEUE_MAX_RETRIES = 6;
/** Queues refuse a delay longer than 12 hours. */
export const MAX_DELAY_SECONDS = 43_200;

/**
 * Acks or retries each message on its own: one bad message never drags its batch-mates into a retry,
 * and nothing is acked wholesale. Messages of a batch run concurrently, because a dispatch job
 * spends most of its time waiting (for its send slot, for the provider) and a batch handled one
 * message after another could never keep up with the sender's rate. Messages arriving on the
 * dead-letter queue are handed over with `deadLettered: true` so the handler can record what died.
 *
 * A handler's RetryLater goes back as a new message sent at once with the delay asked for, and
 * this one is acked. A retry() only takes effect when the whole batch has finished, and a batch of
 * dispatch jobs lasts as long as its last send slot (two seconds of them at 50 a second): the
 * delay would start that much late, and retries of faults near the end of a campaign were its
 * tail. The new message carries how many deliveries the job has had (`retries`), and from
 * QUEUE_MAX_RETRIES on the queue's own retry() takes over, so a job that keeps failing still
 * reaches the dead-letter queue after that many more. Any other error, or a new message that could
 * not be sent, is a plain retry().
 */
export async function handleQueueBatch(batch: MessageBatch<unknown>, env: Env, handlers: JobHandlers, ctx?: ExecutionContext): Promise<void> {
  const deadLettered = batch.queue === DEAD_LETTER_QUEUE;
  const log = createLogger({ queue: batch.queue });
  const waitUntil = ctx ? (promise: Promise<unknown>) => ctx.waitUntil(promise) : undefined;
  const parsed = batch.messages.map((message) => ({ message, parsed: jobSchema.safeParse(message.body) }));
  const jobs = parsed.flatMap((p) => (p.parsed.success ? [p.parsed.data] : []));
  await Promise.all(
    parsed.map(async ({ message, parsed }) => {
      if (!parsed.success) {
        log.warn("queue.malformed", { id: message.id, issues: parsed.error.issues.map((i) => i.message) });
        message.ack();
        return;
      }
      const job = parsed.data;
      const attempts = (job.retries ?? 0) + message.attempts;
      const handler = handlers[job.kind] as ((job: Job, ctx: JobContext) => Promise<void>) | undefined;
      if (!handler) {
        log.error("queue.no_handler", { id: message.id, kind: job.kind });
        message.retry({ delaySeconds: backoffSeconds(attempts) });
        return;
      }
      try {
        await handler(job, { env, log: log.child({ kind: job.kind }), attempts, deadLettered, waitUntil, batch: jobs });
        message.ack();
      } catch (err) {
        const delaySeconds = err instanceof RetryLater && err.delaySeconds !== undefined ? err.delaySeconds : backoffSeconds(attempts);
        const delay = Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil(delaySeconds)));
        log.warn("queue.retry", { id: message.id, kind: job.kind, attempts, delaySeconds: delay, error: String(err) });
        if (err instanceof RetryLater && !deadLettered && attempts <= QUEUE_MAX_RETRIES) {
          try {
            await env.DISPATCH.send({ ...job, retries: attempts } satisfies Job, delay > 0 ? { delaySeconds: delay } : undefined);
            message.ack();
            return;
          } catch (sendErr) {
            log.warn("queue.requeue_failed", { id: message.id, kind: job.kind, error: String(sendErr) });
          }
        }
        message.retry({ delaySeconds: delay });
      }
    }),
  );
}
