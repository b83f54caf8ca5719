import { and, asc, count, desc, eq, gt, gte, inArray, lte, max, notExists, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { type DriverAudience, type DriverRow, dayEnd, dayStart, type InvitationAudience, type InvitationRow } from "../../shared/audience";
import type { App } from "../../shared/auth";
import type { ExclusionReason } from "../../shared/campaigns";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { parseReviewSearch } from "../../shared/search";
import { isInGoodStanding } from "../auth/user-item";
import { areaCodesOfRegions, KNOWN_AREA_CODES } from "../compliance/area-codes";
import { REGION_RULES, WHATSAPP_MARKETING_CAP } from "../compliance/state-rules";
import { type Db, jsonList, phoneEndsWith } from "../db/client";
import { campaignMessages, campaigns, consentEvents, invitations, optOuts, users } from "../db/schema";
import { ApiError } from "../errors";

/**
 * Audiences are queries evaluated in D1 (docs/architecture.md, messaging) with the product's filter
 * semantics. Each builder yields one SELECT of recipients, used three ways: a page of the review
 * table, its count, and the campaign's INSERT … SELECT at expansion. The review, the number N the
 * admin confirms and the rows materialised therefore cannot disagree about who is in.
 *
 * This is the one module where queries are written with drizzle's `sql` rather than only its
 * builder: the recipients are one set-based INSERT … SELECT over subqueries the builder cannot
 * compose. Every table and column still comes from db/schema.ts, so a renamed column fails to
 * compile here too; bench:audience measures these queries (bench/README.md).
 */

/** Filters as a campaign stores them: the review's filters and search, without paging. */
export type DriverFilters = Omit<DriverAudience, "page" | "pageSize"> & {
  /**
   * False when whoever chose the audience may not search referral codes (no billingDetails): set by
   * the server, stored with a campaign's filters so its expansion searches as its review did.
   */
  searchReferral?: boolean;
};
export type InvitationFilters = Omit<InvitationAudience, "page" | "pageSize">;
export type Channel = "sms" | "whatsapp";
export type UserRow = typeof users.$inferSelect;

type BuildOptions = {
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

/**
 * The fold users.search_key is stored in (migrations/0013_search_fold.sql): case and the
 * accents of the product's languages are dropped, so `garcia` finds `García` and `nandu` finds
 * `Ñandú`. SQLite's lower() folds ASCII only and it has no accent folding, so the triggers spell
 * out this table; any other character is kept as it is. The term is folded the same way, so both
 * sides agree (a test compares them).
 */
export const SEARCH_FOLDS: Readonly<Record<string, string>> = {
  a: "ÁÀÂÃÄáàâãä",
  e: "ÉÈÊËéèêë",
  i: "ÍÌÎÏíìîï",
  o: "ÓÒÔÕÖóòôõö",
  u: "ÚÙÛÜúùûü",
  n: "Ññ",
  c: "Çç",
};
const FOLDED = new Map(Object.entries(SEARCH_FOLDS).flatMap(([base, accented]) => [...accented].map((ch) => [ch, base] as const)));
export function foldSearchText(text: string): string {
  let out = "";
  for (const ch of text) out += FOLDED.get(ch) ?? (ch >= "A" && ch <= "Z" ? ch.toLowerCase() : ch);
  return out;
}

/**
 * The review search (docs/product.md): a phone number (normalised by the shared rule), the end of
 * one, or a match ignoring case and accents on name, region or referral, read from search_key (one indexed column
 * instead of three folded on every row). Control characters are dropped so a term cannot reach
 * across fields.
 */
function searchCondition(search: string | undefined, columns: { phone: SQL; searchKey: SQL }): SQL[] {
  const parsed = parseReviewSearch(search);
  if (parsed.kind === "none") return [];
  if (parsed.kind === "phone") return [sql`${columns.phone} = ${parsed.phone}`];
  const term = foldSearchText((search ?? "").trim().replace(/\p{Cc}/gu, ""));
  if (!term) return [];
  const text = sql`instr(${columns.searchKey}, ${term}) > 0`;
  // 4 to 9 digits: the end of a number (phones are stored E.164), or a name or code holding them.
  return parsed.phoneEnd ? [sql`(${phoneEndsWith(columns.phone, parsed.phoneEnd)} OR ${text})`] : [text];
}

/**
 * users.search_key without its last field: the key is name, region and referral code separated by
 * char(31), so a search by someone without billingDetails reads the text before the second
 * separator and a referral code finds nobody (src/worker/admin/billing-fields.ts).
 */
export const searchKeyWithoutReferral: SQL = (() => {
  const key = sql`${users.searchKey}`;
  const first = sql`instr(${key}, char(31))`;
  return sql`substr(${key}, 1, ${first} + instr(substr(${key}, ${first} + 1), char(31)) - 1)`;
})();

// ---------------------------------------------------------------------------------------------
// Drivers (panel 1)

/**
 * Good standing as the user call reports it (isInGoodStanding in src/worker/auth/user-item.ts):
 * the stored flag, set by payments, is not trusted past the expiration instant.
 */
const goodStanding = (now: number) => sql`(${users.goodStanding} = 1 AND (${users.expirationAt} IS NULL OR ${users.expirationAt} > ${now}))`;

const regionColumn = (app: App) => (app === "flex" ? users.humanRegion : users.deliveryArea);

function driverWhere(f: DriverFilters, options: BuildOptions): SQL {
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
const account = alias(users, "account");
const oldest = alias(users, "oldest");
const accountOf = (phone: SQL) => sql`(SELECT ${oldest.id} FROM ${users} ${oldest} WHERE ${oldest.phone} = ${phone} ORDER BY ${oldest.id} LIMIT 1)`;

/**
 * One row per invited phone. A phone that earned its inviter a free week has paid, so every
 * invitation of that phone is out (not only the row carrying the flag); invitedAt is the latest
 * invitation in the date range. Without an account the invitee is "Unregistered".
 */
function invitationSelect(db: Db, f: InvitationFilters, options: BuildOptions) {
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
  // An invitee without an account is listed as "Unregistered", so that is what a search sees.
  outer.push(...searchCondition(f.search, { phone: sql`${latest.phone}`, searchKey: sql`coalesce(${account.searchKey}, 'unregistered')` }));
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

export async function invitationPage(db: Db, f: InvitationAudience): Promise<Page<InvitationRow>> {
  const all = invitationSelect(db, f, {}).query.as("audience");
  const page = invitationSelect(db, f, {});
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

// ---------------------------------------------------------------------------------------------
// Recipients: what a campaign expands to

/** Where a campaign's recipients come from; stored as the campaign's `audience` JSON. */
export type RecipientSource =
  | { source: "drivers"; filters: DriverFilters }
  | { source: "invitations"; filters: InvitationFilters }
  | { source: "list"; phones: string[]; app: App }
  | { source: "retry"; campaignId: number; retryId?: number };

/** What decides who a campaign may reach (docs/messaging-rules.md), beyond the audience itself. */
export type SendRules = {
  category: "marketing" | "transactional";
  channel: Channel;
  /** The instant the frequency cap counts back from. */
  now: number;
  /** The campaign itself, whose own messages do not count toward its recipients' caps. */
  campaignId?: number;
};

/** Marketing messages sent to a number in the cap's window (on one channel, or on all). */
function recentMarketing(phone: SQL, rules: SendRules, windowMs: number, channel?: Channel): SQL {
  const cm = campaignMessages;
  const cc = campaigns;
  return sql`(SELECT count(*) FROM ${cm} JOIN ${cc} ON ${cc.id} = ${cm.campaignId}
    WHERE ${cm.phone} = ${phone} AND ${cc.category} = 'marketing' AND ${cm.status} IN ('sending', 'sent', 'delivered') AND ${cm.updatedAt} > ${rules.now - windowMs}
      AND ${cc.id} <> ${rules.campaignId ?? 0}${channel ? sql` AND ${cc.channel} = ${channel}` : sql``})`;
}

/**
 * The states with a per-number cap (Florida, Oklahoma, Maryland: three a day) match by area code;
 * a number whose area code we do not know is held to the strictest cap too.
 */
function cappedCondition(phone: SQL, rules: SendRules): SQL {
  const stateCaps = Object.entries(REGION_RULES).filter(([, rule]) => rule.cap);
  const parts: SQL[] = [];
  for (const [region, rule] of stateCaps) {
    parts.push(
      sql`(substr(${phone}, 3, 3) IN ${jsonList(areaCodesOfRegions([region]))} AND ${recentMarketing(phone, rules, rule.cap!.windowMs)} >= ${rule.cap!.max})`,
    );
  }
  parts.push(sql`(substr(${phone}, 3, 3) NOT IN ${jsonList(KNOWN_AREA_CODES)} AND ${recentMarketing(phone, rules, 86_400_000)} >= 3)`);
  if (rules.channel === "whatsapp") {
    parts.push(sql`(${recentMarketing(phone, rules, WHATSAPP_MARKETING_CAP.windowMs, "whatsapp")} >= ${WHATSAPP_MARKETING_CAP.max})`);
  }
  return sql`(${sql.join(parts, sql` OR `)})`;
}

/**
 * Why a number is left out, or NULL: opted out (any campaign), and for marketing no consent basis
 * that allows it, WhatsApp marketing to a +1 number (Meta does not deliver it), or the frequency cap.
 */
export function exclusionCase(phone: SQL, optedOut: SQL, rules: SendRules): SQL {
  if (rules.category !== "marketing") return sql`CASE WHEN ${optedOut} THEN 'opted_out' END`;
  const e = consentEvents;
  return sql`CASE WHEN ${optedOut} THEN 'opted_out'
    WHEN NOT EXISTS (SELECT 1 FROM ${e} WHERE ${e.phone} = ${phone} AND ${e.kind} = 'consent' AND ${e.basis} = 'express') THEN 'no_consent'
    ${rules.channel === "whatsapp" ? sql`WHEN ${phone} LIKE '+1%' THEN 'whatsapp_marketing_us'` : sql``}
    WHEN ${cappedCondition(phone, rules)} THEN 'frequency_cap' END`;
}

/**
 * The recipients as (user_id, phone, name, opted_out, exclusion, skipped): only numbers (an erased
 * account's row keeps a tombstone instead, src/worker/account/erase.ts); opted_out reads the
 * user's own flag for the channel and the opt_outs table (which also covers numbers without an
 * account); exclusion says why the row will not be sent (NULL when it will). `excluded` is a
 * subquery of phones left out.
 */
export function recipientsSelect(db: Db, from: RecipientSource, channel: Channel, excluded: SQL, asOf: number, rules?: SendRules): SQL {
  const flagOf = (table: { smsOptOut: SQLWrapper; whatsappOptOut: SQLWrapper }) => (channel === "sms" ? table.smsOptOut : table.whatsappOptOut);
  let inner: SQL;
  switch (from.source) {
    case "drivers":
      inner = sql`SELECT ${users.id} AS user_id, ${users.phone} AS phone, ${users.name} AS name, ${flagOf(users)} AS opted_out
        FROM ${users} WHERE ${driverWhere(from.filters, { asOf, now: asOf })}`;
      break;
    case "invitations": {
      const invited = invitationSelect(db, from.filters, { asOf }).query.as("invited");
      const flag = channel === "sms" ? invited.smsOptOut : invited.whatsappOptOut;
      inner = sql`SELECT ${invited.userId} AS user_id, ${invited.phone} AS phone, ${invited.name} AS name, ${flag} AS opted_out FROM ${invited}`;
      break;
    }
    case "list": {
      // A typed number may belong to an account (its name shows in the ledger) or to nobody.
      const preferred = sql`(SELECT ${oldest.id} FROM ${users} ${oldest} WHERE ${oldest.phone} = p.value ORDER BY ${oldest.app} = ${from.app} DESC, ${oldest.id} LIMIT 1)`;
      inner = sql`SELECT ${account.id} AS user_id, p.value AS phone, ${account.name} AS name, coalesce(${flagOf(account)}, 0) AS opted_out
        FROM json_each(${JSON.stringify(from.phones)}) p LEFT JOIN ${users} ${account} ON ${account.id} = ${preferred}`;
      break;
    }
    case "retry": {
      // The failed rows this retry claimed (campaigns.ts retryFailed), or before it exists, those open to claim.
      const m = campaignMessages;
      inner = sql`SELECT ${m.userId} AS user_id, ${m.phone} AS phone, ${m.name} AS name, coalesce(${flagOf(account)}, 0) AS opted_out
        FROM ${m} LEFT JOIN ${users} ${account} ON ${account.id} = ${m.userId}
        WHERE ${m.campaignId} = ${from.campaignId} AND ${m.status} = 'failed'
          AND ${from.retryId === undefined ? sql`${m.retriedBy} IS NULL` : sql`${m.retriedBy} = ${from.retryId}`}`;
      break;
    }
  }
  const optedOut = sql`(r.opted_out = 1 OR EXISTS (SELECT 1 FROM ${optOuts} WHERE ${optOuts.phone} = r.phone AND ${optOuts.channel} = ${channel}))`;
  const exclusion = exclusionCase(sql`r.phone`, optedOut, rules ?? { category: "transactional", channel, now: asOf });
  return sql`SELECT s.*, s.exclusion IS NOT NULL AS skipped FROM (SELECT r.user_id AS user_id, r.phone AS phone, r.name AS name, ${optedOut} AS opted_out,
      ${exclusion} AS exclusion
    FROM (${inner}) r WHERE r.phone NOT IN (${excluded}) AND r.phone LIKE '+%') s`;
}

/** Why each of these numbers would be left out (the review marks a page of rows with it). */
export async function exclusionsOf(db: Db, phones: string[], rules: SendRules): Promise<Map<string, ExclusionReason>> {
  if (phones.length === 0) return new Map();
  const flag = rules.channel === "sms" ? users.smsOptOut : users.whatsappOptOut;
  const optedOut = sql`(EXISTS (SELECT 1 FROM ${optOuts} WHERE ${optOuts.phone} = p.value AND ${optOuts.channel} = ${rules.channel})
    OR EXISTS (SELECT 1 FROM ${users} WHERE ${users.phone} = p.value AND ${flag} = 1))`;
  const rows = await db.all<{ phone: string; exclusion: ExclusionReason | null }>(
    sql`SELECT p.value AS phone, ${exclusionCase(sql`p.value`, optedOut, rules)} AS exclusion FROM json_each(${JSON.stringify(phones)}) p`,
  );
  return new Map(rows.filter((r) => r.exclusion).map((r) => [r.phone, r.exclusion!]));
}

const excludedSubquery = (phones: string[]) => sql`SELECT value FROM json_each(${JSON.stringify(phones)})`;

/** Recipients by area code and exclusion: what the review's summary and deferral are computed from. */
export async function recipientGroups(db: Db, from: RecipientSource, excludedPhones: string[], asOf: number, rules: SendRules) {
  return db.all<{ area: string; exclusion: ExclusionReason | null; n: number }>(
    sql`SELECT substr(phone, 3, 3) AS area, exclusion, count(*) AS n FROM (${recipientsSelect(db, from, rules.channel, excludedSubquery(excludedPhones), asOf, rules)}) GROUP BY 1, 2`,
  );
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
