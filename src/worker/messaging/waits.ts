import { providerTimeoutMs } from "../providers/http-call";
import { MAX_DELAY_SECONDS } from "../queue";

/**
 * How long the send pipeline waits, from the configuration (src/worker/config.ts validates each
 * setting): a send's claim, a status callback, a send that got no answer, stalled work, and the
 * queue's delay for a job that must wait until an instant.
 */

/**
 * SEND_LEASE_SECONDS (src/worker/config.ts validates it; 120 by default) in milliseconds. A claim
 * older than this is a consumer that died mid-send (or between the provider's answer and the ledger
 * write): the row is in doubt. It is longer than a status callback takes to arrive, so a send the
 * dead consumer did make is usually settled by its callback (which names the row); if not, an SMS is
 * looked up at the provider before anyone sends it again, and a WhatsApp row, which cannot be looked
 * up, fails visibly as `in_doubt` rather than risk a second message (docs/messaging-rules.md).
 */
export function leaseMs(env: Pick<Env, "SEND_LEASE_SECONDS">): number {
  return Number(env.SEND_LEASE_SECONDS) * 1000;
}

/** CALLBACK_WAIT_SECONDS (src/worker/config.ts validates it) in milliseconds. */
export function callbackWaitMs(env: Pick<Env, "CALLBACK_WAIT_SECONDS">): number {
  return Number(env.CALLBACK_WAIT_SECONDS) * 1000;
}

/**
 * How long a send that got no answer is held before it is reconsidered (docs/messaging-rules.md,
 * "Sends that got no answer"). WhatsApp has no way to ask the provider, so it waits the whole
 * callback wait. An SMS is looked up at the provider when the hold ends, so it need not wait for a
 * callback at all: only until the request we gave up on can no longer become a message there. That
 * request had the provider time-out to be answered; it gets as long again to land (and the lookup
 * sees anything that landed), capped by the callback wait.
 */
export function resendWaitMs(env: Pick<Env, "CALLBACK_WAIT_SECONDS" | "PROVIDER_TIMEOUT_MS">, channel: "sms" | "whatsapp"): number {
  return channel === "sms" ? Math.min(callbackWaitMs(env), providerTimeoutMs(env)) : callbackWaitMs(env);
}

/** REQUEUE_AFTER_SECONDS (src/worker/config.ts validates it) in milliseconds. */
export function requeueAfterMs(env: Pick<Env, "REQUEUE_AFTER_SECONDS">): number {
  return Number(env.REQUEUE_AFTER_SECONDS) * 1000;
}

/** The queue's delay for a job that must wait until `at`: at most the queue's longest, the job re-queues itself for the rest. */
export const delayUntil = (at: number, now = Date.now()) => Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((at - now) / 1000)));
