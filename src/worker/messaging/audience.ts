import { and, asc, count, desc, eq, gt, gte, inArray, lte, max, notExists, type SQL, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { type DriverAudience, type DriverRow, dayEnd, dayStart, type InvitationAudience, type InvitationRow } from "../../shared/audience";
import type { App } from "../../shared/auth";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { isInGoodStanding } from "../auth/user-item";
import { type Db, jsonList } from "../db/client";
import { invitations, users } from "../db/schema";
import { ApiError } from "../errors";
import { keyWithoutReferral, searchCondition, searchKeyWithoutReferral } from "./audience-search";

/**
 * Audiences are queries evaluated in D1 (docs/architecture.md, messaging) with the product's filter
 * semantics. Each builder yields one SELECT of recipients, used three ways: a page of the review
 * table, its count, and the campaign's INSERT … SELECT at expansion (./recipients.ts). The review,
 * the number N the admin confirms and the rows materialised therefore cannot disagree about who is in.
 *
 * The audience modules (this one, ./audience-search.ts, ./recipients.ts and ./exclusions.ts) are
 * where queries are written with drizzle's `sql` rather than only its builder: the recipients are
 * one set-based INSERT … SELECT over subqueries the builder cannot compose. Every table and column
 * still comes from db/schema.ts, so a renamed column fails to compile here too; bench:audience
 * measures these queries (bench/README.md).
 */

/** Filters as a campaign stores them: the review's filters and search, without paging. */
export type DriverFilters = Omit<DriverAudience, "page" | "pageSize"> & {
  /**
   * False when whoever chose the audience may not search referral codes (no billingDetails): set by
   * the server, stored with a campaign's filters so its expansion searches as its review did.
   */
  searchReferral?: boolean;
};
export type InvitationFilters = Omit<InvitationAudience, "page" | "pageSize"> & {
  /** As for drivers: false when whoever chose the audience may not search the invitees' referral codes. */
  searchReferral?: boolean;
};
export type UserRow = typeof users.$inferSelect;

export type BuildOptions = {
  /** Whether the text search reads the referral code too (only for administrators with billingDetails); it does by default. */
  searchReferral?: boolean;
  /** The instant "good standing" is judged at (the stored flag counts only while paid-up time is left). */
  now?: number;
  /** Only rows that existed at this moment (a campaign's creation), so a late sign-up never joins a campaign already confirmed. */
  asOf?: number;
  /** The old product's all-users tables list administrators too; the messaging audience does not. */
  includeAdmins?: boolean;
};

// Written `expression = 1` / `= 0` (not NOT …), so SQLite can answer a flag from the audience indexes.
const triState = (expression: SQL, value: "all" | "yes" | "no"): SQL[] => (value === "all" ? [] : [sql`${expression} = ${value === "yes" ? 1 : 0}`]);

// ---------------------------------------------------------------------------------------------
// Drivers (panel 1)

/**
 * Good standing as the user call reports it (isInGoodStanding in src/worker/auth/user-item.ts):
 * the stored flag, set by payments, is not trusted past the expiration instant.
 */
const goodStanding = (now: number) => sql`(${users.goodStanding} = 1 AND (${users.expirationAt} IS NULL OR ${users.expirationAt} > ${now}))`;

const regionColumn = (app: App) => (app === "flex" ? users.humanRegion : users.deliveryArea);

export function driverWhere(f: DriverFilters, options: BuildOptions): SQL {
  const tz = f.timeZone ?? f.tzOffsetMinutes;
  const conditions: (SQL | undefined)[] = [eq(users.app, f.app)];
  if (!options.includeAdmins) conditions.push(eq(users.isAdmin, false));
  if (f.startDate) conditions.push(gte(users.createdAt, dayStart(f.startDate, tz)));
  if (f.endDate) conditions.push(lte(users.createdAt, dayEnd(f.endDate, tz)));
  if (f.startExpirationDate) conditions.push(gte(users.expirationAt, dayStart(f.startExpirationDate, tz)));
  if (f.endExpirationDate) conditions.push(lte(users.expirationAt, dayEnd(f.endExpirationDate, tz)));
  if (f.referral.length > 0) conditions.push(inArray(users.referralCode, jsonList(f.referral)));
  // The region list is shown for Flex (human_region); for Spark the same filter reads the delivery area.
  if (f.region.length > 0) conditions.push(inArray(regionColumn(f.app), jsonList(f.region)));
  conditions.push(...triState(goodStanding(options.now ?? Date.now()), f.goodStanding));
  conditions.push(...triState(sql`${users.accountConnected}`, f.accountConnected));
  conditions.push(...triState(sql`${users.setupComplete}`, f.setupComplete));
  const searchKey = options.searchReferral === false || f.searchReferral === false ? searchKeyWithoutReferral : sql`${users.searchKey}`;
  conditions.push(...searchCondition(f.search, { phone: sql`${users.phone}`, searchKey }));
  if (options.asOf !== undefined) conditions.push(lte(users.createdAt, options.asOf));
  return and(...conditions)!;
}

function driverOrder(f: DriverFilters): SQL {
  const dir = sql.raw(f.dir === "asc" ? "ASC" : "DESC");
  const column = {
    name: sql`${users.name} COLLATE NOCASE`,
    phone: sql`${users.phone}`,
    createdAt: sql`${users.createdAt}`,
    // "None" (no expiration) sorts last both ways: it is never what someone sorting by date is after.
    expirationAt: sql`${users.expirationAt}`,
    // Regions and referral codes come from fixed lists with consistent case: byte order keeps the (app, is_admin, column) indexes usable.
    region: sql`${regionColumn(f.app)}`,
    referral: sql`${users.referralCode}`,
    status: sql`${users.status}`,
  }[f.sort];
  return sql`${column} ${dir} NULLS LAST, ${users.id} ${dir}`;
}

/** A row of the review table, from the user row (good standing judged at `now`). */
export function toDriverRow(user: UserRow, now = Date.now()): DriverRow {
  return {
    id: user.id,
    name: user.name,
    phone: user.phone,
    referral: user.referralCode,
    region: user.humanRegion,
    deliveryArea: user.deliveryArea,
    goodStanding: isInGoodStanding(user, now),
    accountConnected: user.accountConnected,
    setupComplete: user.setupComplete,
    expirationAt: user.expirationAt,
    status: user.status,
    stripeExpressId: user.stripeExpressId,
  };
}

/** One page of drivers (whole user rows) and the total, in one round trip. */
export async function driverPage(db: Db, f: DriverAudience, options: BuildOptions = {}): Promise<Page<UserRow>> {
  const now = options.now ?? Date.now();
  const where = driverWhere(f, { ...options, now });
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(users).where(where),
    db.select().from(users).where(where).orderBy(driverOrder(f)).limit(f.pageSize).offset(pageOffset(f.page, f.pageSize)),
  ]);
  return { total: counted[0]?.n ?? 0, page: f.page, pageSize: f.pageSize, rows };
}

/**
 * Up to `limit` users of the audience after the user `afterId`, in id order, and whether more
 * follow: the old calls' continuation (docs/api.md), which a changing table cannot make skip or
 * repeat a row the way an offset would.
 */
export async function driverRowsAfter(db: Db, f: DriverFilters, afterId: number | null, limit: number, options: BuildOptions = {}) {
  const where = and(driverWhere(f, { ...options, now: options.now ?? Date.now() }), afterId === null ? undefined : gt(users.id, afterId));
  const rows = await db
    .select()
    .from(users)
    .where(where)
    .orderBy(asc(users.id))
    .limit(limit + 1);
  return { rows: rows.slice(0, limit), more: rows.length > limit };
}

// ---------------------------------------------------------------------------------------------
// Unpaid invitations (panel 2)

/** The account a phone belongs to: the oldest, when a number is registered in both apps. */
export const account = alias(users, "account");
export const oldest = alias(users, "oldest");
const accountOf = (phone: SQL) => sql`(SELECT ${oldest.id} FROM ${users} ${oldest} WHERE ${oldest.phone} = ${phone} ORDER BY ${oldest.id} LIMIT 1)`;

/**
 * One row per invited phone. A phone that earned its inviter a free week has paid, so every
 * invitation of that phone is out (not only the row carrying the flag); invitedAt is the latest
 * invitation in the date range. Without an account the invitee is "Unregistered".
 */
export function invitationSelect(db: Db, f: InvitationFilters, options: BuildOptions) {
  const tz = f.timeZone ?? f.tzOffsetMinutes;
  const inRange: (SQL | undefined)[] = [eq(invitations.freeWeek, false)];
  if (f.startDate) inRange.push(gte(invitations.invitedAt, dayStart(f.startDate, tz)));
  if (f.endDate) inRange.push(lte(invitations.invitedAt, dayEnd(f.endDate, tz)));
  if (options.asOf !== undefined) inRange.push(lte(invitations.invitedAt, options.asOf));
  const latest = db
    .select({ phone: invitations.phone, invitedAt: max(invitations.invitedAt).as("invited_at") })
    .from(invitations)
    .where(and(...inRange))
    .groupBy(invitations.phone)
    .as("latest");
  const paid = alias(invitations, "paid");
  const connected = sql`coalesce(${account.accountConnected}, 0)`;
  const setUp = sql`coalesce(${account.setupComplete}, 0)`;
  const outer: (SQL | undefined)[] = [
    notExists(
      db
        .select({ one: sql`1` })
        .from(paid)
        .where(and(eq(paid.phone, latest.phone), eq(paid.freeWeek, true))),
    ),
  ];
  outer.push(...triState(sql`(${account.id} IS NOT NULL)`, f.registered));
  outer.push(...triState(connected, f.accountConnected));
  outer.push(...triState(setUp, f.setupComplete));
  // An invitee without an account is listed as "Unregistered", so that is what a search sees; their
  // referral code only for administrators with billingDetails.
  const key = options.searchReferral === false || f.searchReferral === false ? keyWithoutReferral(sql`${account.searchKey}`) : sql`${account.searchKey}`;
  outer.push(...searchCondition(f.search, { phone: sql`${latest.phone}`, searchKey: sql`coalesce(${key}, 'unregistered')` }));
  const query = db
    .select({
      phone: latest.phone,
      invitedAt: latest.invitedAt,
      userId: account.id,
      name: sql<string>`coalesce(${account.name}, 'Unregistered')`.as("name"),
      unregistered: sql<boolean>`(${account.id} IS NULL)`.mapWith(Boolean).as("unregistered"),
      accountConnected: sql<boolean>`${connected}`.mapWith(Boolean).as("account_connected"),
      setupComplete: sql<boolean>`${setUp}`.mapWith(Boolean).as("setup_complete"),
      smsOptOut: sql<number>`coalesce(${account.smsOptOut}, 0)`.as("sms_opt_out"),
      whatsappOptOut: sql<number>`coalesce(${account.whatsappOptOut}, 0)`.as("whatsapp_opt_out"),
    })
    .from(latest)
    .leftJoin(account, eq(account.id, accountOf(sql`${latest.phone}`)))
    .where(and(...outer))
    .$dynamic();
  return { query, latest };
}

export async function invitationPage(db: Db, f: InvitationAudience, options: Pick<BuildOptions, "searchReferral"> = {}): Promise<Page<InvitationRow>> {
  const all = invitationSelect(db, f, options).query.as("audience");
  const page = invitationSelect(db, f, options);
  const [counted, rows] = await db.batch([
    db.select({ n: count() }).from(all),
    page.query.orderBy(desc(page.latest.invitedAt), asc(page.latest.phone)).limit(f.pageSize).offset(pageOffset(f.page, f.pageSize)),
  ]);
  return {
    total: counted[0]?.n ?? 0,
    page: f.page,
    pageSize: f.pageSize,
    rows: rows.map((r) => ({
      phone: r.phone,
      name: r.name,
      unregistered: r.unregistered,
      invitedAt: r.invitedAt ?? 0,
      accountConnected: r.accountConnected,
      setupComplete: r.setupComplete,
      userId: r.userId,
    })),
  };
}

/**
 * The referral codes are billing data (only admins with billingDetails may list them), so only
 * they may filter an audience by them: a code guessed or passed on is refused the same way.
 */
export function assertMayFilterByReferral(user: { roleProperties: { billingDetails?: boolean } | null }, referral: readonly string[] | undefined): void {
  if ((referral?.length ?? 0) > 0 && !user.roleProperties?.billingDetails) {
    throw new ApiError("forbidden", "Requires the billingDetails permission", { details: { reason: "billing_details", permission: "billingDetails" } });
  }
}
