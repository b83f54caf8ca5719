import { and, eq } from "drizzle-orm";
import { randomString } from "../auth/random";
import type { SessionUser } from "../context";
import { auditInsertWhen, changedAbove, userTarget } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { referralCodes, resellers, users } from "../db/schema";
import { ApiError } from "../errors";
import type { BillingContext } from "./context";

export type ResellerRow = typeof resellers.$inferSelect;
export type ResellerStatus = ResellerRow["status"];

/** RESELLER_COMMISSION_PERCENT as basis points, within 0–100 %. */
export function defaultCommissionBps(env: Pick<Env, "RESELLER_COMMISSION_PERCENT">): number {
  const percent = Number(env.RESELLER_COMMISSION_PERCENT);
  return Number.isFinite(percent) && percent >= 0 && percent <= 100 ? Math.round(percent * 100) : 2000;
}

export async function resellerOf(db: Db, userId: number): Promise<ResellerRow | undefined> {
  return db.select().from(resellers).where(eq(resellers.userId, userId)).get();
}

/** An approved reseller, or 403: the reseller-only calls start here. */
export async function approvedReseller(db: Db, userId: number): Promise<ResellerRow & { referralCode: string }> {
  const row = await resellerOf(db, userId);
  if (row?.status !== "approved" || !row.referralCode) throw new ApiError("forbidden", "Only approved resellers can do this");
  return row as ResellerRow & { referralCode: string };
}

/** A driver asks to resell. Again after a rejection; not while applied or approved, nor after a revocation. */
export async function applyAsReseller(ctx: BillingContext, user: SessionUser, message: string | null): Promise<ResellerRow> {
  const now = Date.now();
  const row = await ctx.db
    .insert(resellers)
    .values({ userId: user.id, status: "applied", message, commissionBps: defaultCommissionBps(ctx.env), appliedAt: now, updatedAt: now })
    .onConflictDoUpdate({
      target: resellers.userId,
      set: { status: "applied", message, appliedAt: now, decidedAt: null, decidedBy: null, updatedAt: now },
      setWhere: eq(resellers.status, "rejected"),
    })
    .returning()
    .get();
  if (!row) {
    const existing = await resellerOf(ctx.db, user.id);
    throw new ApiError("conflict", existing?.status === "revoked" ? "Your reseller access was revoked. Contact support" : "You have already applied", {
      details: { status: existing?.status },
    });
  }
  return row;
}

const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";

/** A readable code from the reseller's name (letters only) and random characters: "MARIA7K3". */
function suggestCode(name: string): string {
  const letters = name
    .normalize("NFD")
    .replace(/[^A-Za-z]/g, "")
    .toUpperCase()
    .slice(0, 6);
  return `${letters || "RESELL"}${randomString(CODE_ALPHABET, 3)}`;
}

function isUniqueViolation(err: unknown): boolean {
  const text = err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ""}` : String(err);
  return text.includes("UNIQUE constraint failed") || text.includes("PRIMARY KEY");
}

/**
 * An administrator approves an application (or a revoked reseller again): the reseller gets a
 * referral code of their own (the one given, or one made from their name), for their account's
 * app only, and a commission rate. A reseller approved before keeps their code.
 *
 * Nobody approves themselves: not their own account, nor their account in the other app (the same
 * phone). A rate above the default (RESELLER_COMMISSION_PERCENT) is the owner's to give; the rate
 * judged is the one the reseller would get, given or kept from the application.
 */
export async function approveReseller(
  ctx: BillingContext,
  admin: SessionUser,
  userId: number,
  input: { referralCode?: string; commissionPercent?: number },
): Promise<ResellerRow> {
  const { db } = ctx;
  const row = await resellerOf(db, userId);
  if (!row) throw new ApiError("not_found", "No reseller application for this user");
  if (row.status === "approved") throw new ApiError("conflict", "Already approved", { details: { status: row.status } });
  const user = await db.select({ name: users.name, app: users.app, phone: users.phone }).from(users).where(eq(users.id, userId)).get();
  if (!user) throw new ApiError("not_found", "No such user");
  if (userId === admin.id || user.phone === admin.phone) {
    throw new ApiError("forbidden", "Nobody approves their own reseller application", { details: { reason: "own_application" } });
  }
  const commissionBps = input.commissionPercent !== undefined ? Math.round(input.commissionPercent * 100) : row.commissionBps;
  const defaultBps = defaultCommissionBps(ctx.env);
  if (commissionBps > defaultBps && admin.roleName !== "owner") {
    throw new ApiError("forbidden", `Only the owner may give a commission above the default ${defaultBps / 100} %`, {
      details: { reason: "commission_above_default", defaultPercent: defaultBps / 100 },
    });
  }
  const now = Date.now();
  for (let attempt = 0; ; attempt++) {
    const code = row.referralCode ?? input.referralCode?.toUpperCase() ?? suggestCode(user.name);
    try {
      // The approval and its audit row are one transaction.
      const statements = [
        db
          .update(resellers)
          .set({ status: "approved", referralCode: code, commissionBps, decidedAt: now, decidedBy: admin.id, updatedAt: now })
          .where(and(eq(resellers.userId, userId), eq(resellers.status, row.status)))
          .returning(),
        auditInsertWhen(
          db,
          { actorId: admin.id, action: "billing.reseller_approved", target: userTarget(userId), details: { ...input, referralCode: code } },
          changedAbove,
          now,
        ),
      ] as const;
      if (row.referralCode) {
        const [[updated]] = await db.batch(statements);
        if (!updated) throw new ApiError("conflict", "The application changed meanwhile. Reload");
        return updated;
      }
      const [, [updated]] = await db.batch([
        db.insert(referralCodes).values({ code, app: user.app, owner: user.name, ownerUserId: userId, createdAt: now }),
        ...statements,
      ]);
      if (!updated) throw new ApiError("conflict", "The application changed meanwhile. Reload");
      return updated;
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      if (input.referralCode) throw new ApiError("conflict", "This referral code is taken", { details: { field: "referralCode" } });
      if (attempt >= 3) throw err;
    }
  }
}

/** Reject an application, or revoke an approved reseller (their code stays theirs; commissions stop). */
export async function endReseller(ctx: BillingContext, admin: SessionUser, userId: number, to: "rejected" | "revoked"): Promise<ResellerRow> {
  const from = to === "rejected" ? "applied" : "approved";
  const now = Date.now();
  const { db } = ctx;
  // The decision and its audit row are one transaction.
  const [[updated]] = await db.batch([
    db
      .update(resellers)
      .set({ status: to, decidedAt: now, decidedBy: admin.id, updatedAt: now })
      .where(and(eq(resellers.userId, userId), eq(resellers.status, from)))
      .returning(),
    auditInsertWhen(
      db,
      { actorId: admin.id, action: to === "rejected" ? "billing.reseller_rejected" : "billing.reseller_revoked", target: userTarget(userId) },
      changedAbove,
      now,
    ),
  ]);
  if (updated) return updated;
  const row = await resellerOf(ctx.db, userId);
  if (!row) throw new ApiError("not_found", "No reseller application for this user");
  throw new ApiError("conflict", `Only ${from === "applied" ? "an application" : "an approved reseller"} can be ${to}`, { details: { status: row.status } });
}
