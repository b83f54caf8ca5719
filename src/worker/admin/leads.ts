import { and, count, desc, eq, gte, isNotNull, isNull, lte, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import type { LeadListQuery, LeadPatch, LeadRow, LeadStage } from "../../shared/admin-lists";
import { dayEnd, dayStart } from "../../shared/audience";
import { type Page, pageOffset } from "../../shared/paging";
import { parseReviewSearch } from "../../shared/search";
import type { SessionUser } from "../context";
import { auditInsert } from "../cross-cutting/audit";
import { namedFields } from "../db/batch-fields";
import { type Db, phoneEndsWith } from "../db/client";
import { leads, payments, users } from "../db/schema";
import { ApiError } from "../errors";

/**
 * Leads (docs/admin.md): contact-form messages, and drivers who dropped off on the way to paying.
 * A driver becomes a lead once, 24 hours after registering, if by then they had not confirmed the
 * phone, connected the delivery account and paid; the cron files them (fileDropOffLeads). Their
 * stage is read live from the account, so a lead who later pays shows as "paid" at once.
 */
export const DROP_OFF_AFTER_MS = 24 * 3600_000;
/** How far back each filing looks: missed runs (up to a week of them) are caught up, never repeated. */
const FILING_WINDOW_MS = 7 * 24 * 3600_000;

const driver = alias(users, "driver");
const owner = alias(users, "owner");
const payment = alias(payments, "payment");

const hasPaid = (userId: SQL | typeof users.id | typeof driver.id) =>
  sql`EXISTS (SELECT 1 FROM ${payments} ${sql.identifier("payment")} WHERE ${payment.userId} = ${userId} AND ${payment.status} = 'successful')`;

/** The stage as SQL: contact for a form message, else the furthest step the driver has not reached. */
const stage = sql<LeadStage>`CASE
  WHEN ${leads.userId} IS NULL THEN 'contact'
  WHEN ${hasPaid(driver.id)} THEN 'paid'
  WHEN ${driver.phoneVerified} = 0 THEN 'unconfirmed'
  WHEN ${driver.accountConnected} = 0 THEN 'unconnected'
  ELSE 'unpaid' END`;

/**
 * Files the drivers whose first 24 hours ended since the last runs without reaching a payment, in
 * one INSERT … SELECT (leads.user_id is unique, so a driver is filed once however often this runs).
 */
export async function fileDropOffLeads(db: Db, now = Date.now()): Promise<number> {
  const until = now - DROP_OFF_AFTER_MS;
  const result = await db.run(sql`
    INSERT INTO ${leads} (${sql.identifier(leads.app.name)}, ${sql.identifier(leads.phone.name)}, ${sql.identifier(leads.name.name)},
      ${sql.identifier(leads.email.name)}, ${sql.identifier(leads.source.name)}, ${sql.identifier(leads.userId.name)}, ${sql.identifier(leads.createdAt.name)})
    SELECT ${users.app}, ${users.phone}, ${users.name}, ${users.email}, 'drop-off', ${users.id}, ${users.createdAt} + ${DROP_OFF_AFTER_MS}
    FROM ${users}
    WHERE ${users.app} IN ('flex', 'spark') AND ${users.isAdmin} = 0 AND ${users.erasedAt} IS NULL
      AND ${users.createdAt} > ${until - FILING_WINDOW_MS} AND ${users.createdAt} <= ${until}
      AND NOT (${users.phoneVerified} = 1 AND ${users.accountConnected} = 1 AND ${hasPaid(users.id)})
    ON CONFLICT DO NOTHING`);
  return result.meta.changes ?? 0;
}

function where(q: LeadListQuery, me: number): SQL | undefined {
  const conditions: SQL[] = [];
  if (q.stage === "contact") conditions.push(isNull(leads.userId));
  else if (q.stage !== "all") conditions.push(isNotNull(leads.userId), sql`${stage} = ${q.stage}`);
  if (q.status !== "all") conditions.push(eq(leads.status, q.status));
  if (q.owner === "me") conditions.push(eq(leads.ownerId, me));
  else if (q.owner === "none") conditions.push(isNull(leads.ownerId));
  else if (typeof q.owner === "number") conditions.push(eq(leads.ownerId, q.owner));
  if (q.from) conditions.push(gte(leads.createdAt, dayStart(q.from, q.timeZone)));
  if (q.to) conditions.push(lte(leads.createdAt, dayEnd(q.to, q.timeZone)));
  const search = parseReviewSearch(q.search);
  if (search.kind === "phone") conditions.push(eq(leads.phone, search.phone));
  if (search.kind === "text") {
    const term = `%${search.text.replace(/[%_\\]/g, (c) => `\\${c}`)}%`;
    const text = sql`(lower(coalesce(${leads.name}, '')) LIKE ${term} ESCAPE '\\' OR lower(coalesce(${leads.email}, '')) LIKE ${term} ESCAPE '\\')`;
    conditions.push(search.phoneEnd ? sql`(${phoneEndsWith(leads.phone, search.phoneEnd)} OR ${text})` : text);
  }
  return conditions.length > 0 ? and(...conditions) : undefined;
}

const columns = namedFields({
  id: leads.id,
  app: leads.app,
  phone: leads.phone,
  name: leads.name,
  email: leads.email,
  source: leads.source,
  message: leads.message,
  userId: leads.userId,
  stage,
  status: leads.status,
  ownerId: leads.ownerId,
  ownerName: sql<string | null>`${owner.name}`,
  notes: leads.notes,
  createdAt: leads.createdAt,
  updatedAt: leads.updatedAt,
});

export async function leadPage(db: Db, q: LeadListQuery, me: number): Promise<Page<LeadRow>> {
  const filter = where(q, me);
  const [total, rows] = await db.batch([
    db.select({ n: count() }).from(leads).leftJoin(driver, eq(driver.id, leads.userId)).where(filter),
    db
      .select(columns)
      .from(leads)
      .leftJoin(driver, eq(driver.id, leads.userId))
      .leftJoin(owner, eq(owner.id, leads.ownerId))
      .where(filter)
      .orderBy(desc(leads.createdAt), desc(leads.id))
      .limit(q.pageSize)
      .offset(pageOffset(q.page, q.pageSize)),
  ]);
  return { total: total[0]?.n ?? 0, page: q.page, pageSize: q.pageSize, rows };
}

async function leadById(db: Db, id: number): Promise<LeadRow> {
  const row = await db
    .select(columns)
    .from(leads)
    .leftJoin(driver, eq(driver.id, leads.userId))
    .leftJoin(owner, eq(owner.id, leads.ownerId))
    .where(eq(leads.id, id))
    .get();
  if (!row) throw new ApiError("not_found", "No such lead");
  return row;
}

/** Status, owner (an administrator, or nobody) and notes; audited with what changed. */
export async function updateLead(db: Db, actor: SessionUser, id: number, patch: LeadPatch, now = Date.now()): Promise<LeadRow> {
  const lead = await leadById(db, id);
  if (patch.ownerId !== undefined && patch.ownerId !== null) {
    const admin = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, patch.ownerId), eq(users.isAdmin, true)))
      .get();
    if (!admin)
      throw new ApiError("validation_failed", "The owner must be an administrator", { details: [{ path: "ownerId", message: "Not an administrator" }] });
  }
  const changed: Record<string, [unknown, unknown]> = {};
  for (const key of ["status", "ownerId", "notes"] as const) {
    if (patch[key] !== undefined && patch[key] !== lead[key]) changed[key] = [lead[key], patch[key]];
  }
  if (Object.keys(changed).length === 0) return lead;
  await db.batch([
    db
      .update(leads)
      .set({ ...patch, updatedAt: now })
      .where(eq(leads.id, id)),
    auditInsert(db, { actorId: actor.id, action: "admin.lead_updated", target: `lead:${id}`, details: { changed } }, now),
  ]);
  return leadById(db, id);
}
