import { and, count, desc, eq, getTableColumns, inArray, max, min, sql } from "drizzle-orm";
import type { CampaignView, MessageCounts } from "../../shared/campaigns";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { type Db, jsonList } from "../db/client";
import { campaignMessages, campaigns, users } from "../db/schema";

/** Campaigns as the console reads them: each with its author's name and its counts by status. */

/** A campaign row with its author's name, as every campaign read needs it. */
export const campaignFields = { ...getTableColumns(campaigns), authorName: users.name };
export const selectCampaigns = (db: Db) => db.select(campaignFields).from(campaigns).leftJoin(users, eq(users.id, campaigns.authorId)).$dynamic();
export type CampaignRow = Awaited<ReturnType<ReturnType<typeof selectCampaigns>["get"]>> & {};
export const byKey = (authorId: number, key: string) => and(eq(campaigns.authorId, authorId), eq(campaigns.idempotencyKey, key));

/**
 * Counts by status come from the rows themselves (an index range per campaign), so they are never
 * out of step. In doubt: rows in 'sending' that no consumer is sending now, whose send may or may
 * not have gone out: held after a send that got no answer, or whose claim (`lease` ms, SEND_LEASE_SECONDS)
 * ran out with nothing recorded; each is settled from the provider before anything is sent again.
 */
export async function withCounts(db: Db, rows: CampaignRow[], lease: number): Promise<CampaignView[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.id);
  const m = campaignMessages;
  const claimedBefore = Date.now() - lease;
  const counted = await db
    .select({
      campaignId: campaignMessages.campaignId,
      status: campaignMessages.status,
      n: count(),
      first: min(campaignMessages.deferredUntil),
      last: max(campaignMessages.deferredUntil),
      inDoubt:
        sql<number>`sum(CASE WHEN ${m.status} = 'sending' AND (${m.heldUntil} IS NOT NULL OR ${m.updatedAt} < ${claimedBefore}) THEN 1 ELSE 0 END)`.mapWith(
          Number,
        ),
    })
    .from(campaignMessages)
    .where(inArray(campaignMessages.campaignId, jsonList(ids)))
    .groupBy(campaignMessages.campaignId, campaignMessages.status);
  const counts = new Map<number, MessageCounts>(ids.map((id) => [id, { pending: 0, deferred: 0, sending: 0, sent: 0, delivered: 0, failed: 0, skipped: 0 }]));
  const deferred = new Map<number, { first: number; last: number }>();
  const inDoubt = new Map<number, number>();
  for (const c of counted) {
    counts.get(c.campaignId)![c.status] = c.n;
    if (c.inDoubt > 0) inDoubt.set(c.campaignId, c.inDoubt);
    if (c.status === "deferred" && c.first !== null && c.last !== null) deferred.set(c.campaignId, { first: c.first, last: c.last });
  }
  return rows.map((r) => ({
    id: r.id,
    app: r.app,
    channel: r.channel,
    source: r.source,
    message: r.message,
    template: r.template ? { name: r.template.name, language: r.template.language } : null,
    author: { id: r.authorId, name: r.authorName ?? "" },
    status: r.status,
    category: r.category,
    purpose: r.purpose,
    language: r.language,
    scheduledAt: r.scheduledAt,
    deferred: deferred.get(r.id) ?? null,
    total: r.total,
    counts: counts.get(r.id)!,
    inDoubt: inDoubt.get(r.id) ?? 0,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
  }));
}

export async function getCampaign(db: Db, id: number, lease: number): Promise<CampaignView | null> {
  const row = await selectCampaigns(db).where(eq(campaigns.id, id)).get();
  return row ? (await withCounts(db, [row], lease))[0]! : null;
}

export async function campaignExists(db: Db, id: number): Promise<boolean> {
  return (await db.select({ id: campaigns.id }).from(campaigns).where(eq(campaigns.id, id)).get()) !== undefined;
}

export async function listCampaigns(db: Db, page: number, pageSize: number, lease: number): Promise<Page<CampaignView>> {
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(campaigns),
    selectCampaigns(db).orderBy(desc(campaigns.createdAt), desc(campaigns.id)).limit(pageSize).offset(pageOffset(page, pageSize)),
  ]);
  return { total: counted[0]?.n ?? 0, page, pageSize, rows: await withCounts(db, rows, lease) };
}
