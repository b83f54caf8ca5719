import { and, asc, desc, eq, like, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { commissions, offers, payments, resellers, users } from "../db/schema";
import { type ResellerStatus, resellerOf } from "./resellers";

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
  const wonThisWeekQuery = sql`SELECT count(*) FROM ${offers} WHERE ${offers.userId} = ${users.id} AND ${offers.forfeitedAt} IS NULL AND ${offers.startsAt} >= ${input.weekStart}`;
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
