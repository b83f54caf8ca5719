import { sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";
import { ApiError } from "../errors";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Every limit the identity endpoints apply, in one place. Per phone, the limits stop guessing
 * against one account; per address (CF-Connecting-IP), they stop one client spraying many
 * accounts or pumping SMS to many numbers. Fixed windows: a burst at a window edge can reach twice
 * the limit, which these margins allow for.
 */
export const RATE_LIMITS = {
  /** Password or SMS sign-in attempts against one account. */
  signInPerPhone: { limit: 10, windowMs: 15 * MINUTE },
  signInPerAddress: { limit: 50, windowMs: 15 * MINUTE },
  /** Code and challenge answers (confirm, reset-password, respond) for one account. */
  codeCheckPerPhone: { limit: 10, windowMs: 15 * MINUTE },
  codeCheckPerAddress: { limit: 50, windowMs: 15 * MINUTE },
  /** SMS sent to one number for one purpose: one per 30 s, five an hour. */
  codeSendBurst: { limit: 1, windowMs: 30 * SECOND },
  codeSendPerPurpose: { limit: 5, windowMs: HOUR },
  /** SMS sent to one number across purposes, and by one client to any number. */
  codeSendPerPhone: { limit: 10, windowMs: HOUR },
  codeSendPerAddress: { limit: 30, windowMs: HOUR },
  /** New accounts from one client. */
  registerPerAddress: { limit: 10, windowMs: HOUR },
  /** Platform account sign-ins and challenge codes tried by one driver (each reaches the platform). */
  platformSignInPerUser: { limit: 10, windowMs: 15 * MINUTE },
  platformCodePerUser: { limit: 10, windowMs: 15 * MINUTE },
  /** change-password guesses of the current password by one signed-in user. */
  passwordChangePerUser: { limit: 10, windowMs: 15 * MINUTE },
  /** Contact-form messages from one client, and about one phone number. */
  contactPerAddress: { limit: 5, windowMs: HOUR },
  contactPerPhone: { limit: 3, windowMs: DAY },
  /** Checkout sessions one driver (or reseller) may open: each is a provider call. */
  checkoutPerUser: { limit: 20, windowMs: HOUR },
  /** Card attempts on one embedded checkout session, as Stripe limits card testing. */
  localCardAttemptsPerSession: { limit: 10, windowMs: HOUR },
  /** Refunds one billing administrator may issue. */
  refundPerAdmin: { limit: 30, windowMs: HOUR },
} as const satisfies Record<string, { limit: number; windowMs: number }>;

export type RateLimitName = keyof typeof RATE_LIMITS;
export type RateLimitCheck = { key: string; limit: number; windowMs: number };

/** One named limit applied to one subject (a phone, an address, a user id). */
export function limitFor(name: RateLimitName, subject: string): RateLimitCheck {
  return { key: `${name}:${subject}`, ...RATE_LIMITS[name] };
}

/**
 * Counts one hit against each limit (in one D1 batch) and throws a 429 carrying Retry-After if any
 * is over. The upsert starts a fresh window when the stored one has ended, so no sweep is needed
 * for correctness; housekeeping only deletes ended windows to keep the table small.
 */
export async function enforceRateLimits(db: Db, checks: RateLimitCheck[], now = Date.now()): Promise<void> {
  if (checks.length === 0) return;
  const statements = checks.map((check) =>
    db
      .insert(rateLimits)
      .values({ key: check.key, count: 1, resetAt: now + check.windowMs })
      .onConflictDoUpdate({
        target: rateLimits.key,
        set: {
          count: sql`CASE WHEN ${rateLimits.resetAt} <= ${now} THEN 1 ELSE ${rateLimits.count} + 1 END`,
          resetAt: sql`CASE WHEN ${rateLimits.resetAt} <= ${now} THEN ${now + check.windowMs} ELSE ${rateLimits.resetAt} END`,
        },
      })
      .returning({ count: rateLimits.count, resetAt: rateLimits.resetAt }),
  );
  const results = await db.batch(statements as [(typeof statements)[number], ...(typeof statements)[number][]]);
  let retryAfterMs = 0;
  results.forEach((rows, i) => {
    const row = rows[0];
    if (row && row.count > checks[i]!.limit) retryAfterMs = Math.max(retryAfterMs, row.resetAt - now);
  });
  if (retryAfterMs > 0) {
    throw new ApiError("rate_limited", "Too many attempts. Try again later", { retryAfterSeconds: Math.ceil(retryAfterMs / 1000) });
  }
}

/** The caller's address as Cloudflare reports it; local runs without the header share one bucket. */
export function clientAddress(header: string | undefined): string {
  return header?.trim() || "unknown";
}
