import { and, asc, desc, eq, isNull, like, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { auditInsertWhen, changedAbove, userTarget } from "../auth/audit";
import type { SessionUser } from "../auth/middleware";
import { randomString } from "../auth/random";
import type { Db } from "../db/client";
import { commissions, offers, payments, referralCodes, resellers, users } from "../db/schema";
import { ApiError } from "../errors";
import { PaymentsProviderError } from "../providers/payments/provider";
import { settleCommission } from "./commissions";
import type { BillingContext } from "./context";
import { paymentsProvider } from "./payments";

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

/**
 * Connect Express onboarding: the reseller's account (created once; its id is the product's
 * stripeExpressId) and a fresh account link to the provider's onboarding, which returns to
 * /flex/reseller.
 */
export async function startOnboarding(ctx: BillingContext, user: SessionUser, origin: string): Promise<{ url: string; accountId: string }> {
  const { db } = ctx;
  await approvedReseller(db, user.id);
  const provider = paymentsProvider(ctx);
  try {
    let accountId = user.stripeExpressId;
    if (!accountId) {
      const created = await provider.createExpressAccount({ userId: user.id, email: user.email, country: "US" });
      // Two tabs at once: the provider's idempotency key gives both the same account, and the first write wins.
      await db
        .update(users)
        .set({ stripeExpressId: created.id })
        .where(and(eq(users.id, user.id), isNull(users.stripeExpressId)));
      accountId = (await db.select({ id: users.stripeExpressId }).from(users).where(eq(users.id, user.id)).get())?.id ?? created.id;
    }
    const link = await provider.createAccountLink({
      accountId,
      refreshUrl: `${origin}/flex/reseller?onboarding=refresh`,
      returnUrl: `${origin}/flex/reseller?onboarding=return`,
    });
    return { url: link.url, accountId };
  } catch (err) {
    if (err instanceof PaymentsProviderError) {
      ctx.log.error("resellers.onboarding_failed", { userId: user.id, code: err.code, error: err.message });
      throw new ApiError("unavailable", "Couldn't start the payout setup. Try again in a moment");
    }
    throw err;
  }
}

/**
 * The Express account's state (from account.updated, or read back when the reseller returns from
 * onboarding). Once payouts are enabled, commissions that waited for it are transferred.
 */
export async function updateAccountStatus(ctx: BillingContext, account: { id: string; detailsSubmitted: boolean; payoutsEnabled: boolean }) {
  const { db } = ctx;
  const owner = await db.select({ id: users.id }).from(users).where(eq(users.stripeExpressId, account.id)).get();
  if (!owner) {
    ctx.log.warn("resellers.unknown_account", { accountId: account.id });
    return;
  }
  await db
    .update(resellers)
    .set({ detailsSubmitted: account.detailsSubmitted, payoutsEnabled: account.payoutsEnabled, updatedAt: Date.now() })
    .where(eq(resellers.userId, owner.id));
  if (!account.payoutsEnabled) return;
  const waiting = await db
    .select({ id: commissions.id })
    .from(commissions)
    .where(and(eq(commissions.resellerId, owner.id), eq(commissions.status, "pending")))
    .orderBy(asc(commissions.id))
    .limit(50);
  ctx.waitUntil(
    (async () => {
      for (const { id } of waiting) await settleCommission(ctx, id);
    })().catch((err: unknown) => ctx.log.error("commissions.settle_failed", { error: String(err) })),
  );
}

export async function refreshOnboarding(ctx: BillingContext, user: SessionUser) {
  await approvedReseller(ctx.db, user.id);
  if (!user.stripeExpressId) return { detailsSubmitted: false, payoutsEnabled: false };
  try {
    const account = await paymentsProvider(ctx).retrieveAccount(user.stripeExpressId);
    await updateAccountStatus(ctx, account);
    return { detailsSubmitted: account.detailsSubmitted, payoutsEnabled: account.payoutsEnabled };
  } catch (err) {
    if (err instanceof PaymentsProviderError) throw new ApiError("unavailable", "Couldn't read the payout account. Try again in a moment");
    throw err;
  }
}

/** The reseller's own view: status, code, rate, payout setup and commission totals. */
export async function resellerSummary(db: Db, user: SessionUser) {
  const row = await resellerOf(db, user.id);
  if (!row) return { status: "none" as const };
  const [totals, clients] = await db.batch([
    db
      .select({
        owedCents: sql<number>`coalesce(sum(CASE WHEN ${commissions.transferId} IS NULL THEN max(0, ${commissions.amountCents} - ${commissions.reversalDueCents}) ELSE 0 END), 0)`,
        paidCents: sql<number>`coalesce(sum(${commissions.transferredCents} - ${commissions.reversedCents}), 0)`,
        reversedCents: sql<number>`coalesce(sum(${commissions.reversalDueCents}), 0)`,
      })
      .from(commissions)
      .where(eq(commissions.resellerId, user.id)),
    db
      .select({ n: sql<number>`count(*)` })
      .from(users)
      .where(and(eq(users.referralCode, row.referralCode ?? "\u0000"), eq(users.app, user.app))),
  ]);
  return {
    status: row.status,
    appliedAt: row.appliedAt,
    referralCode: row.status === "approved" ? row.referralCode : null,
    commissionPercent: row.commissionBps / 100,
    stripeExpressId: user.stripeExpressId,
    detailsSubmitted: row.detailsSubmitted,
    payoutsEnabled: row.payoutsEnabled,
    clients: clients[0]?.n ?? 0,
    totals: totals[0] ?? { owedCents: 0, paidCents: 0, reversedCents: 0 },
  };
}

/** A client of this reseller (registered with their code, same app), or undefined: cross-account lookups answer 404, not 403. */
export async function clientOf(db: Db, reseller: { userId: number; referralCode: string }, clientId: number, app: "flex" | "spark") {
  return db
    .select()
    .from(users)
    .where(and(eq(users.id, clientId), eq(users.referralCode, reseller.referralCode), eq(users.app, app), eq(users.isAdmin, false)))
    .get();
}

/** The reseller's clients: name, phone, expiry, system on/off and blocks won since `weekStart`. */
export async function clientPage(
  db: Db,
  input: { referralCode: string; app: "flex" | "spark"; page: number; pageSize: number; q?: string; weekStart: number },
) {
  const where = and(
    eq(users.referralCode, input.referralCode),
    eq(users.app, input.app),
    eq(users.isAdmin, false),
    input.q ? or(like(users.name, `%${input.q}%`), like(users.phone, `%${input.q.replace(/\D/g, "") || input.q}%`)) : undefined,
  );
  // Nested so its columns stay qualified: drizzle strips table names from a single-table select's own fields.
  const wonThisWeekQuery = sql`SELECT count(*) FROM ${offers} WHERE ${offers.userId} = ${users.id} AND ${offers.status} = 'won' AND ${offers.forfeitedAt} IS NULL AND ${offers.startsAt} >= ${input.weekStart}`;
  const wonThisWeek = sql<number>`(${wonThisWeekQuery})`;
  const [count, rows] = await db.batch([
    db.select({ n: sql<number>`count(*)` }).from(users).where(where),
    db
      .select({
        id: users.id,
        name: users.name,
        phoneNumber: users.phone,
        expirationAt: users.expirationAt,
        goodStanding: users.goodStanding,
        status: users.status,
        blocksWonThisWeek: wonThisWeek.as("blocks_won"),
        createdAt: users.createdAt,
      })
      .from(users)
      .where(where)
      .orderBy(asc(sql`${users.name} COLLATE NOCASE`), asc(users.id))
      .limit(input.pageSize)
      .offset((input.page - 1) * input.pageSize),
  ]);
  const now = Date.now();
  return {
    total: count[0]?.n ?? 0,
    page: input.page,
    pageSize: input.pageSize,
    rows: rows.map((r) => ({ ...r, goodStanding: r.goodStanding && r.expirationAt !== null && r.expirationAt > now })),
  };
}

export type CommissionFilter = { resellerId?: number; status?: "pending" | "paid" | "reversed"; page: number; pageSize: number };

/** Commissions, newest first, with their payment and client; totals over the whole filter. */
export async function commissionPage(db: Db, filter: CommissionFilter) {
  const where = and(
    filter.resellerId !== undefined ? eq(commissions.resellerId, filter.resellerId) : undefined,
    filter.status ? eq(commissions.status, filter.status) : undefined,
  );
  const [count, rows] = await db.batch([
    db
      .select({
        n: sql<number>`count(*)`,
        amountCents: sql<number>`coalesce(sum(${commissions.amountCents}), 0)`,
        transferredCents: sql<number>`coalesce(sum(${commissions.transferredCents}), 0)`,
        reversedCents: sql<number>`coalesce(sum(${commissions.reversedCents}), 0)`,
        reversalDueCents: sql<number>`coalesce(sum(${commissions.reversalDueCents}), 0)`,
      })
      .from(commissions)
      .where(where),
    db
      .select({
        id: commissions.id,
        paymentId: commissions.paymentId,
        resellerId: commissions.resellerId,
        clientId: commissions.clientId,
        clientName: sql<string>`${users.name}`.as("client_name"),
        paymentCents: sql<number>`${payments.amountCents}`.as("payment_cents"),
        paymentStatus: sql<string>`${payments.status}`.as("payment_status"),
        amountCents: commissions.amountCents,
        commissionBps: commissions.commissionBps,
        status: commissions.status,
        transferId: commissions.transferId,
        transferredCents: commissions.transferredCents,
        reversalDueCents: commissions.reversalDueCents,
        reversedCents: commissions.reversedCents,
        lastError: commissions.lastError,
        createdAt: commissions.createdAt,
      })
      .from(commissions)
      .innerJoin(users, eq(users.id, commissions.clientId))
      .innerJoin(payments, eq(payments.id, commissions.paymentId))
      .where(where)
      .orderBy(desc(commissions.createdAt), desc(commissions.id))
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize),
  ]);
  const t = count[0]!;
  return {
    total: t.n,
    page: filter.page,
    pageSize: filter.pageSize,
    rows,
    totals: { amountCents: t.amountCents, transferredCents: t.transferredCents, reversedCents: t.reversedCents, reversalDueCents: t.reversalDueCents },
  };
}

/** Applications and resellers for the admin, newest application first. */
export async function resellerPage(db: Db, filter: { status?: ResellerStatus; page: number; pageSize: number }) {
  const where = filter.status ? eq(resellers.status, filter.status) : undefined;
  const client = alias(users, "client");
  // Clients are the code's own app's: a code belongs to one app (docs/payments.md).
  const clients = sql<number>`(${db
    .select({ n: sql`count(*)` })
    .from(client)
    .where(and(eq(client.referralCode, resellers.referralCode), eq(client.app, users.app)))})`;
  const [count, rows] = await db.batch([
    db.select({ n: sql<number>`count(*)` }).from(resellers).where(where),
    db
      .select({
        userId: resellers.userId,
        name: users.name,
        phoneNumber: users.phone,
        app: users.app,
        status: resellers.status,
        message: resellers.message,
        referralCode: resellers.referralCode,
        commissionBps: resellers.commissionBps,
        stripeExpressId: users.stripeExpressId,
        detailsSubmitted: resellers.detailsSubmitted,
        payoutsEnabled: resellers.payoutsEnabled,
        clients: clients.as("clients"),
        appliedAt: resellers.appliedAt,
        decidedAt: resellers.decidedAt,
      })
      .from(resellers)
      .innerJoin(users, eq(users.id, resellers.userId))
      .where(where)
      .orderBy(desc(resellers.appliedAt), desc(resellers.userId))
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize),
  ]);
  return {
    total: count[0]?.n ?? 0,
    page: filter.page,
    pageSize: filter.pageSize,
    rows: rows.map(({ commissionBps, ...r }) => ({ ...r, commissionPercent: commissionBps / 100 })),
  };
}
