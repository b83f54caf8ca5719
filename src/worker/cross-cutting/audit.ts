import { isSQLWrapper, type SQL, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { auditLog } from "../db/schema";

/** Identity events worth answering "who did this, when" for later; never secrets or codes. */
export type IdentityAuditAction =
  | "auth.sign_in"
  | "auth.sign_out_global"
  | "auth.password_changed"
  | "auth.password_reset"
  | "auth.phone_confirmed"
  | "auth.signup_dropped"
  | "auth.mfa_enabled"
  | "admin.user_created"
  | "billing.refund_requested"
  | "billing.plan_created"
  | "billing.plan_updated"
  | "billing.reseller_approved"
  | "billing.reseller_rejected"
  | "billing.reseller_revoked"
  | "billing.service_time_adjusted"
  | "driver.calendar_viewed"
  | "driver.dashboard_viewed"
  | "account.erased";

/** What administrators change from the console (docs/admin.md): every change leaves one of these. */
export type AdminAuditAction =
  | "admin.user_updated"
  | "admin.user_signed_out"
  | "admin.totp_reset"
  | "admin.role_changed"
  | "admin.opt_outs_changed"
  | "admin.system_changed"
  | "admin.engine_hold_cleared"
  | "admin.users_exported"
  | "admin.payments_exported"
  | "admin.campaign_exported"
  | "admin.lead_updated"
  | "campaign.create"
  | "campaign.cancel"
  | "admin.account_erased";

export type AuditAction = IdentityAuditAction | AdminAuditAction;

export type AuditEntry = { actorId: number | null; action: AuditAction; target?: string; details?: Record<string, unknown> };

/** The audit row as a statement, to go in the same db.batch as the change it records. */
export function auditInsert(db: Db, entry: AuditEntry, now = Date.now()) {
  return db.insert(auditLog).values({ actorId: entry.actorId, action: entry.action, target: entry.target ?? null, details: entry.details ?? null, at: now });
}

/**
 * The audit row of a conditional change, for the same db.batch: written only when `when` holds
 * inside the transaction (for example `changedAbove`: the statement just before it changed a
 * row), so a change that did not happen leaves no row, and one that did never goes without its
 * row (if the audit insert fails, the whole batch is rolled back). `target` and `details` may
 * be SQL (an id the batch has just made, a count it has just taken).
 */
export function auditInsertWhen(
  db: Db,
  entry: Omit<AuditEntry, "target" | "details"> & { target?: string | SQL; details?: Record<string, unknown> | SQL },
  when: SQL,
  now = Date.now(),
) {
  const details = entry.details === undefined ? null : isSQLWrapper(entry.details) ? entry.details : JSON.stringify(entry.details);
  return db.insert(auditLog).select(
    db
      .select({
        id: sql<number>`NULL`.as("id"),
        actorId: sql<number | null>`${entry.actorId}`.as("actor_id"),
        action: sql<string>`${entry.action}`.as("action"),
        target: sql<string | null>`${entry.target ?? null}`.as("target"),
        details: sql<string | null>`${details}`.as("details"),
        at: sql<number>`${now}`.as("at"),
      })
      .from(sql`(SELECT 1)`)
      .where(when),
  );
}

/** For auditInsertWhen, placed right after the statement it records: that statement changed at least one row (SQLite's changes()). */
export const changedAbove = sql`changes() > 0`;

export async function recordAudit(db: Db, entry: AuditEntry, now = Date.now()): Promise<void> {
  await auditInsert(db, entry, now);
}

/** How audit rows name a user they are about. */
export const userTarget = (id: number) => `user:${id}`;
