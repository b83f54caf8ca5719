import { EXCLUSION_REASONS, type ReviewSummary, type SendOutcome } from "../../shared/campaigns";
import { deferralByAreaCode, deferralKey } from "../compliance/quiet-hours";
import type { Db } from "../db/client";
import type { CampaignInput } from "./campaign-request";
import type { SendRules } from "./exclusions";
import { type RecipientSource, recipientGroups } from "./recipients";

/**
 * The review of a send before it is confirmed: who will not be reached and why, who waits for their
 * allowed hours and until when; and the answer to a send, in the specification's words.
 */

/** Meta does not deliver marketing templates to US (+1) numbers (the WhatsApp Business Platform's pause of April 2025). */
export const WHATSAPP_MARKETING_US_REFUSAL =
  "Meta does not deliver WhatsApp marketing templates to +1 (US) numbers. Send this as an SMS, or choose a utility template for a service notice.";

export function sendRulesOf(input: Pick<CampaignInput, "category" | "channel">, now: number, campaignId?: number): SendRules {
  return { category: input.category, channel: input.channel, now, campaignId };
}

/**
 * The review's account of who will not be reached and why, and who will wait for their allowed
 * hours and until when, computed by the same query the expansion runs.
 */
export async function reviewSummary(db: Db, recipients: RecipientSource, excludedPhones: string[], rules: SendRules, startAt: number): Promise<ReviewSummary> {
  const groups = await recipientGroups(db, recipients, excludedPhones, rules.now, rules);
  const excluded = Object.fromEntries(EXCLUSION_REASONS.map((r) => [r, 0])) as ReviewSummary["excluded"];
  const deferral = rules.category === "marketing" ? deferralByAreaCode(startAt) : {};
  const deferred: ReviewSummary["deferred"] = { count: 0, first: null, last: null };
  let total = 0;
  let sendNow = 0;
  for (const g of groups) {
    total += g.n;
    if (g.exclusion) {
      excluded[g.exclusion] += g.n;
      continue;
    }
    const until = deferral[deferralKey(g.area)];
    if (until === undefined) {
      sendNow += g.n;
      continue;
    }
    deferred.count += g.n;
    deferred.first = deferred.first === null ? until : Math.min(deferred.first, until);
    deferred.last = deferred.last === null ? until : Math.max(deferred.last, until);
  }
  const refusal = excluded.whatsapp_marketing_us > 0 ? WHATSAPP_MARKETING_US_REFUSAL : null;
  return { total, excluded, sendNow, deferred, refusal };
}

const users_ = (n: number) => `${n} user${n === 1 ? "" : "s"}`;
const EXCLUSION_WORDS: Record<keyof ReviewSummary["excluded"], string> = {
  opted_out: "opted out",
  no_consent: "no consent basis",
  frequency_cap: "frequency cap",
  whatsapp_marketing_us: "WhatsApp marketing to +1",
};

/**
 * The answer to a send, in the specification's words ("Message sent successfully to N users."),
 * followed, when not everyone goes at once, by how many go now, how many wait for their allowed
 * hours (their morning) and how many are skipped and why. Without a summary (a replayed request),
 * just the first sentence.
 */
export function sentMessage(n: number, summary?: SendSummaryFigures): string {
  const first = `Message sent successfully to ${users_(n)}.`;
  if (!summary) return first;
  const skipped = Object.values(summary.excluded).reduce((a, b) => a + b, 0);
  if (skipped === 0 && summary.deferred.count === 0) return first;
  const parts = [`${summary.sendNow} queued now`];
  if (summary.deferred.count > 0) parts.push(`${summary.deferred.count} deferred to their allowed hours`);
  if (skipped > 0) {
    const why = EXCLUSION_REASONS.filter((r) => summary.excluded[r] > 0).map((r) => `${EXCLUSION_WORDS[r]}: ${summary.excluded[r]}`);
    parts.push(`${skipped} skipped (${why.join(", ")})`);
  }
  return `${first} ${parts.join(", ")}.`;
}

type SendSummaryFigures = Pick<ReviewSummary, "excluded" | "sendNow" | "deferred">;

/** A send's answer: the specification's sentence (sentMessage) and its figures. */
export function sendAnswer(n: number, summary?: SendSummaryFigures): { message: string; outcome: SendOutcome | null } {
  return {
    message: sentMessage(n, summary),
    outcome: summary ? { total: n, sendNow: summary.sendNow, deferred: summary.deferred.count, excluded: summary.excluded } : null,
  };
}
