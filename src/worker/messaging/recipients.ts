import { type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { App } from "../../shared/auth";
import type { ExclusionReason } from "../../shared/campaigns";
import type { Db } from "../db/client";
import { campaignMessages, optOuts, users } from "../db/schema";
import { account, type DriverFilters, driverWhere, type InvitationFilters, invitationSelect, oldest } from "./audience";
import { type Channel, exclusionCase, type SendRules } from "./exclusions";

/**
 * What a campaign expands to: one SELECT of its recipients, from the same builders as the review's
 * tables (./audience.ts), so the review, the number N the admin confirms and the rows materialised
 * at expansion cannot disagree about who is in.
 */

/** Where a campaign's recipients come from; stored as the campaign's `audience` JSON. */
export type RecipientSource =
  | { source: "drivers"; filters: DriverFilters }
  | { source: "invitations"; filters: InvitationFilters }
  | { source: "list"; phones: string[]; app: App }
  | { source: "retry"; campaignId: number; retryId?: number };

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
      // The failed rows this retry claimed (campaign-commands.ts retryFailed), or before it exists, those open to claim.
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

const excludedSubquery = (phones: string[]) => sql`SELECT value FROM json_each(${JSON.stringify(phones)})`;

/** Recipients by area code and exclusion: what the review's summary and deferral are computed from. */
export async function recipientGroups(db: Db, from: RecipientSource, excludedPhones: string[], asOf: number, rules: SendRules) {
  return db.all<{ area: string; exclusion: ExclusionReason | null; n: number }>(
    sql`SELECT substr(phone, 3, 3) AS area, exclusion, count(*) AS n FROM (${recipientsSelect(db, from, rules.channel, excludedSubquery(excludedPhones), asOf, rules)}) GROUP BY 1, 2`,
  );
}
