import type { Db } from "../db/client";
import { auditLog } from "../db/schema";

/** Identity events worth answering "who did this, when" for later; never secrets or codes. */
export type IdentityAuditAction =
  | "auth.sign_in"
  | "auth.sign_out_global"
  | "auth.password_changed"
  | "auth.password_reset"
  | "auth.phone_confirmed"
  | "auth.mfa_enabled"
  | "admin.user_created"
  | "billing.refund_requested"
  | "billing.plan_created"
  | "billing.plan_updated"
  | "billing.reseller_approved"
  | "billing.reseller_rejected"
  | "billing.reseller_revoked"
  | "billing.service_time_adjusted"
  | "account.erased";

/** What administrators change from the console (docs/admin.md): every change leaves one of these. */
export type AdminAuditAction =
  | "admin.user_updated"
  | "admin.user_signed_out"
  | "admin.totp_reset"
  | "admin.role_changed"
  | "admin.opt_outs_changed"
  | "admin.system_changed"
  | "admin.users_exported"
  | "admin.payments_exported"
  | "admin.lead_updated"
  | "admin.account_erased";

export type AuditAction = IdentityAuditAction | AdminAuditAction;

export type AuditEntry = { actorId: number | null; action: AuditAction; target?: string; details?: Record<string, unknown> };

/** The audit row as a statement, to go in the same db.batch as the change it records. */
export function auditInsert(db: Db, entry: AuditEntry, now = Date.now()) {
  return db.insert(auditLog).values({ actorId: entry.actorId, action: entry.action, target: entry.target ?? null, details: entry.details ?? null, at: now });
}

export async function recordAudit(db: Db, entry: AuditEntry, now = Date.now()): Promise<void> {
  await auditInsert(db, entry, now);
}

/** How audit rows name a user they are about. */
export const userTarget = (id: number) => `user:${id}`;
