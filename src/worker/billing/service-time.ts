import { and, desc, eq, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { auditInsertWhen, userTarget } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { serviceTimeLedger, users } from "../db/schema";

export const DAY_MS = 86_400_000;

export type ServiceTimeKind = (typeof serviceTimeLedger.$inferSelect)["kind"];

/**
 * One change to a driver's service time. Every change to `users.expiration_at` goes through here
 * (docs/payments.md), so each day a driver has can be explained by ledger rows.
 *
 * - Adding (deltaMs ≥ 0) starts from the later of now and the current expiration: paid time is
 *   never lost by paying late, and days bought ahead stack.
 * - Removing (deltaMs < 0) never goes below now and leaves an expired account as it is; the row
 *   records what was really removed. A change of 0 changes nothing but is recorded.
 * - `sourceKey` names the cause (payment:12, refund:12:500, free_week:invitee:34, adjustment:<uuid>):
 *   a cause counts once, however many times or concurrently it is applied.
 * - `guard` is an extra condition checked inside the same transaction (e.g. "the payment is still
 *   successful"); when it is false nothing is written.
 */
export type ServiceTimeChange = {
  userId: number;
  deltaMs: number;
  kind: ServiceTimeKind;
  sourceKey: string;
  actorId?: number | null;
  paymentId?: number | null;
  invitationId?: number | null;
  reason?: string | null;
  guard?: SQL;
};

export type LedgerEntry = typeof serviceTimeLedger.$inferSelect;

export type ServiceTimeResult = {
  /** True when this call made the change; false when the cause had already counted (or the guard said no). */
  applied: boolean;
  /** The ledger row of the cause, whoever wrote it; undefined when the guard refused and nobody had. */
  entry: LedgerEntry | undefined;
};

/**
 * The statements of a change, for callers that must commit it in one transaction with their own
 * writes (a payment's status and its days). Run them in one `db.batch`, in this order; `read` is
 * the last of them and `resultOf` turns its rows into the outcome.
 */
export function serviceTimeStatements(db: Db, change: ServiceTimeChange, now = Date.now()) {
  if (!Number.isSafeInteger(change.deltaMs)) throw new Error("deltaMs must be a whole number of milliseconds");
  const requestId = crypto.randomUUID();
  const current = users.expirationAt;
  const after =
    change.deltaMs > 0
      ? sql<number>`max(coalesce(${current}, ${now}), ${now}) + ${change.deltaMs}`
      : sql<number | null>`CASE WHEN ${current} IS NULL OR ${current} <= ${now} THEN ${current} ELSE max(${now}, ${current} + ${change.deltaMs}) END`;
  const applied = change.deltaMs > 0 ? sql<number>`${change.deltaMs}` : sql<number>`coalesce((${after}) - ${current}, 0)`;

  const insert = db
    .insert(serviceTimeLedger)
    .select(
      db
        .select({
          id: sql<number>`NULL`.as("id"),
          userId: users.id,
          kind: sql<ServiceTimeKind>`${change.kind}`.as("kind"),
          deltaMs: applied.as("delta_ms"),
          expirationBefore: sql<number | null>`${current}`.as("expiration_before"),
          expirationAfter: after.as("expiration_after"),
          paymentId: sql<number | null>`${change.paymentId ?? null}`.as("payment_id"),
          invitationId: sql<number | null>`${change.invitationId ?? null}`.as("invitation_id"),
          actorId: sql<number | null>`${change.actorId ?? null}`.as("actor_id"),
          reason: sql<string | null>`${change.reason ?? null}`.as("reason"),
          sourceKey: sql<string>`${change.sourceKey}`.as("source_key"),
          requestId: sql<string>`${requestId}`.as("request_id"),
          createdAt: sql<number>`${now}`.as("created_at"),
        })
        .from(users)
        .where(and(eq(users.id, change.userId), change.guard)),
    )
    .onConflictDoNothing({ target: serviceTimeLedger.sourceKey });

  // Only the call whose insert won (its requestId is on the row) moves the expiration.
  const mine = and(eq(serviceTimeLedger.sourceKey, change.sourceKey), eq(serviceTimeLedger.requestId, requestId));
  const newExpiration = sql`(SELECT ${serviceTimeLedger.expirationAfter} FROM ${serviceTimeLedger} WHERE ${mine})`;
  const update = db
    .update(users)
    .set({
      expirationAt: sql`${newExpiration}`,
      goodStanding: sql`coalesce(${newExpiration} > ${now}, 0)`,
    })
    .where(and(eq(users.id, change.userId), sql`EXISTS (SELECT 1 FROM ${serviceTimeLedger} WHERE ${mine})`));

  const read = db.select().from(serviceTimeLedger).where(eq(serviceTimeLedger.sourceKey, change.sourceKey)).limit(1);

  return {
    statements: [insert, update, read] as const satisfies readonly BatchItem<"sqlite">[],
    read,
    /** True (inside the batch, after the insert) only when this call's change was the one recorded. */
    appliedHere: sql`EXISTS (SELECT 1 FROM ${serviceTimeLedger} WHERE ${mine})`,
    resultOf: (rows: LedgerEntry[]): ServiceTimeResult => ({ applied: rows[0]?.requestId === requestId, entry: rows[0] }),
  };
}

/**
 * Applies one change to a driver's service time (payments, refunds, free weeks, an
 * administrator's extension): the one function other code calls. Safe to repeat with the same
 * `sourceKey`: the second call changes nothing and answers `applied: false` with the first entry.
 */
export async function changeServiceTime(db: Db, change: ServiceTimeChange, now = Date.now()): Promise<ServiceTimeResult> {
  const { statements, resultOf } = serviceTimeStatements(db, change, now);
  const results = await db.batch(statements);
  return resultOf(results[2]);
}

/**
 * An administrator's manual extension (positive days) or reduction (negative), always a new ledger
 * row; its audit row (`billing.service_time_adjusted`) is written in the same transaction.
 */
export async function adjustServiceTime(
  db: Db,
  input: { userId: number; days: number; actorId: number; reason: string },
  now = Date.now(),
): Promise<ServiceTimeResult> {
  const time = serviceTimeStatements(
    db,
    {
      userId: input.userId,
      deltaMs: Math.round(input.days * DAY_MS),
      kind: "adjustment",
      sourceKey: `adjustment:${crypto.randomUUID()}`,
      actorId: input.actorId,
      reason: input.reason,
    },
    now,
  );
  const [insert, update, read] = time.statements;
  const [, , , rows] = await db.batch([
    insert,
    update,
    auditInsertWhen(
      db,
      {
        actorId: input.actorId,
        action: "billing.service_time_adjusted",
        target: userTarget(input.userId),
        details: { days: input.days, reason: input.reason },
      },
      time.appliedHere,
      now,
    ),
    read,
  ]);
  return time.resultOf(rows);
}

/** A driver's ledger, newest first, one page. */
export async function ledgerPage(db: Db, userId: number, page: number, pageSize: number) {
  const [count, rows] = await db.batch([
    db.select({ n: sql<number>`count(*)` }).from(serviceTimeLedger).where(eq(serviceTimeLedger.userId, userId)),
    db
      .select({
        id: serviceTimeLedger.id,
        kind: serviceTimeLedger.kind,
        deltaMs: serviceTimeLedger.deltaMs,
        expirationBefore: serviceTimeLedger.expirationBefore,
        expirationAfter: serviceTimeLedger.expirationAfter,
        paymentId: serviceTimeLedger.paymentId,
        invitationId: serviceTimeLedger.invitationId,
        reason: serviceTimeLedger.reason,
        actorId: serviceTimeLedger.actorId,
        // Aliased: D1 batches answer rows keyed by column name, so a joined "name"/"id" would collide.
        actorName: sql<string | null>`${users.name}`.as("actor_name"),
        createdAt: serviceTimeLedger.createdAt,
      })
      .from(serviceTimeLedger)
      .leftJoin(users, eq(users.id, serviceTimeLedger.actorId))
      .where(eq(serviceTimeLedger.userId, userId))
      .orderBy(desc(serviceTimeLedger.createdAt), desc(serviceTimeLedger.id))
      .limit(pageSize)
      .offset((page - 1) * pageSize),
  ]);
  return {
    total: count[0]?.n ?? 0,
    page,
    pageSize,
    rows: rows.map(({ actorId, actorName, ...r }) => ({
      ...r,
      days: Math.round((r.deltaMs / DAY_MS) * 100) / 100,
      actor: actorId !== null ? { id: actorId, name: actorName ?? "" } : null,
    })),
  };
}
