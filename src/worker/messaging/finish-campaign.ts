import { and, eq, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { campaignMessages, campaigns } from "../db/schema";

/**
 * A campaign is done when none of its rows is waiting or being sent. Cheap: an index range on
 * (campaign, status). The campaign may be named by a subquery (a status callback knows only its row).
 */
export function finishStatement(db: Db, campaignId: number | SQL) {
  const m = campaignMessages;
  return db
    .update(campaigns)
    .set({ status: "done", updatedAt: Date.now() })
    .where(
      and(
        eq(campaigns.id, campaignId),
        eq(campaigns.status, "sending"),
        sql`NOT EXISTS (SELECT 1 FROM ${m} WHERE ${m.campaignId} = ${campaignId} AND ${m.status} IN ('pending', 'deferred', 'sending'))`,
      ),
    );
}

export async function finishIfDone(db: Db, campaignId: number): Promise<void> {
  await finishStatement(db, campaignId);
}
