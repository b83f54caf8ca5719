import { and, count, desc, eq, gte, lte, type SQL } from "drizzle-orm";
import type { AuditListQuery } from "../../shared/admin-lists";
import type { AuditRow } from "../../shared/admin-users";
import { dayEnd, dayStart } from "../../shared/audience";
import { type Page, pageOffset } from "../../shared/paging";
import type { Db } from "../db/client";
import { auditLog, users } from "../db/schema";
import { visibleAuditRow } from "./billing-fields";
import { auditFields } from "./user-detail";

/**
 * The audit page (docs/admin.md): newest first, filtered by actor, action, target and the admin's
 * calendar days. Each filter has an index that starts with it and ends with the time. Without
 * billingDetails, billing actions come without their details (visibleAuditRow).
 */
export async function auditPage(db: Db, q: AuditListQuery, billing: boolean): Promise<Page<AuditRow>> {
  const conditions: SQL[] = [];
  if (q.actor !== undefined) conditions.push(eq(auditLog.actorId, q.actor));
  if (q.action) conditions.push(eq(auditLog.action, q.action));
  if (q.target) conditions.push(eq(auditLog.target, q.target));
  if (q.from) conditions.push(gte(auditLog.at, dayStart(q.from, q.timeZone)));
  if (q.to) conditions.push(lte(auditLog.at, dayEnd(q.to, q.timeZone)));
  const where = conditions.length > 0 ? and(...conditions) : undefined;
  const [total, rows] = await db.batch([
    db.select({ n: count() }).from(auditLog).where(where),
    db
      .select(auditFields)
      .from(auditLog)
      .leftJoin(users, eq(users.id, auditLog.actorId))
      .where(where)
      .orderBy(desc(auditLog.at), desc(auditLog.id))
      .limit(q.pageSize)
      .offset(pageOffset(q.page, q.pageSize)),
  ]);
  return { total: total[0]?.n ?? 0, page: q.page, pageSize: q.pageSize, rows: rows.map((r) => visibleAuditRow(r, billing)) };
}

/** The actions the log holds, for the page's filter (a few dozen kinds at most; bounded all the same). */
export async function auditActions(db: Db): Promise<string[]> {
  const rows = await db.selectDistinct({ action: auditLog.action }).from(auditLog).orderBy(auditLog.action).limit(200);
  return rows.map((r) => r.action);
}
