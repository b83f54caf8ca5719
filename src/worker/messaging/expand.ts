import { and, asc, eq, gt, inArray, sql } from "drizzle-orm";
import { KNOWN_AREA_CODES as knownAreaCodes } from "../compliance/area-codes";
import { complianceNow } from "../compliance/clock";
import { deferralByAreaCode } from "../compliance/quiet-hours";
import { type Db, dbFor, jsonList } from "../db/client";
import { campaignExclusions, campaignMessages, campaigns } from "../db/schema";
import type { Job, JobContext } from "../queue";
import { closeIfDone, failUnqueuedStatement, insertMessages } from "./message-ledger";
import { type RecipientSource, recipientsSelect } from "./recipients";
import { delayUntil } from "./waits";

/**
 * The first queue job of a campaign (docs/architecture.md, the messaging pipeline): expand
 * materialises the recipients as ledger rows and queues one dispatch job per message (./dispatch.ts).
 */

const EXPAND_PAGE = 1_000;
const SEND_BATCH = 100;

type CampaignRecord = Pick<
  typeof campaigns.$inferSelect,
  "id" | "app" | "channel" | "source" | "audience" | "status" | "category" | "scheduledAt" | "dispatchCursor" | "createdAt"
>;
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

  // The recipients, each with why it is left out (if it is) and, for marketing to an area code
  // outside its allowed hours, the instant it may go (docs/messaging-rules.md); the ledger writes
  // them as skipped, deferred or pending rows in one set-based statement.
  const excluded = sql`SELECT ${campaignExclusions.phone} FROM ${campaignExclusions} WHERE ${campaignExclusions.campaignId} = ${c.id}`;
  // Quiet hours read the rules' clock (src/worker/compliance/clock.ts); deferred_until is on it too,
  // and the queue's delay is the distance on that clock.
  const clock = complianceNow(env, now);
  const deferral = JSON.stringify(c.category === "marketing" ? deferralByAreaCode(clock) : {});
  const rules = { category: c.category, channel: c.channel, now, campaignId: c.id };
  const m = campaignMessages;
  const inserted = await insertMessages(
    db,
    c.id,
    sql`SELECT s.user_id, s.phone, s.name, s.exclusion, d.value AS deferred_until
      FROM (${recipientsSelect(db, recipientSourceOf(c), c.channel, excluded, c.createdAt, rules)}) s
      LEFT JOIN json_each(${deferral}) d
        ON d.key = CASE WHEN substr(s.phone, 3, 3) IN (SELECT key FROM json_each(${deferral})) THEN substr(s.phone, 3, 3)
                        WHEN substr(s.phone, 3, 3) IN ${jsonList(knownAreaCodes)} THEN NULL ELSE '*' END`,
    now,
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
  await closeIfDone(db, c.id);
  log.info("campaign.expanded", { campaignId: c.id, inserted: inserted.meta.changes, queued });
}

/** The expansion itself died: the campaign says so, and so does every row it never queued. */
async function expansionDied(db: Db, campaignId: number, attempts: number) {
  const now = Date.now();
  await db.batch([
    failUnqueuedStatement(db, campaignId, now),
    db
      .update(campaigns)
      .set({ status: "failed", updatedAt: now })
      .where(and(eq(campaigns.id, campaignId), inArray(campaigns.status, ["queued", "expanding"]))),
  ]);
  console.error(JSON.stringify({ level: "error", msg: "campaign.expand_dead_lettered", campaignId, attempts }));
}
