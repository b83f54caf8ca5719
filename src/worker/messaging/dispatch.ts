import { and, asc, eq, gt, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { restoreErasedOptOuts } from "../account/phone-hash";
import { KNOWN_AREA_CODES as knownAreaCodes } from "../compliance/area-codes";
import { complianceNow } from "../compliance/clock";
import { deferralByAreaCode, nextAllowedAt } from "../compliance/quiet-hours";
import { columnNames, type Db, dbFor, jsonList } from "../db/client";
import { campaignExclusions, campaignMessages, campaigns, deliveryReceipts, optOuts, users } from "../db/schema";
import { providerTimeoutMs } from "../providers/http-call";
import type { SendOutcome } from "../providers/outcome";
import { createSmsProvider } from "../providers/sms/provider";
import type { LookupOutcome } from "../providers/sms/types";
import { createWhatsAppProvider } from "../providers/whatsapp/provider";
import { backoffSeconds, type Job, type JobContext, MAX_DELAY_SECONDS, RetryLater } from "../queue";
import { exclusionsOf, type RecipientSource, recipientsSelect } from "./audience";
import { finishIfDone, finishStatement } from "./finish";
import { BURST_SECONDS, pacerFor, sendRate } from "./pacer";
import { applyStatusCallback, IN_DOUBT } from "./receipts";

/**
 * The queue side of a campaign (docs/architecture.md, the messaging pipeline): expand materialises the recipients and queues one
 * dispatch job per message; dispatch claims one message, waits for its send slot and sends it.
 * Every row ends in a visible state: sent/delivered, failed with the provider's code (also after
 * the dead-letter queue), or skipped.
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
/**
 * A lookup at the provider (reconcile) counts messages created this long before the row was first
 * claimed: clocks differ a little, and Twilio's date_created has whole seconds.
 */
export const LOOKUP_CLOCK_ALLOWANCE_MS = 5_000;
const EXPAND_PAGE = 1_000;
/** A pending marketing message expanded longer ago than this is held to the consent and cap rules again before it goes. */
const RECHECK_AFTER_MS = 10 * 60_000;
const SEND_BATCH = 100;

const sleep = (ms: number) => (ms > 0 ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

// ---------------------------------------------------------------------------------------------
// Expand

type CampaignRecord = Pick<
  typeof campaigns.$inferSelect,
  "id" | "app" | "channel" | "source" | "audience" | "status" | "category" | "scheduledAt" | "dispatchCursor" | "createdAt"
>;

/** Why a row was left out, as the ledger shows it. */
const EXCLUSION_MESSAGES: Record<string, string> = {
  opted_out: "The number opted out",
  no_consent: "No consent basis allows marketing to this number",
  frequency_cap: "The number has had as many marketing messages as the frequency cap allows",
  whatsapp_marketing_us: "Meta does not deliver WhatsApp marketing templates to +1 numbers",
};

/** The queue's delay for a job that must wait until `at`: at most the queue's longest, the job re-queues itself for the rest. */
export const delayUntil = (at: number, now = Date.now()) => Math.min(MAX_DELAY_SECONDS, Math.max(0, Math.ceil((at - now) / 1000)));

function recipientSourceOf(c: CampaignRecord): RecipientSource {
  const audience = c.audience;
  switch (c.source) {
    case "drivers":
      return { source: "drivers", filters: audience as Extract<RecipientSource, { source: "drivers" }>["filters"] };
    case "invitations":
      return { source: "invitations", filters: audience as Extract<RecipientSource, { source: "invitations" }>["filters"] };
    case "list":
      return { source: "list", phones: audience.phones as string[], app: (audience.app as "flex" | "spark" | undefined) ?? c.app };
    case "retry":
      return { source: "retry", campaignId: audience.campaignId as number, retryId: c.id };
  }
}

export async function expandCampaign(job: Extract<Job, { kind: "expand" }>, ctx: JobContext): Promise<void> {
  const { env, log } = ctx;
  const db = dbFor(env.DB);
  if (ctx.deadLettered) return expansionDied(db, job.campaignId, ctx.attempts);
  const c = await db
    .select({
      id: campaigns.id,
      app: campaigns.app,
      channel: campaigns.channel,
      source: campaigns.source,
      audience: campaigns.audience,
      status: campaigns.status,
      category: campaigns.category,
      scheduledAt: campaigns.scheduledAt,
      dispatchCursor: campaigns.dispatchCursor,
      createdAt: campaigns.createdAt,
    })
    .from(campaigns)
    .where(eq(campaigns.id, job.campaignId))
    .get();
  // A redelivered job for a campaign already past expansion (or cancelled) has nothing left to do.
  if (!c || (c.status !== "queued" && c.status !== "expanding" && c.status !== "scheduled")) return;
  const now = Date.now();
  if (c.status === "scheduled" && c.scheduledAt !== null && c.scheduledAt > now + 1_000) {
    // Not yet: the queue brings the job back (a delay is at most 12 hours; a later start takes several hops).
    await env.DISPATCH.send({ kind: "expand", campaignId: c.id } satisfies Job, { delaySeconds: delayUntil(c.scheduledAt, now) });
    return;
  }
  // The conditional update is the start: a cancel that won the race leaves nothing to expand.
  const started = await db
    .update(campaigns)
    .set({ status: "expanding", updatedAt: now })
    .where(and(eq(campaigns.id, c.id), inArray(campaigns.status, ["scheduled", "queued", "expanding"])))
    .returning({ id: campaigns.id })
    .get();
  if (!started) return;

  // One set-based statement, idempotent through the (campaign, phone) unique index: a retried
  // expansion inserts nothing twice. Left-out numbers are written as skipped with the reason;
  // marketing to an area code outside its allowed hours is written as deferred, with the instant
  // it may go (docs/messaging-rules.md).
  const excluded = sql`SELECT ${campaignExclusions.phone} FROM ${campaignExclusions} WHERE ${campaignExclusions.campaignId} = ${c.id}`;
  // Quiet hours read the rules' clock (src/worker/compliance/clock.ts); deferred_until is on it too,
  // and the queue's delay is the distance on that clock.
  const clock = complianceNow(env, now);
  const deferral = JSON.stringify(c.category === "marketing" ? deferralByAreaCode(clock) : {});
  const rules = { category: c.category, channel: c.channel, now, campaignId: c.id };
  const m = campaignMessages;
  const reasons = sql.join(
    Object.entries(EXCLUSION_MESSAGES).map(([code, text]) => sql`WHEN ${code} THEN ${text}`),
    sql` `,
  );
  const inserted = await db.run(
    sql`INSERT OR IGNORE INTO ${m} (${columnNames(m.campaignId, m.userId, m.phone, m.name, m.status, m.deferredUntil, m.errorCode, m.errorMessage, m.updatedAt)})
      SELECT ${c.id}, s.user_id, s.phone, s.name,
        CASE WHEN s.exclusion IS NOT NULL THEN 'skipped' WHEN d.value IS NOT NULL THEN 'deferred' ELSE 'pending' END,
        CASE WHEN s.exclusion IS NULL THEN d.value END, s.exclusion, CASE s.exclusion ${reasons} END, ${now}
      FROM (${recipientsSelect(db, recipientSourceOf(c), c.channel, excluded, c.createdAt, rules)}) s
      LEFT JOIN json_each(${deferral}) d
        ON d.key = CASE WHEN substr(s.phone, 3, 3) IN (SELECT key FROM json_each(${deferral})) THEN substr(s.phone, 3, 3)
                        WHEN substr(s.phone, 3, 3) IN ${jsonList(knownAreaCodes)} THEN NULL ELSE '*' END`,
  );
  await db
    .update(campaigns)
    .set({
      total: sql`(SELECT count(*) FROM ${m} WHERE ${m.campaignId} = ${c.id})`,
      skipped: sql`(SELECT count(*) FROM ${m} WHERE ${m.campaignId} = ${c.id} AND ${m.status} = 'skipped')`,
      updatedAt: Date.now(),
    })
    .where(eq(campaigns.id, c.id));

  // Queue the pending and deferred rows in id order, recording how far we got, so a retried
  // expansion resumes instead of queueing everything again. A deferred row's job is delayed until
  // its recipient's allowed hours: the queue holds it, no consumer waits.
  let cursor = c.dispatchCursor;
  let queued = 0;
  for (;;) {
    const page = await db
      .select({ id: m.id, deferredUntil: m.deferredUntil })
      .from(m)
      .where(and(eq(m.campaignId, c.id), inArray(m.status, ["pending", "deferred"]), gt(m.id, cursor)))
      .orderBy(asc(m.id))
      .limit(EXPAND_PAGE);
    if (page.length === 0) break;
    for (let i = 0; i < page.length; i += SEND_BATCH) {
      const chunk = page.slice(i, i + SEND_BATCH);
      const at = complianceNow(env);
      await env.DISPATCH.sendBatch(
        chunk.map((r) => {
          const delaySeconds = r.deferredUntil === null ? 0 : delayUntil(r.deferredUntil, at);
          return { body: { kind: "dispatch", messageId: r.id } satisfies Job, ...(delaySeconds > 0 ? { delaySeconds } : {}) };
        }),
      );
      cursor = chunk[chunk.length - 1]!.id;
      queued += chunk.length;
      await db.update(campaigns).set({ dispatchCursor: cursor, updatedAt: Date.now() }).where(eq(campaigns.id, c.id));
    }
  }
  await db
    .update(campaigns)
    .set({ status: "sending", updatedAt: Date.now() })
    .where(and(eq(campaigns.id, c.id), eq(campaigns.status, "expanding")));
  await finishIfDone(db, c.id);
  log.info("campaign.expanded", { campaignId: c.id, inserted: inserted.meta.changes, queued });
}

/** The expansion itself died: the campaign says so, and so does every row it never queued. */
async function expansionDied(db: Db, campaignId: number, attempts: number) {
  const now = Date.now();
  const m = campaignMessages;
  await db.batch([
    db
      .update(m)
      .set({ status: "failed", deadLettered: true, errorCode: "expand_failed", errorMessage: "The campaign could not be prepared for sending", updatedAt: now })
      .where(
        and(
          eq(m.campaignId, campaignId),
          eq(m.status, "pending"),
          gt(m.id, sql`(SELECT ${campaigns.dispatchCursor} FROM ${campaigns} WHERE ${campaigns.id} = ${campaignId})`),
        ),
      ),
    db
      .update(campaigns)
      .set({ status: "failed", updatedAt: now })
      .where(and(eq(campaigns.id, campaignId), inArray(campaigns.status, ["queued", "expanding"]))),
  ]);
  console.error(JSON.stringify({ level: "error", msg: "campaign.expand_dead_lettered", campaignId, attempts }));
}

// ---------------------------------------------------------------------------------------------
// Dispatch

const recipient = alias(users, "recipient");

/** Messages with their campaign's content and whether their number opted out of the channel since: one query for a whole batch. */
const loadMessages = async (db: Db, pepper: string, ids: readonly number[]) => {
  const m = campaignMessages;
  const optedOut = sql<boolean>`(EXISTS (SELECT 1 FROM ${optOuts} WHERE ${optOuts.phone} = ${m.phone} AND ${optOuts.channel} = ${campaigns.channel})
    OR coalesce((SELECT CASE ${campaigns.channel} WHEN 'sms' THEN ${recipient.smsOptOut} ELSE ${recipient.whatsappOptOut} END
      FROM ${users} ${recipient} WHERE ${recipient.id} = ${m.userId}), 0) = 1)`.mapWith(Boolean);
  const found = await db
    .select({
      id: m.id,
      campaignId: m.campaignId,
      phone: m.phone,
      status: m.status,
      attempts: m.attempts,
      updatedAt: m.updatedAt,
      heldUntil: m.heldUntil,
      firstClaimedAt: m.firstClaimedAt,
      deferredUntil: m.deferredUntil,
      channel: campaigns.channel,
      category: campaigns.category,
      message: campaigns.message,
      template: campaigns.template,
      optedOut,
    })
    .from(m)
    .innerJoin(campaigns, eq(campaigns.id, m.campaignId))
    .where(inArray(m.id, jsonList(ids)));
  // A number whose erased account had opted out (kept only as a keyed hash) is opted out again here.
  const restored = await restoreErasedOptOuts(
    db,
    pepper,
    found.filter((r) => r.status === "pending" || r.status === "deferred").map((r) => r.phone),
  );
  for (const r of found) if (restored.get(r.phone)?.has(r.channel)) r.optedOut = true;
  return new Map(found.map((r) => [r.id, r]));
};
type MessageRecord = Awaited<ReturnType<typeof loadMessages>> extends Map<number, infer R> ? R : never;

/** The rows of one queue batch, loaded once for all its dispatch jobs (they start together). */
const batchRows = new WeakMap<readonly Job[], Promise<Map<number, MessageRecord>>>();

/**
 * A dispatch job's row. The jobs of a batch all start at once and each used to read its own row:
 * a hundred reads queued in D1 ahead of the batch's first send. One set-based read serves them all.
 */
function messageOf(db: Db, ctx: JobContext, id: number): Promise<MessageRecord | undefined> {
  const jobs = ctx.batch;
  if (!jobs) return loadMessages(db, ctx.env.PASSWORD_PEPPER, [id]).then((rows) => rows.get(id));
  let rows = batchRows.get(jobs);
  if (!rows) {
    const ids = [...new Set(jobs.flatMap((j) => (j.kind === "dispatch" ? [j.messageId] : [])))];
    rows = loadMessages(db, ctx.env.PASSWORD_PEPPER, ids.length > 0 ? ids : [id]);
    batchRows.set(jobs, rows);
  }
  return rows.then((found) => found.get(id));
}

/**
 * Send slots asked for by the jobs of one batch in the same turn go to the sender's pacer as one
 * call (SendPacer.reserveMany), in the order they were asked for: one round trip instead of one
 * per message, so the first send of a batch does not wait behind a hundred pacer calls.
 */
type SlotAsk = { resolve: (at: number) => void; reject: (err: unknown) => void };
const slotAsks = new WeakMap<readonly Job[], Map<string, SlotAsk[]>>();

function reserveSlot(env: Env, ctx: JobContext, sender: string): Promise<number> {
  const jobs = ctx.batch;
  if (!jobs) return pacerFor(env, sender).reserve(sendRate(env));
  let bySender = slotAsks.get(jobs);
  if (!bySender) {
    bySender = new Map();
    slotAsks.set(jobs, bySender);
  }
  const waiting = bySender;
  return new Promise<number>((resolve, reject) => {
    const asks = waiting.get(sender);
    if (asks) {
      asks.push({ resolve, reject });
      return;
    }
    waiting.set(sender, [{ resolve, reject }]);
    // Asks made before this timer fires join the same call.
    setTimeout(() => {
      const all = waiting.get(sender) ?? [];
      waiting.delete(sender);
      pacerFor(env, sender)
        .reserveMany(sendRate(env), all.length)
        .then(
          (slots) => {
            for (const [i, ask] of all.entries()) ask.resolve(slots[i]!);
          },
          (err: unknown) => {
            for (const ask of all) ask.reject(err);
          },
        );
    }, 0);
  });
}

/**
 * What a send carries to name its ledger row in the provider's status callbacks: `m` in Twilio's
 * StatusCallback URL (covered by its signature), WhatsApp's biz_opaque_callback_data "m:<id>".
 */
export const callbackReference = (messageId: number) => `m:${messageId}`;

/** A provider for the campaign's channel, bound to one message's content and tagged with its row. */
function senderFor(env: Env, m: MessageRecord): { sender: string | null; send: () => Promise<SendOutcome> } {
  if (m.channel === "sms") {
    const sms = createSmsProvider(env);
    const statusCallbackUrl = `${env.APP_ORIGIN.replace(/\/$/, "")}/api/webhooks/twilio/status?m=${m.id}`;
    return { sender: sms.sender ?? null, send: () => sms.send({ to: m.phone, body: m.message ?? "", statusCallbackUrl }) };
  }
  const whatsapp = createWhatsAppProvider(env);
  const template = m.template;
  return {
    sender: whatsapp.sender,
    send: () =>
      template
        ? whatsapp.sendTemplate(m.phone, template, callbackReference(m.id))
        : Promise.resolve<SendOutcome>({ ok: false, retryable: false, errorCode: "no_template", errorMessage: "The campaign has no template" }),
  };
}

/**
 * Records what the provider said, on a row this consumer still holds, in one transaction with
 * what follows from it: a delivery receipt that beat us here is applied, and a campaign whose last
 * row this was is closed.
 */
export async function record(
  env: Pick<Env, "DB" | "CALLBACK_WAIT_SECONDS">,
  m: { id: number; campaignId: number },
  outcome: SendOutcome,
  holdMs: number = callbackWaitMs(env),
): Promise<void> {
  const db = dbFor(env.DB);
  const now = Date.now();
  const finish = finishStatement(db, m.campaignId);
  const held = and(eq(campaignMessages.id, m.id), eq(campaignMessages.status, "sending"));
  if (outcome.ok) {
    const r = deliveryReceipts;
    await db.batch([
      db.update(campaignMessages).set({ status: "sent", providerId: outcome.providerId, errorCode: null, errorMessage: null, updatedAt: now }).where(held),
      db
        .update(campaignMessages)
        .set({
          status: sql`${r.status}`,
          errorCode: sql`${r.errorCode}`,
          errorMessage: sql`${r.errorMessage}`,
          updatedAt: now,
        })
        .from(r)
        .where(and(eq(r.providerId, outcome.providerId), eq(campaignMessages.id, m.id), eq(campaignMessages.status, "sent"))),
      db.delete(r).where(eq(r.providerId, outcome.providerId)),
      finish,
    ]);
  } else if (isAmbiguous(outcome)) {
    // The provider may have accepted it: the row stays ours ('sending') for `holdMs`; its callback
    // settles it meanwhile, or after the wait the returning job asks the provider (SMS) and sends it
    // again only if the provider has no such message (reconcile).
    await db
      .update(campaignMessages)
      .set({ heldUntil: now + holdMs, errorCode: outcome.errorCode, errorMessage: outcome.errorMessage.slice(0, 500), updatedAt: now })
      .where(and(eq(campaignMessages.id, m.id), eq(campaignMessages.status, "sending")));
  } else if (outcome.retryable) {
    // A transient failure hands the row back (pending) with the error visible until the retry.
    await db
      .update(campaignMessages)
      .set({ status: "pending", errorCode: outcome.errorCode, errorMessage: outcome.errorMessage.slice(0, 500), updatedAt: now })
      .where(held);
  } else {
    await db.batch([
      db
        .update(campaignMessages)
        .set({ status: "failed", errorCode: outcome.errorCode, errorMessage: outcome.errorMessage.slice(0, 500), updatedAt: now })
        .where(held),
      finish,
    ]);
  }
}

/** No answer at all: a time-out or a dropped connection, after which the provider may or may not have the message. */
export function isAmbiguous(outcome: SendOutcome): boolean {
  return !outcome.ok && outcome.retryable && (outcome.errorCode === "timeout" || outcome.errorCode === "network_error");
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

/**
 * Before a held SMS (or one whose consumer died mid-send) is sent again: does the provider have
 * it (same number, our sender, same text, created since the row was first claimed)? Found: the row is settled from the provider's record,
 * as its callback would have settled it, and nothing is sent. Not found: false, the caller sends.
 * The question failing: the row is held again (RetryLater), within the queue's retries; past them
 * the dead-letter queue fails the row visibly.
 */
async function reconcile(env: Env, ctx: JobContext, m: MessageRecord): Promise<boolean> {
  const since = (m.firstClaimedAt ?? m.updatedAt - leaseMs(env)) - LOOKUP_CLOCK_ALLOWANCE_MS;
  let answer: LookupOutcome;
  try {
    answer = await createSmsProvider(env).lookup({ to: m.phone, body: m.message ?? "", since });
  } catch (err) {
    answer = { found: null, errorCode: "lookup_error", errorMessage: err instanceof Error ? err.message : String(err) };
  }
  if (answer.found === false) return false;
  if (answer.found) {
    const { providerId, status, errorCode, errorMessage } = answer;
    await applyStatusCallback(env, { messageId: m.id, providerId, status, errorCode, errorMessage });
    ctx.log.info("dispatch.reconciled", { messageId: m.id, providerId: answer.providerId, status: answer.status });
    return true;
  }
  const now = Date.now();
  const holdMs = resendWaitMs(env, "sms");
  await dbFor(env.DB)
    .update(campaignMessages)
    .set({
      heldUntil: now + holdMs,
      errorCode: "lookup_failed",
      errorMessage: `Could not ask the provider whether it has the message (${answer.errorCode}: ${answer.errorMessage})`.slice(0, 500),
      updatedAt: now,
    })
    .where(and(eq(campaignMessages.id, m.id), eq(campaignMessages.status, "sending")));
  throw new RetryLater(`lookup for message ${m.id} failed: ${answer.errorCode}`, Math.ceil(holdMs / 1000));
}

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
