import { and, eq, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { complianceNow } from "../compliance/clock";
import { nextAllowedAt } from "../compliance/quiet-hours";
import { dbFor } from "../db/client";
import { campaignMessages } from "../db/schema";
import { providerTimeoutMs } from "../providers/http-call";
import type { SendOutcome } from "../providers/outcome";
import { backoffSeconds, type Job, type JobContext, RetryLater } from "../queue";
import { type MessageRecord, messageOf, reserveSlot } from "./dispatch-batch";
import { EXCLUSION_MESSAGES, exclusionsOf } from "./exclusions";
import { finishIfDone, finishStatement } from "./finish-campaign";
import { BURST_SECONDS } from "./pacer";
import { isAmbiguous, reconcile, record, senderFor } from "./provider-send";
import { IN_DOUBT } from "./receipts";
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

export async function dispatchMessage(job: Extract<Job, { kind: "dispatch" }>, ctx: JobContext): Promise<void> {
  const { env } = ctx;
  const db = dbFor(env.DB);
  if (ctx.deadLettered) return messageDied(env, job.messageId);
  const m = await messageOf(db, ctx, job.messageId);
  // Gone (campaign deleted) or already settled: a redelivered job does nothing.
  if (!m || (m.status !== "pending" && m.status !== "deferred" && m.status !== "sending")) return;
  if (m.status === "sending") {
    // Someone holds it (if they died, their claim runs out and this job, retried, takes over), or
    // its last send got no answer and it waits for that send's status callback.
    const left = (m.heldUntil ?? m.updatedAt + leaseMs(env)) - Date.now();
    if (m.heldUntil !== null && left > 0 && left <= HOLD_SLEEP_MS) {
      // Back a moment before its wait ends (the queue's delays are whole seconds): going round the
      // queue again would cost more than the rest of the wait. The claim below still refuses the
      // row if its callback settled it meanwhile.
      await sleep(left);
    } else if (left > 0) {
      const why = m.heldUntil !== null ? "waits for the status callback (or lookup) of a send that got no answer" : "is being sent by another consumer";
      // A held row comes back just before its wait ends (the rest, under a second and a half, is
      // slept out above): rounding the queue's whole-second delay up would add up to a second, and
      // a queue hop more, to every held row.
      throw new RetryLater(`message ${m.id} ${why}`, m.heldUntil !== null ? Math.floor(left / 1000) : Math.ceil(left / 1000) + 1);
    }
    // Its wait is over (a send that got no answer) or its claim ran out (a consumer that died
    // mid-send, or between the provider's answer and the ledger write) and no callback settled it:
    // it is in doubt. An SMS provider is asked before it goes again. WhatsApp cannot be asked: a
    // held row (a time-out we saw, with the whole callback wait for its status to arrive) goes
    // again, but a claim that ran out with nothing recorded fails visibly instead of risking a
    // second message (its status, should Meta deliver it late, still settles it).
    if (m.channel === "sms" && (await reconcile(env, ctx, m))) return;
    if (m.channel === "whatsapp" && m.heldUntil === null) {
      await db.batch([
        db
          .update(campaignMessages)
          .set({ status: "failed", ...IN_DOUBT, updatedAt: Date.now() })
          .where(and(eq(campaignMessages.id, m.id), eq(campaignMessages.status, "sending"), isNull(campaignMessages.heldUntil))),
        finishStatement(db, m.campaignId),
      ]);
      ctx.log.warn("dispatch.in_doubt", { messageId: m.id });
      return;
    }
  }
  if (m.optedOut) {
    await db
      .update(campaignMessages)
      .set({ status: "skipped", errorCode: "opted_out", errorMessage: "The number opted out", updatedAt: Date.now() })
      .where(and(eq(campaignMessages.id, m.id), inArray(campaignMessages.status, ["pending", "deferred", "sending"])));
    await finishIfDone(db, m.campaignId);
    return;
  }
  if (m.category === "marketing" && (m.status === "deferred" || Date.now() - m.updatedAt > RECHECK_AFTER_MS)) {
    // A message that waited (for its recipient's hours, or in a long queue) is checked again at the
    // moment of sending: another campaign may have reached the cap meanwhile. (Opt-outs, the one
    // way consent is withdrawn, are checked above for every message.)
    const exclusion = (await exclusionsOf(db, [m.phone], { category: "marketing", channel: m.channel, now: Date.now(), campaignId: m.campaignId })).get(
      m.phone,
    );
    if (exclusion) {
      await db
        .update(campaignMessages)
        .set({ status: "skipped", errorCode: exclusion, errorMessage: EXCLUSION_MESSAGES[exclusion] ?? exclusion, updatedAt: Date.now() })
        .where(and(eq(campaignMessages.id, m.id), inArray(campaignMessages.status, ["pending", "deferred", "sending"])));
      await finishIfDone(db, m.campaignId);
      return;
    }
  }
  if (m.category === "marketing" && (await deferIfQuiet(env, m))) return;

  const { sender, send } = senderFor(env, m);
  let slotAt = Date.now();
  if (sender) {
    const reserved = job.slotAt;
    slotAt = reserved !== undefined && reserved >= Date.now() - STALE_SLOT_MS ? reserved : await reserveSlot(env, ctx, sender);
    const wait = slotAt - Date.now();
    if (wait > SLOT_HORIZON_MS) {
      // Holding an invocation for minutes helps nobody: come back just before the slot, keeping it.
      await env.DISPATCH.send({ kind: "dispatch", messageId: m.id, slotAt } satisfies Job, { delaySeconds: Math.floor((wait - DEFER_EARLY_MS) / 1000) });
      return;
    }
    await sleep(wait);
    // The slot may have carried us past the end of the recipient's hours.
    if (m.category === "marketing" && (await deferIfQuiet(env, m))) return;
  }

  // The claim: one conditional UPDATE. A row another consumer claimed (and whose lease is live), a
  // row still waiting for a callback, or one already settled is not ours, whatever the queue
  // delivered twice.
  const now = Date.now();
  const claimed = await db
    .update(campaignMessages)
    .set({
      status: "sending",
      attempts: sql`${campaignMessages.attempts} + 1`,
      heldUntil: null,
      firstClaimedAt: sql`coalesce(${campaignMessages.firstClaimedAt}, ${now})`,
      updatedAt: now,
    })
    .where(
      and(
        eq(campaignMessages.id, m.id),
        or(
          inArray(campaignMessages.status, ["pending", "deferred"]),
          and(eq(campaignMessages.status, "sending"), or(lt(campaignMessages.updatedAt, now - leaseMs(env)), lte(campaignMessages.heldUntil, now))),
        ),
      ),
    )
    .returning({ attempts: campaignMessages.attempts })
    .get();
  if (!claimed) return;

  const holdMs = resendWaitMs(env, m.channel);
  const attempt = (async () => {
    let outcome: SendOutcome;
    try {
      outcome = await send();
    } catch (err) {
      // Not an answer from the provider but a fault of ours: give the row back so a retry can take it.
      await db
        .update(campaignMessages)
        .set({ status: "pending", updatedAt: Date.now() })
        .where(and(eq(campaignMessages.id, m.id), eq(campaignMessages.status, "sending")));
      throw err;
    }
    await record(env, m, outcome, holdMs);
    return outcome;
  })();

  let outcome: SendOutcome;
  if (ctx.waitUntil) {
    // A provider that is slow to answer (a time-out in the making) must not hold its whole batch,
    // and with it every send slot behind it: past the grace period the call finishes in the
    // background and the job comes back once the call has surely ended.
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
    if (first === "late") {
      ctx.waitUntil(attempt.catch((err: unknown) => ctx.log.error("dispatch.background_failed", { messageId: m.id, error: String(err) })));
      // A call this slow is almost always a time-out, after which the row is held for `holdMs`:
      // the job comes back as that hold ends (just before; the rest is slept out), not once in
      // between to find it held. Had the call answered after all, the returning job finds the
      // row settled, or pending again a few seconds later than it could have been.
      const holdEndsIn = slotAt + providerTimeoutMs(env) + holdMs - Date.now();
      throw new RetryLater(`provider slow for message ${m.id}; finishing in the background`, Math.max(0, Math.floor(holdEndsIn / 1000)));
    }
    outcome = first;
  } else {
    outcome = await attempt;
  }
  if (!outcome.ok && outcome.retryable) {
    // An ambiguous send comes back as its hold ends (record() started it just now).
    const delay = isAmbiguous(outcome) ? Math.ceil(holdMs / 1000) : (outcome.retryAfterSeconds ?? backoffSeconds(claimed.attempts));
    throw new RetryLater(`${outcome.errorCode}: ${outcome.errorMessage}`, delay);
  }
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
  await dbFor(env.DB)
    .update(campaignMessages)
    .set({ status: "deferred", deferredUntil: until, updatedAt: now })
    .where(and(eq(campaignMessages.id, m.id), inArray(campaignMessages.status, ["pending", "deferred", "sending"])));
  await env.DISPATCH.send({ kind: "dispatch", messageId: m.id } satisfies Job, { delaySeconds: delayUntil(until, clock) });
  return true;
}

/** The queue gave up on a message: its row fails, says it was dead-lettered, and keeps the last error seen. */
async function messageDied(env: Env, id: number) {
  const db = dbFor(env.DB);
  const lease = leaseMs(env);
  const m = await db
    .select({
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
  if (!m || (m.status !== "pending" && m.status !== "deferred" && m.status !== "sending")) return;
  const now = Date.now();
  if (m.status === "sending" && m.updatedAt > now - lease) {
    throw new RetryLater(`message ${id} is being sent; deciding after its claim runs out`, Math.ceil((m.updatedAt + lease - now) / 1000) + 1);
  }
  const last = m.errorCode ? `; last error ${m.errorCode}${m.errorMessage ? `: ${m.errorMessage}` : ""}` : "";
  await db
    .update(campaignMessages)
    .set({
      status: "failed",
      deadLettered: true,
      errorCode: "dead_lettered",
      errorMessage: `Gave up after ${m.attempts} send attempt${m.attempts === 1 ? "" : "s"}${last}`.slice(0, 500),
      updatedAt: now,
    })
    .where(and(eq(campaignMessages.id, id), inArray(campaignMessages.status, ["pending", "deferred", "sending"])));
  await finishIfDone(db, m.campaignId);
}
