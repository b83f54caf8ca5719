import { and, desc, eq, gte, inArray, like, lte, or, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client";
import { payments, users } from "../db/schema";

export type PaymentStatus = (typeof payments.$inferSelect)["status"];

export type PaymentFilter = {
  page: number;
  pageSize: number;
  userId?: number;
  status?: PaymentStatus;
  app?: "flex" | "spark";
  /** Created at or after / at or before (epoch ms). */
  from?: number;
  to?: number;
  /** Name or phone digits of the driver. */
  q?: string;
};

const settled = inArray(payments.status, ["successful", "refunded"]);

/**
 * Payments newest first, one page, with totals over the whole filter: what was charged and kept,
 * refunded, taken back by disputes, and the days of service sold. Used by the driver's history (their own) and the admin's
 * billing page (any filter).
 */
export async function paymentPage(db: Db, filter: PaymentFilter) {
  const payer = alias(users, "payer");
  const digits = filter.q?.replace(/\D/g, "") ?? "";
  const where = and(
    filter.userId !== undefined ? eq(payments.userId, filter.userId) : undefined,
    filter.status ? eq(payments.status, filter.status) : undefined,
    filter.app ? eq(users.app, filter.app) : undefined,
    filter.from !== undefined ? gte(payments.createdAt, filter.from) : undefined,
    filter.to !== undefined ? lte(payments.createdAt, filter.to) : undefined,
    filter.q ? or(like(users.name, `%${filter.q}%`), digits.length >= 3 ? like(users.phone, `%${digits}%`) : undefined) : undefined,
  );
  const [totals, rows] = await db.batch([
    db
      .select({
        count: sql<number>`count(*)`,
        grossCents: sql<number>`coalesce(sum(CASE WHEN ${settled} THEN ${payments.amountCents} ELSE 0 END), 0)`,
        refundedCents: sql<number>`coalesce(sum(${payments.refundedCents}), 0)`,
        // What disputes took back and did not return (open or lost; a won dispute gave it back).
        disputedCents: sql<number>`coalesce(sum(CASE WHEN ${payments.disputeStatus} IN ('open', 'lost') THEN ${payments.disputedCents} ELSE 0 END), 0)`,
        daysSold: sql<number>`coalesce(sum(CASE WHEN ${settled} THEN ${payments.days} ELSE 0 END), 0)`,
        successful: sql<number>`coalesce(sum(${payments.status} = 'successful'), 0)`,
        refunded: sql<number>`coalesce(sum(${payments.status} = 'refunded'), 0)`,
        failed: sql<number>`coalesce(sum(${payments.status} = 'failed'), 0)`,
        processing: sql<number>`coalesce(sum(${payments.status} = 'processing'), 0)`,
      })
      .from(payments)
      .innerJoin(users, eq(users.id, payments.userId))
      .where(where),
    db
      .select({
        id: payments.id,
        userId: payments.userId,
        userName: sql<string>`${users.name}`.as("user_name"),
        phoneNumber: users.phone,
        app: users.app,
        payerId: payments.payerId,
        payerName: sql<string | null>`${payer.name}`.as("payer_name"),
        planId: payments.planId,
        days: payments.days,
        amountCents: payments.amountCents,
        refundedCents: payments.refundedCents,
        disputeStatus: payments.disputeStatus,
        disputedCents: payments.disputedCents,
        status: payments.status,
        failureCode: payments.failureCode,
        provider: payments.provider,
        createdAt: payments.createdAt,
        settledAt: payments.settledAt,
      })
      .from(payments)
      .innerJoin(users, eq(users.id, payments.userId))
      .leftJoin(payer, eq(payer.id, payments.payerId))
      .where(where)
      .orderBy(desc(payments.createdAt), desc(payments.id))
      .limit(filter.pageSize)
      .offset((filter.page - 1) * filter.pageSize),
  ]);
  const t = totals[0]!;
  return {
    total: t.count,
    page: filter.page,
    pageSize: filter.pageSize,
    rows,
    totals: {
      grossCents: t.grossCents,
      refundedCents: t.refundedCents,
      disputedCents: t.disputedCents,
      netCents: t.grossCents - t.refundedCents - t.disputedCents,
      daysSold: t.daysSold,
      byStatus: { successful: t.successful, refunded: t.refunded, failed: t.failed, processing: t.processing },
    },
  };
}

/** One payment as its driver (or the reseller who paid it) sees it. */
export async function paymentView(db: Db, id: number) {
  return db
    .select({
      id: payments.id,
      userId: payments.userId,
      payerId: payments.payerId,
      planId: payments.planId,
      days: payments.days,
      amountCents: payments.amountCents,
      refundedCents: payments.refundedCents,
      disputeStatus: payments.disputeStatus,
      disputedCents: payments.disputedCents,
      status: payments.status,
      failureCode: payments.failureCode,
      createdAt: payments.createdAt,
      settledAt: payments.settledAt,
      expirationAt: users.expirationAt,
    })
    .from(payments)
    .innerJoin(users, eq(users.id, payments.userId))
    .where(eq(payments.id, id))
    .get();
}
