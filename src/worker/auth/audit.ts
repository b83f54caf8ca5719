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
  | "billing.service_time_adjusted";

export async function recordAudit(
  db: Db,
  entry: { actorId: number | null; action: IdentityAuditAction; target?: string; details?: Record<string, unknown> },
  now = Date.now(),
): Promise<void> {
  await db.insert(auditLog).values({ actorId: entry.actorId, action: entry.action, target: entry.target ?? null, details: entry.details ?? null, at: now });
}
