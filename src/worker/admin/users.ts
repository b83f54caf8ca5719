import { and, asc, count, desc, eq, gt, type SQL, sql } from "drizzle-orm";
import type { UserFilters, UserListQuery, UserListRow } from "../../shared/admin-users";
import { dayEnd, dayStart } from "../../shared/audience";
import { type Page, pageOffset } from "../../shared/paging";
import { parseReviewSearch } from "../../shared/search";
import type { SessionUser } from "../context";
import { recordAudit } from "../cross-cutting/audit";
import { type CsvValue, csvStream } from "../cross-cutting/csv";
import { type Db, jsonList, phoneEndsWith } from "../db/client";
import { resellers, users, userTallies } from "../db/schema";
import { foldSearchText, searchKeyWithoutReferral } from "../messaging/audience-search";
import { assertMayListByReferral, hasBillingDetails, visibleRow, type WithoutBilling } from "./billing-fields";

/**
 * The users page (docs/admin.md): filters, search, sort and paging in D1, one page and the count
 * per request. The filters mean what the review's do (docs/product.md): dates are the admin's
 * calendar days, both ends included; good standing needs paid-up time left.
 */

const tri = (condition: SQL, value: "all" | "yes" | "no"): SQL[] => (value === "all" ? [] : [value === "yes" ? condition : sql`NOT (${condition})`]);
const regionOf = (app: "flex" | "spark") => (app === "flex" ? users.humanRegion : users.deliveryArea);
// An approved member of the reseller programme (docs/payments.md), not an applicant.
const isReseller = sql`EXISTS (SELECT 1 FROM ${resellers} WHERE ${resellers.userId} = ${users.id} AND ${resellers.status} = 'approved')`;
const goodStanding = (now: number) => sql`(${users.goodStanding} = 1 AND (${users.expirationAt} IS NULL OR ${users.expirationAt} > ${now}))`;

/**
 * The review's search: a phone number, the end of one, or a match ignoring case and accents on name,
 * region or referral (users.search_key); the referral only for administrators with billingDetails.
 */
function searchCondition(search: string | undefined, billing: boolean): SQL[] {
  const parsed = parseReviewSearch(search);
  if (parsed.kind === "none") return [];
  if (parsed.kind === "phone") return [eq(users.phone, parsed.phone)];
  // Control characters are the key's field separators: a term must not reach across fields.
  const term = foldSearchText((search ?? "").trim().replace(/\p{Cc}/gu, ""));
  if (!term) return [];
  const text = sql`instr(${billing ? sql`${users.searchKey}` : searchKeyWithoutReferral}, ${term}) > 0`;
  // 4 to 9 digits: the end of a number, or a name or code holding them.
  return parsed.phoneEnd ? [sql`(${phoneEndsWith(users.phone, parsed.phoneEnd)} OR ${text})`] : [text];
}

/** `billing`: the caller's role has billingDetails (the referral filter itself is refused before, assertMayListByReferral). */
export function userWhere(f: UserFilters, now: number, billing: boolean): SQL {
  const conditions: SQL[] = [eq(users.app, f.app)];
  if (f.role === "drivers") conditions.push(eq(users.isAdmin, false));
  else if (f.role === "admins") conditions.push(eq(users.isAdmin, true));
  else if (f.role === "owner") conditions.push(eq(users.isAdmin, true), eq(users.roleName, "owner"));
  if (f.createdFrom) conditions.push(sql`${users.createdAt} >= ${dayStart(f.createdFrom, f.timeZone)}`);
  if (f.createdTo) conditions.push(sql`${users.createdAt} <= ${dayEnd(f.createdTo, f.timeZone)}`);
  if (f.expiresFrom) conditions.push(sql`${users.expirationAt} >= ${dayStart(f.expiresFrom, f.timeZone)}`);
  if (f.expiresTo) conditions.push(sql`${users.expirationAt} <= ${dayEnd(f.expiresTo, f.timeZone)}`);
  // Lists travel as one JSON parameter: D1 allows 100 per statement.
  if (f.region.length > 0) conditions.push(sql`${regionOf(f.app)} IN ${jsonList(f.region)}`);
  if (f.referral.length > 0) conditions.push(sql`${users.referralCode} IN ${jsonList(f.referral)}`);
  conditions.push(...tri(goodStanding(now), f.goodStanding));
  conditions.push(...tri(sql`${users.accountConnected} = 1`, f.accountConnected));
  conditions.push(...tri(sql`${users.setupComplete} = 1`, f.setupComplete));
  if (f.system !== "all") conditions.push(eq(users.status, f.system === "on" ? "start" : "stop"));
  conditions.push(...tri(isReseller, f.reseller));
  conditions.push(...searchCondition(f.search, billing));
  return and(...conditions)!;
}

function userOrder(f: UserFilters): SQL[] {
  const dir = f.dir === "asc" ? sql.raw("ASC") : sql.raw("DESC");
  const column = {
    name: sql`${users.name} COLLATE NOCASE`,
    phone: sql`${users.phone}`,
    createdAt: sql`${users.createdAt}`,
    expirationAt: sql`${users.expirationAt}`,
    region: sql`${regionOf(f.app)}`,
    referral: sql`${users.referralCode}`,
    status: sql`${users.status}`,
  }[f.sort];
  // No value (no expiration, no region) sorts last both ways: never what someone sorting is after.
  return [sql`${column} ${dir} NULLS LAST`, f.dir === "asc" ? asc(users.id) : desc(users.id)];
}

const rowColumns = (now: number) => ({
  id: users.id,
  app: users.app,
  name: users.name,
  phone: users.phone,
  email: users.email,
  humanRegion: users.humanRegion,
  deliveryArea: users.deliveryArea,
  referral: users.referralCode,
  phoneVerified: users.phoneVerified,
  goodStanding: sql<number>`${goodStanding(now)}`,
  accountConnected: users.accountConnected,
  setupComplete: users.setupComplete,
  status: users.status,
  expirationAt: users.expirationAt,
  createdAt: users.createdAt,
  lastSignInAt: users.lastSignInAt,
  isAdmin: users.isAdmin,
  roleName: users.roleName,
  reseller: sql<number>`${isReseller}`,
});

type Selected = {
  [K in keyof ReturnType<typeof rowColumns>]: ReturnType<typeof rowColumns>[K] extends { _: { data: infer D } } ? D : never;
};

function toRow(r: Selected): UserListRow {
  return {
    id: r.id,
    app: r.app,
    name: r.name,
    phone: r.phone,
    email: r.email,
    region: r.app === "flex" ? r.humanRegion : r.deliveryArea,
    referral: r.referral,
    phoneVerified: r.phoneVerified,
    goodStanding: r.goodStanding === 1,
    accountConnected: r.accountConnected,
    setupComplete: r.setupComplete,
    status: r.status,
    expirationAt: r.expirationAt,
    createdAt: r.createdAt,
    lastSignInAt: r.lastSignInAt,
    isAdmin: r.isAdmin,
    roleName: r.roleName,
    reseller: r.reseller === 1,
  };
}

/**
 * The total of a list filtered only by what the tallies keep (app, role, system, account
 * connected), from those few rows rather than a count over every account; null otherwise.
 */
function talliedTotal(db: Db, f: UserFilters) {
  const narrowed =
    f.role === "owner" ||
    Boolean(f.search?.trim()) ||
    f.region.length > 0 ||
    f.referral.length > 0 ||
    f.goodStanding !== "all" ||
    f.setupComplete !== "all" ||
    f.reseller !== "all" ||
    Boolean(f.createdFrom || f.createdTo || f.expiresFrom || f.expiresTo);
  if (narrowed) return null;
  const conditions: SQL[] = [eq(userTallies.app, f.app)];
  if (f.role !== "all") conditions.push(eq(userTallies.isAdmin, f.role === "admins"));
  if (f.system !== "all") conditions.push(eq(userTallies.status, f.system === "on" ? "start" : "stop"));
  if (f.accountConnected !== "all") conditions.push(eq(userTallies.accountConnected, f.accountConnected === "yes"));
  return db
    .select({ n: sql<number>`coalesce(sum(${userTallies.n}), 0)` })
    .from(userTallies)
    .where(and(...conditions));
}

/** One page of users and the total, in one round trip; without billing fields unless `billing`. */
export async function userPage(db: Db, q: UserListQuery, billing: boolean, now = Date.now()): Promise<Page<WithoutBilling<UserListRow>>> {
  const where = userWhere(q, now, billing);
  const [total, rows] = await db.batch([
    talliedTotal(db, q) ?? db.select({ n: count() }).from(users).where(where),
    db
      .select(rowColumns(now))
      .from(users)
      .where(where)
      .orderBy(...userOrder(q))
      .limit(q.pageSize)
      .offset(pageOffset(q.page, q.pageSize)),
  ]);
  return { total: total[0]?.n ?? 0, page: q.page, pageSize: q.pageSize, rows: (rows as Selected[]).map((r) => visibleRow(toRow(r), billing)) };
}

const USER_CSV_COLUMNS = [
  "id",
  "app",
  "name",
  "phone",
  "email",
  "region",
  "referral",
  "phone_verified",
  "good_standing",
  "account_connected",
  "setup_complete",
  "system",
  "expiration",
  "created",
  "last_sign_in",
  "role",
  "reseller",
] as const;

/** The export's columns: the referral column only for administrators with billingDetails. */
function userCsvHeader(billing: boolean): readonly string[] {
  return billing ? USER_CSV_COLUMNS : USER_CSV_COLUMNS.filter((c) => c !== "referral");
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function csvRow(r: UserListRow, billing: boolean): CsvValue[] {
  const row: CsvValue[] = [
    r.id,
    r.app,
    r.name,
    r.phone,
    r.email,
    r.region,
    r.referral,
    r.phoneVerified,
    r.goodStanding,
    r.accountConnected,
    r.setupComplete,
    r.status === "start" ? "on" : "off",
    iso(r.expirationAt),
    iso(r.createdAt),
    iso(r.lastSignInAt),
    r.isAdmin ? (r.roleName ?? "admin") : "driver",
    r.reseller,
  ];
  return billing ? row : row.filter((_, i) => USER_CSV_COLUMNS[i] !== "referral");
}

export const CSV_CHUNK = 1000;

/**
 * The filtered set for the CSV, in account order, 1,000 rows a call (keyset on id: each chunk is
 * as cheap as the first, however deep the export goes). Answers null when there is no more.
 */
function userCsvChunks(db: Db, f: UserFilters, billing: boolean, now = Date.now()): () => Promise<CsvValue[][] | null> {
  let after = 0;
  const where = userWhere(f, now, billing);
  return async () => {
    const rows = (await db
      .select(rowColumns(now))
      .from(users)
      .where(and(where, gt(users.id, after)))
      .orderBy(asc(users.id))
      .limit(CSV_CHUNK)) as Selected[];
    if (rows.length === 0) return null;
    after = rows[rows.length - 1]!.id;
    return rows.map((r) => csvRow(toRow(r), billing));
  };
}

/** The filtered set as CSV for an administrator, streamed (referral codes only with billingDetails); exporting people's details is itself audited. */
export async function exportUsers(db: Db, admin: SessionUser, filters: UserFilters): Promise<ReadableStream<Uint8Array>> {
  assertMayListByReferral(admin, filters);
  const billing = hasBillingDetails(admin);
  await recordAudit(db, { actorId: admin.id, action: "admin.users_exported", details: { filters } });
  return csvStream(userCsvHeader(billing), userCsvChunks(db, filters, billing));
}

/** The users page for an administrator: referral codes, and searching or sorting by them, only with billingDetails. */
export function usersPage(db: Db, admin: SessionUser, query: UserListQuery) {
  assertMayListByReferral(admin, query);
  return userPage(db, query, hasBillingDetails(admin));
}
