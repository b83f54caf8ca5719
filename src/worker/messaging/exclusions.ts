import { type SQL, sql } from "drizzle-orm";
import type { ExclusionReason } from "../../shared/campaigns";
import { areaCodesOfRegions, KNOWN_AREA_CODES } from "../compliance/area-codes";
import { REGION_RULES, WHATSAPP_MARKETING_CAP } from "../compliance/state-rules";
import { type Db, jsonList } from "../db/client";
import { campaignMessages, campaigns, consentEvents, optOuts, users } from "../db/schema";

/**
 * Who a campaign may not reach, and why (docs/messaging-rules.md): opted out, and for marketing no
 * consent basis, WhatsApp marketing to a +1 number, or the frequency cap. One SQL CASE, evaluated
 * in D1 over the recipients (./recipients.ts) and again for a message at the moment it is sent.
 */

export type Channel = "sms" | "whatsapp";

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

/** Why a row was left out, as the ledger shows it. */
export const EXCLUSION_MESSAGES: Record<string, string> = {
  opted_out: "The number opted out",
  no_consent: "No consent basis allows marketing to this number",
  frequency_cap: "The number has had as many marketing messages as the frequency cap allows",
  whatsapp_marketing_us: "Meta does not deliver WhatsApp marketing templates to +1 numbers",
};
