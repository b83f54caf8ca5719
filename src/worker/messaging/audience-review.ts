import { z } from "zod";
import { CAMPAIGN_PURPOSES, categoryOf } from "../../shared/marketing";
import { complianceNow } from "../compliance/clock";
import { nextAllowedAt } from "../compliance/quiet-hours";
import type { Db } from "../db/client";
import { ApiError } from "../errors";
import { MAX_SCHEDULE_AHEAD_MS, normalizePhones } from "./campaign-request";
import { reviewSummary } from "./campaign-review";
import { exclusionsOf, type SendRules } from "./exclusions";
import type { RecipientSource } from "./recipients";
import { findTemplate } from "./templates";

/**
 * What the review is checked against (docs/messaging-rules.md): the channel, what the message is
 * for, the template (whose category decides for WhatsApp) and a scheduled start. Read beside the
 * audience filters, from the same query string.
 */
const reviewRulesSchema = z.object({
  channel: z.enum(["sms", "whatsapp"]),
  purpose: z.enum(CAMPAIGN_PURPOSES),
  templateName: z.string().min(1).max(512).optional(),
  templateLanguage: z.string().min(1).max(20).optional(),
  scheduledAt: z.coerce.number().int().positive().max(8_640_000_000_000).optional(),
});

export type ReviewQuery = z.infer<typeof reviewRulesSchema>;

/** The review's rules in a query string, or null when it names neither a channel nor a purpose (a page without marks). */
export function reviewQueryOf(query: Record<string, string>): ReviewQuery | null {
  if (query.channel === undefined && query.purpose === undefined) return null;
  const parsed = reviewRulesSchema.safeParse(query);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ApiError("validation_failed", `${issue.path.join(".")}: ${issue.message}`, { details: parsed.error.issues });
  }
  return parsed.data;
}

async function reviewRules(db: Db, env: Pick<Env, "ENVIRONMENT">, r: ReviewQuery, now: number): Promise<{ rules: SendRules; startAt: number }> {
  let category = categoryOf(r.purpose);
  if (r.channel === "whatsapp" && r.templateName && r.templateLanguage) {
    const template = await findTemplate(db, { name: r.templateName, language: r.templateLanguage });
    if (template?.category === "MARKETING") category = "marketing";
  }
  // Quiet hours are judged on the rules' clock (src/worker/compliance/clock.ts), from the start time.
  const clock = complianceNow(env, now);
  const startAt = r.scheduledAt !== undefined && r.scheduledAt > now && r.scheduledAt <= now + MAX_SCHEDULE_AHEAD_MS ? r.scheduledAt + (clock - now) : clock;
  return { rules: { category, channel: r.channel, now }, startAt };
}

/** Each row of a review page, marked with why it would be left out, or until when it would wait; unmarked without rules. */
export async function markRows<T extends { phone: string }>(db: Db, env: Pick<Env, "ENVIRONMENT">, rows: T[], query: ReviewQuery | null, now: number) {
  if (!query) return rows;
  const review = await reviewRules(db, env, query, now);
  const exclusions = await exclusionsOf(
    db,
    rows.map((r) => r.phone),
    review.rules,
  );
  return rows.map((r) => {
    const exclusion = exclusions.get(r.phone) ?? null;
    const at = !exclusion && review.rules.category === "marketing" ? nextAllowedAt(r.phone, review.startAt) : null;
    return { ...r, exclusion, deferredUntil: at !== null && at > review.startAt ? at : null };
  });
}

/** The review's account of exclusions and deferral for a whole audience, the numbers the administrator excluded left out. */
export async function audienceReview(db: Db, env: Pick<Env, "ENVIRONMENT">, recipients: RecipientSource, query: ReviewQuery | null, excludedPhones: string[]) {
  const now = Date.now();
  if (!query) throw new ApiError("validation_failed", "channel: Required; purpose: Required");
  const review = await reviewRules(db, env, query, now);
  const excluded = normalizePhones(excludedPhones, "excludedPhones");
  if (excluded.issues.length > 0) throw new ApiError("validation_failed", "excludedPhones: Not a US or Canada phone number", { details: excluded.issues });
  return reviewSummary(db, recipients, excluded.phones, review.rules, review.startAt);
}
