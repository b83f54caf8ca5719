import { and, asc, desc, eq, gt, lt, or } from "drizzle-orm";
import type { Db } from "../db/client";
import { invitations, referralCodes } from "../db/schema";

/**
 * The old product's admin lists, read the way its DynamoDB paging read them (routes/legacy-admin.ts):
 * up to `limit` rows after a key, and whether more follow.
 */

/** Invitations, newest first, after (invitedAt, id) of the page before. */
export async function invitationsAfter(db: Db, after: { id: number; dateInvitedTimestamp: number } | undefined, limit: number) {
  const i = invitations;
  const rows = await db
    .select({ id: i.id, phoneNumber: i.phone, dateInvitedTimestamp: i.invitedAt, freeWeek: i.freeWeek })
    .from(i)
    .where(
      after === undefined ? undefined : or(lt(i.invitedAt, after.dateInvitedTimestamp), and(eq(i.invitedAt, after.dateInvitedTimestamp), lt(i.id, after.id))),
    )
    .orderBy(desc(i.invitedAt), desc(i.id))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

/** Referral codes in code order, after the code of the page before. */
export async function referralCodesAfter(db: Db, after: { referralCode: string } | undefined, limit: number) {
  const rows = await db
    .select({ referralCode: referralCodes.code })
    .from(referralCodes)
    .where(after === undefined ? undefined : gt(referralCodes.code, after.referralCode))
    .orderBy(asc(referralCodes.code))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}
