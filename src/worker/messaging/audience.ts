import { type DriverAudience, type DriverRow, dayEnd, dayStart, type InvitationAudience, type InvitationRow } from "../../shared/audience";
import type { ExclusionReason } from "../../shared/campaigns";
import type { Page } from "../../shared/paging";
import { pageOffset } from "../../shared/paging";
import { parseReviewSearch } from "../../shared/search";
import { areaCodesOfRegions, KNOWN_AREA_CODES } from "../compliance/area-codes";
import { REGION_RULES, WHATSAPP_MARKETING_CAP } from "../compliance/state-rules";
import { ApiError } from "../errors";
import { and, join, prepare, raw, type Sql, sql } from "./sql-fragment";

/**
 * Audiences are queries evaluated in D1 (DESIGN §6.1) with the spec's filter semantics. Each
 * builder yields one SELECT of recipients, used three ways: a page of the review table, its
 * count, and the campaign's INSERT … SELECT at expansion. The review, the number N the admin
 * confirms and the rows materialised therefore cannot disagree about who is in.
 */

/** Filters as a campaign stores them: the review's filters and search, without paging. */
export type DriverFilters = Omit<DriverAudience, "page" | "pageSize">;
export type InvitationFilters = Omit<InvitationAudience, "page" | "pageSize">;
export type Channel = "sms" | "whatsapp";

type BuildOptions = {
  /** The instant "good standing" is judged at (the stored flag counts only while paid-up time is left). */
  now?: number;
  /** Only rows that existed at this moment (a campaign's creation), so a late sign-up never joins a campaign already confirmed. */
  asOf?: number;
  /** The old product's all-users tables list administrators too; the messaging audience does not. */
  includeAdmins?: boolean;
};

const triState = (column: Sql, value: "all" | "yes" | "no"): Sql[] => (value === "all" ? [] : [sql`${column} = ${value === "yes" ? 1 : 0}`]);

/**
 * The fold users.search_key is stored in (migrations/0002_audience_search.sql): SQLite's lower()
 * folds ASCII only, so the accented capitals of the product's languages are folded explicitly;
 * any other character is kept as it is. The term is folded the same way, so both sides agree.
 */
export const ACCENTED_CAPITALS = "ÁÉÍÓÚÜÑÀÈÌÒÙÂÊÎÔÛÇÃÕÄÖ";
export function foldSearchText(text: string): string {
  let out = "";
  for (const ch of text) out += (ch >= "A" && ch <= "Z") || ACCENTED_CAPITALS.includes(ch) ? ch.toLowerCase() : ch;
  return out;
}

/**
 * Spec §5 search: a phone number (normalised by the shared rule) or a case-insensitive match on
 * name, region or referral, read from search_key (one indexed column instead of three folded on
 * every row). Control characters are dropped so a term cannot reach across fields.
 */
function searchCondition(search: string | undefined, columns: { phone: Sql; searchKey: Sql }): Sql[] {
  const parsed = parseReviewSearch(search);
  if (parsed.kind === "none") return [];
  if (parsed.kind === "phone") return [sql`${columns.phone} = ${parsed.phone}`];
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what is removed
  const term = foldSearchText((search ?? "").trim().replace(/[\u0000-\u001f]/g, ""));
  return term ? [sql`instr(${columns.searchKey}, ${term}) > 0`] : [];
}

// ---------------------------------------------------------------------------------------------
// Drivers (panel 1)

/**
 * Good standing as the user call reports it (src/worker/auth/user-item.ts): the stored flag, set by
 * payments, is not trusted past the expiration instant, which nothing may have cleared yet.
 */
const goodStanding = (now: number) => sql`(u.good_standing = 1 AND (u.expiration_at IS NULL OR u.expiration_at > ${now}))`;

const regionColumn = (app: "flex" | "spark") => raw(app === "flex" ? "u.human_region" : "u.delivery_area");

function driverWhere(f: DriverFilters, options: BuildOptions): Sql {
  const tz = f.timeZone ?? f.tzOffsetMinutes;
  const conditions: Sql[] = [sql`u.app = ${f.app}`];
  if (!options.includeAdmins) conditions.push(raw("u.is_admin = 0"));
  if (f.startDate) conditions.push(sql`u.created_at >= ${dayStart(f.startDate, tz)}`);
  if (f.endDate) conditions.push(sql`u.created_at <= ${dayEnd(f.endDate, tz)}`);
  if (f.startExpirationDate) conditions.push(sql`u.expiration_at >= ${dayStart(f.startExpirationDate, tz)}`);
  if (f.endExpirationDate) conditions.push(sql`u.expiration_at <= ${dayEnd(f.endExpirationDate, tz)}`);
  if (f.referral.length > 0) conditions.push(sql`u.referral_code IN (SELECT value FROM json_each(${JSON.stringify(f.referral)}))`);
  // The region list is shown for Flex (human_region); for Spark the same filter reads the delivery area.
  if (f.region.length > 0) conditions.push(sql`${regionColumn(f.app)} IN (SELECT value FROM json_each(${JSON.stringify(f.region)}))`);
  conditions.push(...triState(goodStanding(options.now ?? Date.now()), f.goodStanding));
  conditions.push(...triState(raw("u.account_connected"), f.accountConnected));
  conditions.push(...triState(raw("u.setup_complete"), f.setupComplete));
  conditions.push(...searchCondition(f.search, { phone: raw("u.phone"), searchKey: raw("u.search_key") }));
  if (options.asOf !== undefined) conditions.push(sql`u.created_at <= ${options.asOf}`);
  return and(conditions);
}

const driverColumns = (now: number) =>
  sql`u.id, u.name, u.phone, u.email, u.referral_code, u.human_region, u.delivery_area, ${goodStanding(now)} AS good_standing, u.account_connected,
    u.setup_complete, u.expiration_at, u.created_at, u.status, u.stripe_express_id, u.is_admin, u.role_name, u.role_properties, u.sms_opt_out, u.whatsapp_opt_out`;

function driverOrder(f: DriverFilters): Sql {
  const dir = f.dir === "asc" ? "ASC" : "DESC";
  const column = {
    name: "u.name COLLATE NOCASE",
    phone: "u.phone",
    createdAt: "u.created_at",
    // "None" (no expiration) sorts last both ways: it is never what someone sorting by date is after.
    expirationAt: "u.expiration_at",
    // Regions and referral codes come from fixed lists with consistent case: byte order keeps the (app, is_admin, column) indexes usable.
    region: regionColumn(f.app).text,
    referral: "u.referral_code",
    status: "u.status",
  }[f.sort];
  return raw(`${column} ${dir} NULLS LAST, u.id ${dir}`);
}

export type DriverRecord = {
  id: number;
  name: string;
  phone: string;
  email: string | null;
  referral_code: string | null;
  human_region: string | null;
  delivery_area: string | null;
  good_standing: number;
  account_connected: number;
  setup_complete: number;
  expiration_at: number | null;
  created_at: number;
  status: "start" | "stop";
  stripe_express_id: string | null;
  is_admin: number;
  role_name: string | null;
  role_properties: string | null;
  sms_opt_out: number;
  whatsapp_opt_out: number;
};

export function toDriverRow(r: DriverRecord): DriverRow {
  return {
    id: r.id,
    name: r.name,
    phone: r.phone,
    referral: r.referral_code,
    region: r.human_region,
    deliveryArea: r.delivery_area,
    goodStanding: r.good_standing === 1,
    accountConnected: r.account_connected === 1,
    setupComplete: r.setup_complete === 1,
    expirationAt: r.expiration_at,
    status: r.status,
    stripeExpressId: r.stripe_express_id,
  };
}

/** One page of drivers and the total, in one round trip. */
export async function driverPage(db: D1Database, f: DriverAudience, options: BuildOptions = {}): Promise<Page<DriverRecord>> {
  const now = options.now ?? Date.now();
  const where = driverWhere(f, { ...options, now });
  const [count, rows] = await db.batch([
    prepare(db, sql`SELECT count(*) AS n FROM users u WHERE ${where}`),
    prepare(
      db,
      sql`SELECT ${driverColumns(now)} FROM users u WHERE ${where} ORDER BY ${driverOrder(f)} LIMIT ${f.pageSize} OFFSET ${pageOffset(f.page, f.pageSize)}`,
    ),
  ]);
  return { total: (count!.results[0] as { n: number }).n, page: f.page, pageSize: f.pageSize, rows: rows!.results as DriverRecord[] };
}

// ---------------------------------------------------------------------------------------------
// Unpaid invitations (panel 2)

/**
 * One row per invited phone. A phone that earned its inviter a free week has paid, so every
 * invitation of that phone is out (not only the row carrying the flag); invited_at is the latest
 * invitation in the date range. The account is matched by phone (the oldest, when a number is
 * registered in both apps); without one the invitee is "Unregistered".
 */
function invitationSelect(f: InvitationFilters, options: BuildOptions): Sql {
  const tz = f.timeZone ?? f.tzOffsetMinutes;
  const inRange: Sql[] = [raw("i.free_week = 0")];
  if (f.startDate) inRange.push(sql`i.invited_at >= ${dayStart(f.startDate, tz)}`);
  if (f.endDate) inRange.push(sql`i.invited_at <= ${dayEnd(f.endDate, tz)}`);
  if (options.asOf !== undefined) inRange.push(sql`i.invited_at <= ${options.asOf}`);
  const outer: Sql[] = [raw("NOT EXISTS (SELECT 1 FROM invitations f WHERE f.phone = g.phone AND f.free_week = 1)")];
  outer.push(...triState(raw("(u.id IS NOT NULL)"), f.registered));
  outer.push(...triState(raw("coalesce(u.account_connected, 0)"), f.accountConnected));
  outer.push(...triState(raw("coalesce(u.setup_complete, 0)"), f.setupComplete));
  // An invitee without an account is listed as "Unregistered", so that is what a search sees.
  outer.push(...searchCondition(f.search, { phone: raw("g.phone"), searchKey: raw("coalesce(u.search_key, 'unregistered')") }));
  return sql`SELECT g.phone AS phone, g.invited_at AS invited_at, u.id AS user_id, coalesce(u.name, 'Unregistered') AS name,
      (u.id IS NULL) AS unregistered, coalesce(u.account_connected, 0) AS account_connected, coalesce(u.setup_complete, 0) AS setup_complete,
      coalesce(u.sms_opt_out, 0) AS sms_opt_out, coalesce(u.whatsapp_opt_out, 0) AS whatsapp_opt_out
    FROM (SELECT i.phone AS phone, max(i.invited_at) AS invited_at FROM invitations i WHERE ${and(inRange)} GROUP BY i.phone) g
    LEFT JOIN users u ON u.id = (SELECT x.id FROM users x WHERE x.phone = g.phone ORDER BY x.id LIMIT 1)
    WHERE ${and(outer)}`;
}

type InvitationRecord = {
  phone: string;
  invited_at: number;
  user_id: number | null;
  name: string;
  unregistered: number;
  account_connected: number;
  setup_complete: number;
};

export async function invitationPage(db: D1Database, f: InvitationAudience): Promise<Page<InvitationRow>> {
  const select = invitationSelect(f, {});
  const [count, rows] = await db.batch([
    prepare(db, sql`SELECT count(*) AS n FROM (${select})`),
    prepare(db, sql`${select} ORDER BY g.invited_at DESC, g.phone LIMIT ${f.pageSize} OFFSET ${pageOffset(f.page, f.pageSize)}`),
  ]);
  return {
    total: (count!.results[0] as { n: number }).n,
    page: f.page,
    pageSize: f.pageSize,
    rows: (rows!.results as InvitationRecord[]).map((r) => ({
      phone: r.phone,
      name: r.name,
      unregistered: r.unregistered === 1,
      invitedAt: r.invited_at,
      accountConnected: r.account_connected === 1,
      setupComplete: r.setup_complete === 1,
      userId: r.user_id,
    })),
  };
}

// ---------------------------------------------------------------------------------------------
// Recipients: what a campaign expands to

/** Where a campaign's recipients come from; stored as the campaign's `audience` JSON. */
export type RecipientSource =
  | { source: "drivers"; filters: DriverFilters }
  | { source: "invitations"; filters: InvitationFilters }
  | { source: "list"; phones: string[]; app: "flex" | "spark" }
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
function recentMarketing(phone: Sql, rules: SendRules, windowMs: number, channel?: Channel): Sql {
  return sql`(SELECT count(*) FROM campaign_messages cm JOIN campaigns cc ON cc.id = cm.campaign_id
    WHERE cm.phone = ${phone} AND cc.category = 'marketing' AND cm.status IN ('sending', 'sent', 'delivered') AND cm.updated_at > ${rules.now - windowMs}
      AND cc.id <> ${rules.campaignId ?? 0}${channel ? sql` AND cc.channel = ${channel}` : raw("")})`;
}

/**
 * The states with a per-number cap (Florida, Oklahoma, Maryland: three a day) match by area code;
 * a number whose area code we do not know is held to the strictest cap too.
 */
function cappedCondition(phone: Sql, rules: SendRules): Sql {
  const stateCaps = Object.entries(REGION_RULES).filter(([, rule]) => rule.cap);
  const parts: Sql[] = [];
  for (const [region, rule] of stateCaps) {
    const codes = JSON.stringify(areaCodesOfRegions([region]));
    parts.push(
      sql`(substr(${phone}, 3, 3) IN (SELECT value FROM json_each(${codes})) AND ${recentMarketing(phone, rules, rule.cap!.windowMs)} >= ${rule.cap!.max})`,
    );
  }
  parts.push(
    sql`(substr(${phone}, 3, 3) NOT IN (SELECT value FROM json_each(${JSON.stringify(KNOWN_AREA_CODES)})) AND ${recentMarketing(phone, rules, 86_400_000)} >= 3)`,
  );
  if (rules.channel === "whatsapp") {
    parts.push(sql`(${recentMarketing(phone, rules, WHATSAPP_MARKETING_CAP.windowMs, "whatsapp")} >= ${WHATSAPP_MARKETING_CAP.max})`);
  }
  return sql`(${join(parts, " OR ")})`;
}

/**
 * Why a number is left out, or NULL: opted out (any campaign), and for marketing no consent basis
 * that allows it, WhatsApp marketing to a +1 number (Meta does not deliver it), or the frequency cap.
 */
export function exclusionCase(phone: Sql, optedOut: Sql, rules: SendRules): Sql {
  if (rules.category !== "marketing") return sql`CASE WHEN ${optedOut} THEN 'opted_out' END`;
  return sql`CASE WHEN ${optedOut} THEN 'opted_out'
    WHEN NOT EXISTS (SELECT 1 FROM consent_events ce WHERE ce.phone = ${phone} AND ce.kind = 'consent' AND ce.basis = 'express') THEN 'no_consent'
    ${rules.channel === "whatsapp" ? sql`WHEN ${phone} LIKE '+1%' THEN 'whatsapp_marketing_us'` : raw("")}
    WHEN ${cappedCondition(phone, rules)} THEN 'frequency_cap' END`;
}

/**
 * The recipients as (user_id, phone, name, opted_out, exclusion): opted_out reads the user's own
 * flag for the channel and the opt_outs table (which also covers numbers without an account);
 * exclusion says why the row will not be sent (NULL when it will). Exclusions are a subquery of phones.
 */
export function recipientsSelect(from: RecipientSource, channel: Channel, excluded: Sql, asOf: number, rules?: SendRules): Sql {
  const optOutColumn = channel === "sms" ? "sms_opt_out" : "whatsapp_opt_out";
  let inner: Sql;
  switch (from.source) {
    case "drivers":
      inner = sql`SELECT u.id AS user_id, u.phone AS phone, u.name AS name, u.${raw(optOutColumn)} AS opted_out FROM users u WHERE ${driverWhere(from.filters, { asOf, now: asOf })}`;
      break;
    case "invitations":
      inner = sql`SELECT a.user_id AS user_id, a.phone AS phone, a.name AS name, a.${raw(optOutColumn)} AS opted_out FROM (${invitationSelect(from.filters, { asOf })}) a`;
      break;
    case "list":
      // A typed number may belong to an account (its name shows in the ledger) or to nobody.
      inner = sql`SELECT u.id AS user_id, p.value AS phone, u.name AS name, coalesce(u.${raw(optOutColumn)}, 0) AS opted_out
        FROM json_each(${JSON.stringify(from.phones)}) p
        LEFT JOIN users u ON u.id = (SELECT x.id FROM users x WHERE x.phone = p.value ORDER BY x.app = ${from.app} DESC, x.id LIMIT 1)`;
      break;
    case "retry":
      // The failed rows this retry claimed (campaigns.ts retryFailed), or before it exists, those open to claim.
      inner = sql`SELECT m.user_id AS user_id, m.phone AS phone, m.name AS name, coalesce(u.${raw(optOutColumn)}, 0) AS opted_out
        FROM campaign_messages m LEFT JOIN users u ON u.id = m.user_id
        WHERE m.campaign_id = ${from.campaignId} AND m.status = 'failed' AND ${
          from.retryId === undefined ? sql`m.retried_by IS NULL` : sql`m.retried_by = ${from.retryId}`
        }`;
      break;
  }
  const optedOut = sql`(r.opted_out = 1 OR EXISTS (SELECT 1 FROM opt_outs o WHERE o.phone = r.phone AND o.channel = ${channel}))`;
  const exclusion = exclusionCase(raw("r.phone"), optedOut, rules ?? { category: "transactional", channel, now: asOf });
  return sql`SELECT s.*, s.exclusion IS NOT NULL AS skipped FROM (SELECT r.user_id AS user_id, r.phone AS phone, r.name AS name, ${optedOut} AS opted_out,
      ${exclusion} AS exclusion
    FROM (${inner}) r WHERE r.phone NOT IN (${excluded})) s`;
}

/** Why each of these numbers would be left out (the review marks a page of rows with it). */
export async function exclusionsOf(db: D1Database, phones: string[], rules: SendRules): Promise<Map<string, ExclusionReason>> {
  if (phones.length === 0) return new Map();
  const optedOut = sql`(EXISTS (SELECT 1 FROM opt_outs o WHERE o.phone = p.value AND o.channel = ${rules.channel})
    OR EXISTS (SELECT 1 FROM users u WHERE u.phone = p.value AND u.${raw(rules.channel === "sms" ? "sms_opt_out" : "whatsapp_opt_out")} = 1))`;
  const rows = await prepare(
    db,
    sql`SELECT p.value AS phone, ${exclusionCase(raw("p.value"), optedOut, rules)} AS exclusion FROM json_each(${JSON.stringify(phones)}) p`,
  ).all<{ phone: string; exclusion: ExclusionReason | null }>();
  return new Map(rows.results.filter((r) => r.exclusion).map((r) => [r.phone, r.exclusion!]));
}

/** Recipients by area code and exclusion: what the review's summary and deferral are computed from. */
export async function recipientGroups(db: D1Database, from: RecipientSource, excludedPhones: string[], asOf: number, rules: SendRules) {
  const excluded = sql`SELECT value FROM json_each(${JSON.stringify(excludedPhones)})`;
  const rows = await prepare(
    db,
    sql`SELECT substr(phone, 3, 3) AS area, exclusion, count(*) AS n FROM (${recipientsSelect(from, rules.channel, excluded, asOf, rules)}) GROUP BY 1, 2`,
  ).all<{ area: string; exclusion: ExclusionReason | null; n: number }>();
  return rows.results;
}

/** How many the campaign will reach and how many of those are left out (skipped), before anything is written. */
export async function countRecipients(db: D1Database, from: RecipientSource, channel: Channel, excludedPhones: string[], asOf: number, rules?: SendRules) {
  const excluded = sql`SELECT value FROM json_each(${JSON.stringify(excludedPhones)})`;
  const row = await prepare(
    db,
    sql`SELECT count(*) AS total, coalesce(sum(skipped), 0) AS skipped FROM (${recipientsSelect(from, channel, excluded, asOf, rules)})`,
  ).first<{
    total: number;
    skipped: number;
  }>();
  return { total: row?.total ?? 0, skipped: row?.skipped ?? 0 };
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
