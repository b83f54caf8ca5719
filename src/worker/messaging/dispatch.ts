import { eq } from "drizzle-orm";
import { complianceNow } from "../compliance/clock";
import { nextAllowedAt } from "../compliance/quiet-hours";
import { dbFor } from "../db/client";
import { campaignMessages } from "../db/schema";
import { providerTimeoutMs } from "../providers/http-call";
import type { SendOutcome } from "../providers/outcome";
import { backoffSeconds, type Job, type JobContext, RetryLater } from "../queue";
import { type MessageRecord, messageOf, reserveSlot } from "./dispatch-batch";
import { EXCLUSION_MESSAGES, exclusionsOf } from "./exclusions";
import { claimMessage, deadLetterMessage, deferMessage, failInDoubt, retryMessage, skipMessage } from "./message-ledger";
import { BURST_SECONDS } from "./pacer";
import { isAmbiguous, reconcile, record, senderFor } from "./provider-send";
import { delayUntil, leaseMs, resendWaitMs } from "./waits";

/**
 * The queue job that sends one message (docs/architecture.md, the messaging pipeline): dispatch
 * claims its ledger row, waits for its send slot and sends it. Every row ends in a visible state:
 * sent/delivered, failed with the provider's code (also after the dead-letter queue), or skipped.
 */

/** A consumer sleeps for a slot at most this long; a later slot sends the job back to the queue until then. */
export const SLOT_HORIZON_MS = 15_000;
/** A deferred job is asked back this much before its slot, so a late queue delivery still makes it. */
const DEFER_EARLY_MS = 5_000;
/** A reserved slot missed by more than this is given up and a fresh one asked for: sending late would bunch sends. */
export const STALE_SLOT_MS = 250;
/**
 * A provider call still running this long after its slot no longer holds its batch up: it finishes
 * in the background and the job comes back after the call's time-out. Cheap when it fires (the
 * returning job finds the row settled and stops), and it keeps one hung call from idling every
 * send slot behind it while the runtime waits for the batch. No longer than the pacer's burst
 * (BURST_SECONDS): the next batch's sends catch up a pause that short, and a longer one is lost.
 */
export const DETACH_AFTER_MS = BURST_SECONDS * 1000;
/** A row whose callback wait ends within this is waited for in place rather than sent round the queue again. */
export const HOLD_SLEEP_MS = 1_500;
/** A pending marketing message expanded longer ago than this is held to the consent and cap rules again before it goes. */
const RECHECK_AFTER_MS = 10 * 60_000;

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

type DispatchJob = Extract<Job, { kind: "dispatch" }>;

/**
 * One message's send, as its steps: the row still open, a claim left by an earlier send settled,
 * the rules checked at the moment of sending, a send slot, the claim, the send and its record.
 */
export async function dispatchMessage(job: DispatchJob, ctx: JobContext): Promise<void> {
  if (ctx.deadLettered) return messageDied(ctx.env, job.messageId);
  const m = await messageOf(dbFor(ctx.env.DB), ctx, job.messageId);
  // Gone (campaign deleted) or already settled: a redelivered job does nothing.
  if (!m || !OPEN.includes(m.status)) return;
  if (m.status === "sending" && (await settledInDoubt(ctx, m))) return;
  if (await leftOut(ctx.env, m)) return;
  if (m.category === "marketing" && (await deferIfQuiet(ctx.env, m))) return;
  const provider = senderFor(ctx.env, m);
  const slotAt = await takeSlot(job, ctx, m, provider.sender);
  if (slotAt === null) return;
  const claimed = await claimMessage(dbFor(ctx.env.DB), m.id, Date.now(), leaseMs(ctx.env));
  if (!claimed) return;
  const holdMs = resendWaitMs(ctx.env, m.channel);
  const outcome = await sendAndRecord(ctx, m, provider.send, slotAt, holdMs);
  retryIfTransient(outcome, claimed.attempts, holdMs);
}

/** The statuses a dispatch job still has work for. */
const OPEN: readonly MessageRecord["status"][] = ["pending", "deferred", "sending"];

/**
 * A row already claimed. Someone holds it (if they died, their claim runs out and this job,
 * retried, takes over), or its last send got no answer and it waits for that send's status
 * callback: the job comes back when that is over (RetryLater). Over, it is in doubt: an SMS
 * provider is asked before it goes again (settled if the provider has it). WhatsApp cannot be
 * asked: a held row (a time-out we saw, with the whole callback wait for its status to arrive) goes
 * again, but a claim that ran out with nothing recorded fails visibly instead of risking a second
 * message (its status, should Meta deliver it late, still settles it). Answers whether it is settled.
 */
async function settledInDoubt(ctx: JobContext, m: MessageRecord): Promise<boolean> {
  const left = (m.heldUntil ?? m.updatedAt + leaseMs(ctx.env)) - Date.now();
  if (m.heldUntil !== null && left > 0 && left <= HOLD_SLEEP_MS) {
    // Back a moment before its wait ends (the queue's delays are whole seconds): going round the
    // queue again would cost more than the rest of the wait. The claim still refuses the row if
    // its callback settled it meanwhile.
    await sleep(left);
  } else if (left > 0) {
    const why = m.heldUntil !== null ? "waits for the status callback (or lookup) of a send that got no answer" : "is being sent by another consumer";
    // A held row comes back just before its wait ends (the rest, under a second and a half, is
    // slept out above): rounding the queue's whole-second delay up would add up to a second, and
    // a queue hop more, to every held row.
    throw new RetryLater(`message ${m.id} ${why}`, m.heldUntil !== null ? Math.floor(left / 1000) : Math.ceil(left / 1000) + 1);
  }
  if (m.channel === "sms") return reconcile(ctx.env, ctx, m);
  if (m.heldUntil !== null) return false;
  await failInDoubt(dbFor(ctx.env.DB), m);
  ctx.log.warn("dispatch.in_doubt", { messageId: m.id });
  return true;
}

/**
 * The rules at the moment of sending: an opted-out number is skipped, and a marketing message that
 * waited (for its recipient's hours, or in a long queue) is held to consent and the cap again, as
 * another campaign may have reached the cap meanwhile. (Opt-outs, the one way consent is
 * withdrawn, are checked for every message.) Answers whether the row was skipped.
 */
async function leftOut(env: Env, m: MessageRecord): Promise<boolean> {
  const db = dbFor(env.DB);
  if (m.optedOut) {
    await skipMessage(db, m, { errorCode: "opted_out", errorMessage: "The number opted out" });
    return true;
  }
  if (m.category !== "marketing" || (m.status !== "deferred" && Date.now() - m.updatedAt <= RECHECK_AFTER_MS)) return false;
  const rules = { category: "marketing", channel: m.channel, now: Date.now(), campaignId: m.campaignId } as const;
  const exclusion = (await exclusionsOf(db, [m.phone], rules)).get(m.phone);
  if (!exclusion) return false;
  await skipMessage(db, m, { errorCode: exclusion, errorMessage: EXCLUSION_MESSAGES[exclusion] ?? exclusion });
  return true;
}

/**
 * The send slot: one already reserved by an earlier delivery of the job, or a fresh one from the
 * sender's pacer, slept for. A slot too far ahead sends the job back to the queue until just
 * before it, keeping it; a slot that carried a marketing message past the end of its recipient's
 * hours defers it. Answers the slot, or null when the job is done for now.
 */
async function takeSlot(job: DispatchJob, ctx: JobContext, m: MessageRecord, sender: string | null): Promise<number | null> {
  const { env } = ctx;
  if (!sender) return Date.now();
  const reserved = job.slotAt;
  const slotAt = reserved !== undefined && reserved >= Date.now() - STALE_SLOT_MS ? reserved : await reserveSlot(env, ctx, sender);
  const wait = slotAt - Date.now();
  if (wait > SLOT_HORIZON_MS) {
    // Holding an invocation for minutes helps nobody: come back just before the slot, keeping it.
    await env.DISPATCH.send({ kind: "dispatch", messageId: m.id, slotAt } satisfies Job, { delaySeconds: Math.floor((wait - DEFER_EARLY_MS) / 1000) });
    return null;
  }
  await sleep(wait);
  if (m.category === "marketing" && (await deferIfQuiet(env, m))) return null;
  return slotAt;
}

/**
 * The send on a claimed row and its record (provider-send.ts record). A fault of ours (not an
 * answer from the provider) gives the row back so a retry can take it. A provider that is slow to
 * answer (a time-out in the making) must not hold its whole batch, and with it every send slot
 * behind it: past the grace period the call finishes in the background and the job comes back
 * once the call has surely ended.
 */
async function sendAndRecord(ctx: JobContext, m: MessageRecord, send: () => Promise<SendOutcome>, slotAt: number, holdMs: number): Promise<SendOutcome> {
  const { env } = ctx;
  const attempt = (async () => {
    let outcome: SendOutcome;
    try {
      outcome = await send();
    } catch (err) {
      await retryMessage(dbFor(env.DB), m.id, null);
      throw err;
    }
    await record(env, m, outcome, holdMs);
    return outcome;
  })();
  if (!ctx.waitUntil) return attempt;
  let timer: ReturnType<typeof setTimeout> | null = null;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), Math.max(0, slotAt + DETACH_AFTER_MS - Date.now()));
  });
  let first: SendOutcome | "late";
  try {
    first = await Promise.race([attempt, late]);
  } finally {
    if (timer !== null) clearTimeout(timer);
  }
  if (first !== "late") return first;
  ctx.waitUntil(attempt.catch((err: unknown) => ctx.log.error("dispatch.background_failed", { messageId: m.id, error: String(err) })));
  // A call this slow is almost always a time-out, after which the row is held for `holdMs`: the
  // job comes back as that hold ends (just before; the rest is slept out), not once in between to
  // find it held. Had the call answered after all, the returning job finds the row settled, or
  // pending again a few seconds later than it could have been.
  const holdEndsIn = slotAt + providerTimeoutMs(env) + holdMs - Date.now();
  throw new RetryLater(`provider slow for message ${m.id}; finishing in the background`, Math.max(0, Math.floor(holdEndsIn / 1000)));
}

/** A transient failure comes back with exponential back-off (or the provider's Retry-After); an ambiguous send as its hold ends (record() started it just now). */
function retryIfTransient(outcome: SendOutcome, attempts: number, holdMs: number): void {
  if (outcome.ok || !outcome.retryable) return;
  const delay = isAmbiguous(outcome) ? Math.ceil(holdMs / 1000) : (outcome.retryAfterSeconds ?? backoffSeconds(attempts));
  throw new RetryLater(`${outcome.errorCode}: ${outcome.errorMessage}`, delay);
}

/**
 * Outside the recipient's allowed hours: the row says deferred (and until when) and the job goes
 * back to the queue with a delay; nothing sleeps. Answers whether it deferred.
 */
async function deferIfQuiet(env: Env, m: MessageRecord): Promise<boolean> {
  const now = Date.now();
  const clock = complianceNow(env, now);
  const until = nextAllowedAt(m.phone, clock);
  if (until <= clock) return false;
  await deferMessage(dbFor(env.DB), m.id, until, now);
  await env.DISPATCH.send({ kind: "dispatch", messageId: m.id } satisfies Job, { delaySeconds: delayUntil(until, clock) });
  return true;
}

/** The queue gave up on a message: its row fails, says it was dead-lettered, and keeps the last error seen. */
async function messageDied(env: Env, id: number) {
  const db = dbFor(env.DB);
  const lease = leaseMs(env);
  const m = await db
    .select({
      id: campaignMessages.id,
      campaignId: campaignMessages.campaignId,
      status: campaignMessages.status,
      attempts: campaignMessages.attempts,
      updatedAt: campaignMessages.updatedAt,
      errorCode: campaignMessages.errorCode,
      errorMessage: campaignMessages.errorMessage,
    })
    .from(campaignMessages)
    .where(eq(campaignMessages.id, id))
    .get();
  if (!m || !OPEN.includes(m.status)) return;
  const now = Date.now();
  if (m.status === "sending" && m.updatedAt > now - lease) {
    throw new RetryLater(`message ${id} is being sent; deciding after its claim runs out`, Math.ceil((m.updatedAt + lease - now) / 1000) + 1);
  }
  const last = m.errorCode ? `; last error ${m.errorCode}${m.errorMessage ? `: ${m.errorMessage}` : ""}` : "";
  await deadLetterMessage(db, m, `Gave up after ${m.attempts} send attempt${m.attempts === 1 ? "" : "s"}${last}`, now);
}
