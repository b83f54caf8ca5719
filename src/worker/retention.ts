import { and, eq, inArray, isNull, lt, notExists, or, type SQL, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { APPS } from "../shared/auth";
import { type Db, dbFor } from "./db/client";
import {
  auditLog,
  authChallenges,
  driverNotifications,
  invitations,
  leads,
  offers,
  outbox,
  platformSignIns,
  rateLimits,
  refreshTokens,
  users,
  verificationCodes,
} from "./db/schema";
import { createLogger } from "./log";

const DAY = 86_400_000;

/**
 * How long each kind of row is kept (the privacy policy, section 5, says the same; keep them equal).
 * Rows with no entry here are kept while the account exists and are erased with it
 * (src/worker/account/erase.ts); payments, service time and commissions are kept as the law requires.
 */
export const RETENTION = {
  /** Codes live 10 minutes; kept a day past expiry so a late "this code has expired" can still be told. */
  verificationCodes: DAY,
  /** Offers the engine passed on or that went to someone else (in the driver's history). */
  offersNotWon: 90 * DAY,
  /** Blocks won: 13 months, so the dashboards' 12-month ranges stay whole. */
  offersWon: 400 * DAY,
  /** Campaign messages (number, name, status) after their last change. */
  campaignMessages: 2 * 365 * DAY,
  /** Contact-form messages and drop-off leads after their last change. */
  leads: 365 * DAY,
  /** Invitations of numbers that never registered in the app and earned nothing. */
  unansweredInvitations: 365 * DAY,
  /** Audit entries. */
  auditLog: 2 * 365 * DAY,
  /** The embedded SMS/WhatsApp outbox (development and tests only: production refuses the outbox). */
  outbox: 30 * DAY,
  /** A driver's notifications (pushes and texts, with what they said) after their last change. */
  driverNotifications: 30 * DAY,
} as const;

/**
 * Rows one run deletes per kind at most: the cron runs every minute, so even a backlog goes at
 * 1,440 runs a day without one run holding D1 for long. Offers come fastest (every offer a running
 * engine is shown), hence the larger share.
 */
export const RETENTION_BATCH = { offers: 5_000, other: 1_000 } as const;

/** The oldest rows of a table, by id, as a bounded subquery (D1 has no DELETE … LIMIT). */
const oldest = (table: SQLiteTable, id: SQLiteColumn, where: SQL | undefined, limit: number) => sql`(SELECT ${id} FROM ${table} WHERE ${where} LIMIT ${limit})`;

/**
 * The delete of a table's expired rows that the module owning the table builds (the message
 * ledger's campaign messages: src/worker/messaging/message-ledger.ts), at most `limit` of
 * them, for the retention run's transaction. `before(ms)`: the instant `ms` ago.
 */
export type ExpiredRows = (db: Db, before: (ms: number) => number, limit: number) => BatchItem<"sqlite">;

/**
 * Deletes expired rows: codes, sign-in challenges, rate-limit windows, refresh tokens and platform
 * sign-ins past their expiry, and everything past its time in RETENTION, `owned` among them. One
 * batch (one transaction); a scheduled job (src/worker/scheduled.ts).
 */
export async function deleteExpiredRows(env: Env, now: number, owned: readonly ExpiredRows[]): Promise<void> {
  const db = dbFor(env.DB);
  const before = (ms: number) => now - ms;
  const o = offers;
  const results = await db.batch([
    db.delete(verificationCodes).where(lt(verificationCodes.expiresAt, before(RETENTION.verificationCodes))),
    db.delete(authChallenges).where(lt(authChallenges.expiresAt, now)),
    db.delete(rateLimits).where(lt(rateLimits.resetAt, now)),
    db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now)),
    db.delete(platformSignIns).where(lt(platformSignIns.expiresAt, now)),
    // offers_created serves it.
    db.delete(o).where(inArray(o.id, oldest(o, o.id, lt(o.createdAt, before(RETENTION.offersWon)), RETENTION_BATCH.offers))),
    // Tables other modules own and write alone (the message ledger's campaign_messages).
    ...owned.map((expired) => expired(db, before, RETENTION_BATCH.other)),
    db
      .delete(leads)
      .where(
        inArray(
          leads.id,
          oldest(
            leads,
            leads.id,
            and(
              inArray(leads.app, [...APPS]),
              lt(leads.createdAt, before(RETENTION.leads)),
              or(isNull(leads.updatedAt), lt(leads.updatedAt, before(RETENTION.leads))),
            ),
            RETENTION_BATCH.other,
          ),
        ),
      ),
    db.delete(invitations).where(
      inArray(
        invitations.id,
        oldest(
          invitations,
          invitations.id,
          and(
            inArray(invitations.app, [...APPS]),
            lt(invitations.invitedAt, before(RETENTION.unansweredInvitations)),
            eq(invitations.freeWeek, false),
            notExists(
              db
                .select({ one: sql`1` })
                .from(users)
                .where(and(eq(users.app, invitations.app), eq(users.phone, invitations.phone))),
            ),
          ),
          RETENTION_BATCH.other,
        ),
      ),
    ),
    db.delete(auditLog).where(inArray(auditLog.id, oldest(auditLog, auditLog.id, lt(auditLog.at, before(RETENTION.auditLog)), RETENTION_BATCH.other))),
    db.delete(outbox).where(inArray(outbox.id, oldest(outbox, outbox.id, lt(outbox.createdAt, before(RETENTION.outbox)), RETENTION_BATCH.other))),
    // driver_notifications_status serves it: every row past its time has ended (sent, failed, skipped) or is long stuck.
    db
      .delete(driverNotifications)
      .where(
        inArray(
          driverNotifications.id,
          oldest(
            driverNotifications,
            driverNotifications.id,
            and(
              inArray(driverNotifications.status, ["queued", "sending", "sent", "failed", "skipped"]),
              lt(driverNotifications.updatedAt, before(RETENTION.driverNotifications)),
            ),
            RETENTION_BATCH.other,
          ),
        ),
      ),
  ]);
  createLogger({ task: "retention" }).info("retention.done", { deleted: results.map((r) => r.meta.changes) });
}
