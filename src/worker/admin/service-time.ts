import { eq } from "drizzle-orm";
import { adjustServiceTime, ledgerPage } from "../billing/service-time";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { assertMayActOn } from "./user-detail";

/** The account whose service time is read or changed: only whether it exists and is an administrator's. */
async function accountOf(db: Db, id: number) {
  const user = await db.select({ id: users.id, isAdmin: users.isAdmin }).from(users).where(eq(users.id, id)).get();
  if (!user) throw new ApiError("not_found", "No such user");
  return user;
}

/** A user's service-time ledger, newest first; 404 for no such user. */
export async function serviceTimeLedger(db: Db, userId: number, page: number, pageSize: number) {
  await accountOf(db, userId);
  return ledgerPage(db, userId, page, pageSize);
}

/**
 * An administrator extends or reduces a user's service time. An administrator's account is the
 * owner's to change, its service time included. The ledger row, the new expiration and the audit
 * row are one transaction (billing/service-time.ts).
 */
export async function adjustUserServiceTime(db: Db, actor: SessionUser, userId: number, change: { days: number; reason: string }) {
  assertMayActOn(actor, await accountOf(db, userId));
  const result = await adjustServiceTime(db, { userId, days: change.days, actorId: actor.id, reason: change.reason });
  return result.entry;
}
