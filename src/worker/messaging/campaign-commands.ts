import { and, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { CampaignView, SendOutcome } from "../../shared/campaigns";
import { fitsOneSegment } from "../../shared/sms";
import type { SessionUser } from "../context";
import { auditInsertWhen, changedAbove } from "../cross-cutting/audit";
import { type Db, dbFor } from "../db/client";
import { auditLog, campaignExclusions, campaignMessages, campaigns } from "../db/schema";
import { ApiError } from "../errors";
import type { Logger } from "../log";
import type { Job } from "../queue";
import { byKey, type CampaignRow, getCampaign, selectCampaigns, withCounts } from "./campaign-reads";
import { type CampaignInput, checkContent, checkSchedule } from "./campaign-request";
import { reviewSummary, sendAnswer, sendRulesOf, WHATSAPP_MARKETING_US_REFUSAL } from "./campaign-review";
import { retryableOf, takeForRetry } from "./message-ledger";
import { delayUntil, leaseMs } from "./waits";

/**
 * The commands on a campaign: create it (one request, one campaign), retry its failed rows, cancel
 * it before it starts. Each writes its rows and audit entry in one transaction and queues the
 * expansion (./expand.ts).
 */

async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}
/** Queue the expansion, after a delay for a scheduled campaign (the queue's longest delay at a time: the job re-queues itself for the rest). */
export async function enqueueExpand(env: Env, log: Logger, campaignId: number, startAt: number | null = null) {
  const delaySeconds = startAt === null ? 0 : delayUntil(startAt);
  try {
    await env.DISPATCH.send({ kind: "expand", campaignId } satisfies Job, delaySeconds > 0 ? { delaySeconds } : undefined);
  } catch (err) {
    // The campaign row is committed; the cron sweep (or a replay of the request) queues it again.
    log.error("campaign.enqueue_failed", { campaignId, error: String(err) });
  }
}

/** `outcome`: the figures behind `message`, for the console to word in the admin's language (null for a retry). */
export type CreateResult = { campaign: CampaignView; created: boolean; message: string; outcome: SendOutcome | null };
/**
 * One request, one campaign: the idempotency key (unique per author) makes a double click or a
 * replayed request answer the same campaign, and a different request under a used key a 409.
 * The campaign row, its exclusions and the audit entry are written in one transaction; then one
 * expand job is queued. N in the answer is the audience minus the deselected rows, counted by the
 * same query the expansion runs (opted-out numbers are in N and end as skipped).
 */
export async function createCampaign(
  env: Env,
  log: Logger,
  author: SessionUser,
  input: CampaignInput,
  source: CampaignView["source"] = input.recipients.source,
): Promise<CreateResult> {
  const db = dbFor(env.DB);
  const { idempotencyKey: _key, ...hashed } = input;
  const requestHash = await sha256Hex(JSON.stringify(hashed));
  // Referral codes are billing data: without billingDetails the search does not read them, in a
  // replay's answer, now or at expansion (the request's hash is of what was sent).
  input = withoutReferralSearch(input, author);
  const existing = await selectCampaigns(db).where(byKey(author.id, input.idempotencyKey)).get();
  // A replayed request is answered in the same words: the same request counted again as of the
  // campaign's creation, its own messages not counting toward its recipients' caps.
  const describe = async (row: CampaignRow) =>
    sendAnswer(
      row.total,
      await reviewSummary(db, input.recipients, input.excludedPhones, sendRulesOf(input, row.createdAt, row.id), row.scheduledAt ?? row.createdAt),
    );
  if (existing) return replay(env, log, existing, requestHash, describe);

  // A retry resends content that passed these rules when its parent was created.
  if (source !== "retry") await checkContent(db, author, input);
  const now = Date.now();
  checkSchedule(input, now);
  const rules = sendRulesOf(input, now);
  // The review's own query: who is left out and why, and who waits for their hours, for the answer's words.
  const summary = await reviewSummary(db, input.recipients, input.excludedPhones, rules, input.scheduledAt ?? now);
  const { total } = summary;
  const skipped = Object.values(summary.excluded).reduce((a, b) => a + b, 0);
  if (total === 0) throw new ApiError("unprocessable", "Nobody to send to: the audience is empty", { details: { reason: "audience_empty" } });
  if (input.category === "marketing" && input.channel === "whatsapp") {
    // Every number we hold is +1 (src/shared/phone.ts), so the combination can reach nobody: refuse it whole, saying why.
    throw new ApiError("unprocessable", WHATSAPP_MARKETING_US_REFUSAL, { details: { reason: "whatsapp_marketing_us" } });
  }
  if (skipped === total)
    throw new ApiError("unprocessable", "Nobody to send to: every recipient is left out (opted out, no consent basis or frequency cap)", {
      details: { reason: "all_left_out" },
    });

  const audience =
    input.recipients.source === "drivers" || input.recipients.source === "invitations" ? { ...input.recipients.filters } : { ...input.recipients };
  // The new campaign's id, read inside the same transaction by the statements after its insert.
  const newId = sql`(SELECT ${campaigns.id} FROM ${campaigns} WHERE ${byKey(author.id, input.idempotencyKey)})`;
  try {
    await db.batch([
      db.insert(campaigns).values({
        app: input.app,
        channel: input.channel,
        source,
        message: input.message,
        template: input.template,
        audience,
        authorId: author.id,
        idempotencyKey: input.idempotencyKey,
        status: input.scheduledAt === null ? "queued" : "scheduled",
        total,
        skipped,
        requestHash,
        category: input.category,
        purpose: input.purpose,
        language: input.language,
        scheduledAt: input.scheduledAt,
        createdAt: now,
        updatedAt: now,
      }),
      db
        .insert(campaignExclusions)
        .select(
          db
            .select({ campaignId: sql<number>`${newId}`.as("campaign_id"), phone: sql<string>`value`.as("phone") })
            .from(sql`json_each(${JSON.stringify(input.excludedPhones)})`),
        ),
      db.insert(auditLog).values({
        actorId: author.id,
        action: "campaign.create",
        target: sql`'campaign:' || ${newId}`,
        details: {
          channel: input.channel,
          source,
          app: input.app,
          total,
          skipped,
          excluded: input.excludedPhones.length,
          liftLimit: input.liftLimit,
          purpose: input.purpose,
          scheduledAt: input.scheduledAt,
        },
        at: now,
      }),
    ]);
  } catch (err) {
    // Two identical requests raced: the loser answers with the winner's campaign.
    if (`${String(err)} ${err instanceof Error && err.cause ? String(err.cause) : ""}`.includes("UNIQUE constraint failed")) {
      const winner = await selectCampaigns(db).where(byKey(author.id, input.idempotencyKey)).get();
      if (winner) return replay(env, log, winner, requestHash, describe);
    }
    throw err;
  }
  const row = (await selectCampaigns(db).where(byKey(author.id, input.idempotencyKey)).get())!;
  await enqueueExpand(env, log, row.id, row.scheduledAt);
  log.info("campaign.created", { campaignId: row.id, total, skipped, channel: input.channel, source });
  return { campaign: (await withCounts(db, [row], leaseMs(env)))[0]!, created: true, ...sendAnswer(total, summary) };
}

async function replay(
  env: Env,
  log: Logger,
  row: CampaignRow,
  requestHash: string,
  describe?: (row: CampaignRow) => Promise<ReturnType<typeof sendAnswer>>,
): Promise<CreateResult> {
  if (row.requestHash && row.requestHash !== requestHash)
    throw new ApiError("conflict", "This idempotency key was already used for a different campaign", { details: { reason: "idempotency_conflict" } });
  // A campaign whose expand job never made it onto the queue gets another chance; expansion is idempotent.
  if (row.status === "queued") await enqueueExpand(env, log, row.id);
  if (row.status === "scheduled") await enqueueExpand(env, log, row.id, row.scheduledAt);
  return {
    campaign: (await withCounts(dbFor(env.DB), [row], leaseMs(env)))[0]!,
    created: false,
    ...(describe ? await describe(row) : sendAnswer(row.total)),
  };
}

/**
 * "Retry failed only": a new campaign of the failed rows no retry has taken yet. The new campaign
 * and its claim on those rows (campaign_messages.retried_by) are written in one transaction, so
 * each failed row is retried once however many admins click, and a row that failed later (a late
 * delivery receipt) goes into the next retry, not into a second copy of the first. A click that
 * finds nothing left to claim answers the latest retry. The content is checked again as for a new
 * campaign: a message over one segment is the owner's to send, a WhatsApp template needs the
 * billingDetails permission and must still be approved.
 */
export async function retryFailed(env: Env, log: Logger, author: SessionUser, parentId: number): Promise<CreateResult> {
  const db = dbFor(env.DB);
  const parent = await db
    .select({
      id: campaigns.id,
      app: campaigns.app,
      channel: campaigns.channel,
      message: campaigns.message,
      template: campaigns.template,
      category: campaigns.category,
      purpose: campaigns.purpose,
      language: campaigns.language,
    })
    .from(campaigns)
    .where(eq(campaigns.id, parentId))
    .get();
  if (!parent) throw new ApiError("not_found", "No such campaign");
  const open = await db.select({ n: count() }).from(campaignMessages).where(retryableOf(parentId)).get();
  if (!open || open.n === 0) return latestRetry(env, log, parentId);

  const template = parent.template ? { name: parent.template.name, language: parent.template.language } : null;
  const liftLimit = parent.channel === "sms" && !!parent.message && !fitsOneSegment(parent.message);
  await checkContent(db, author, {
    idempotencyKey: "",
    app: parent.app,
    channel: parent.channel,
    message: parent.message,
    template,
    recipients: { source: "retry", campaignId: parentId },
    excludedPhones: [],
    liftLimit,
    purpose: parent.purpose,
    category: parent.category,
    language: parent.language,
    scheduledAt: null,
  });

  const now = Date.now();
  const idempotencyKey = `retry-failed:${parentId}:${crypto.randomUUID()}`;
  const retryId = sql<number>`(SELECT ${campaigns.id} FROM ${campaigns} WHERE ${campaigns.authorId} = ${author.id} AND ${campaigns.idempotencyKey} = ${idempotencyKey})`;
  const [, claimed] = await db.batch([
    db.insert(campaigns).values({
      app: parent.app,
      channel: parent.channel,
      source: "retry",
      message: parent.message,
      template: parent.template,
      audience: { source: "retry", campaignId: parentId },
      authorId: author.id,
      idempotencyKey,
      status: "queued",
      total: 0,
      category: parent.category,
      purpose: parent.purpose,
      language: parent.language,
      createdAt: now,
      updatedAt: now,
    }),
    takeForRetry(db, parentId, retryId),
    db
      .update(campaigns)
      .set({ total: sql`(SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.retriedBy} = ${campaigns.id})` })
      .where(and(eq(campaigns.authorId, author.id), eq(campaigns.idempotencyKey, idempotencyKey))),
    // The audit row in the same transaction, only when the retry claimed rows (else it is deleted below).
    auditInsertWhen(
      db,
      {
        actorId: author.id,
        action: "campaign.create",
        target: sql`'campaign:' || ${retryId}`,
        details: sql`json_object('channel', ${parent.channel}, 'source', 'retry', 'parent', ${parentId}, 'app', ${parent.app}, 'total', (SELECT count(*) FROM ${campaignMessages} WHERE ${campaignMessages.retriedBy} = ${retryId}), 'liftLimit', json(${liftLimit ? "true" : "false"}))`,
      },
      sql`EXISTS (SELECT 1 FROM ${campaignMessages} WHERE ${campaignMessages.retriedBy} = ${retryId})`,
      now,
    ),
  ]);
  const created = (await db
    .select({ id: campaigns.id })
    .from(campaigns)
    .where(and(eq(campaigns.authorId, author.id), eq(campaigns.idempotencyKey, idempotencyKey)))
    .get())!;
  if (claimed.length === 0) {
    // Another admin's retry took the rows between our count and our claim.
    await db.delete(campaigns).where(eq(campaigns.id, created.id));
    return latestRetry(env, log, parentId);
  }
  await enqueueExpand(env, log, created.id);
  log.info("campaign.created", { campaignId: created.id, total: claimed.length, channel: parent.channel, source: "retry", parent: parentId });
  const campaign = (await getCampaign(db, created.id, leaseMs(env)))!;
  return { campaign, created: true, ...sendAnswer(claimed.length) };
}

/** The newest retry of a campaign (a click that found nothing left to claim answers it), or 422 when there is none. */
async function latestRetry(env: Env, log: Logger, parentId: number): Promise<CreateResult> {
  const row = await selectCampaigns(dbFor(env.DB))
    .where(and(eq(campaigns.source, "retry"), sql`json_extract(${campaigns.audience}, '$.campaignId') = ${parentId}`))
    .orderBy(desc(campaigns.id))
    .limit(1)
    .get();
  if (!row) throw new ApiError("unprocessable", "This campaign has no failed messages to retry", { details: { reason: "nothing_to_retry" } });
  return replay(env, log, row, row.requestHash ?? "");
}
/**
 * Cancel a campaign that has not started: a scheduled one, or one still queued. Once expansion has
 * begun it runs to the end (its messages may already be on their way).
 */
export async function cancelCampaign(db: Db, actor: SessionUser, id: number, lease: number): Promise<CampaignView> {
  const now = Date.now();
  // The cancellation and its audit row are one transaction.
  const [[cancelled]] = await db.batch([
    db
      .update(campaigns)
      .set({ status: "cancelled", updatedAt: now })
      .where(and(eq(campaigns.id, id), inArray(campaigns.status, ["scheduled", "queued"])))
      .returning({ id: campaigns.id }),
    auditInsertWhen(db, { actorId: actor.id, action: "campaign.cancel", target: `campaign:${id}` }, changedAbove, now),
  ]);
  const campaign = await getCampaign(db, id, lease);
  if (!campaign) throw new ApiError("not_found", "No such campaign");
  if (!cancelled)
    throw new ApiError("conflict", `The campaign has already started (${campaign.status}); it can no longer be cancelled`, {
      details: { reason: "already_started", status: campaign.status },
    });
  return campaign;
}

/** The campaign as an author without billingDetails may choose it: its audience's search does not read referral codes. */
function withoutReferralSearch(input: CampaignInput, author: SessionUser): CampaignInput {
  if (author.roleProperties?.billingDetails) return input;
  const r = input.recipients;
  if (r.source === "drivers") return { ...input, recipients: { ...r, filters: { ...r.filters, searchReferral: false } } };
  if (r.source === "invitations") return { ...input, recipients: { ...r, filters: { ...r.filters, searchReferral: false } } };
  return input;
}
