import { inArray, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { rateLimits } from "../db/schema";
import { ApiError } from "../errors";

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * Every limit the identity endpoints apply, in one place. Per phone, the limits stop guessing
 * against one account; per address (CF-Connecting-IP, an IPv6 /64 counted as one), they stop one
 * client spraying many accounts or pumping SMS to many numbers. Fixed windows: a burst at a window
 * edge can reach twice the limit, which these margins allow for.
 */
export const RATE_LIMITS = {
  /**
   * Passwords tried against one account by one client. A per-account limit anyone could fill
   * would lock the owner out; this one stops only the client guessing.
   */
  passwordPerAccountClient: { limit: 10, windowMs: 15 * MINUTE },
  /**
   * Passwords tried against one account by every client together: the ceiling on guessing from
   * many addresses (≈ 9,600 a day at most). Reaching it stops password sign-in only: the owner
   * still signs in by SMS code and can reset the password.
   */
  passwordPerAccount: { limit: 100, windowMs: 15 * MINUTE },
  /** Password and SMS sign-in attempts by one client across accounts. */
  signInPerAddress: { limit: 50, windowMs: 15 * MINUTE },
  /** Code and challenge answers (confirm, reset-password, respond) for one account from one client. */
  codeCheckPerAccountClient: { limit: 10, windowMs: 15 * MINUTE },
  codeCheckPerAddress: { limit: 50, windowMs: 15 * MINUTE },
  /**
   * Wrong authenticator (TOTP) codes for one account in a day, whatever the address: the short
   * windows above still allow ~1,000 guesses a day, which against a 6-digit code adds up over weeks.
   * Only someone who passed the first factor (the password, or an SMS code) reaches the authenticator,
   * so only they can fill it; past the limit no authenticator code is checked until the day is over.
   * Wrong SMS codes are not counted here: they get SMS_CODE_BACKOFF, per account and client.
   */
  authenticatorFailuresPerAccount: { limit: 20, windowMs: DAY },
  /** SMS sent to one number for one purpose: one per 30 s, five an hour. */
  codeSendBurst: { limit: 1, windowMs: 30 * SECOND },
  codeSendPerPurpose: { limit: 5, windowMs: HOUR },
  /** SMS sent to one number across purposes, and by one client to any number. */
  codeSendPerPhone: { limit: 10, windowMs: HOUR },
  codeSendPerAddress: { limit: 30, windowMs: HOUR },
  /** Invitations one client may ask for, whichever driver signs them (each driver also has INVITATIONS_PER_DAY). */
  invitePerAddress: { limit: 30, windowMs: HOUR },
  /** New accounts from one client. */
  registerPerAddress: { limit: 10, windowMs: HOUR },
  /** Platform challenge codes tried by one driver (each reaches the platform). */
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
  /**
   * Every route that reaches the delivery platform for a driver (docs/engine.md, "Limits"), so our
   * servers are no oracle for platform credentials and no driver makes us a nuisance to the platform.
   * Connecting sends an email and password to the platform: a driver connects once or twice, so 10 a
   * day per driver and 30 a day per client address (several drivers behind one address).
   */
  platformConnectPerUser: { limit: 10, windowMs: DAY },
  platformConnectPerAddress: { limit: 30, windowMs: DAY },
  /** Asking whether a sign-in was approved: the SPA asks every 3 s (20 a minute). */
  platformApprovalPerUser: { limit: 30, windowMs: MINUTE },
  /** Reading the stations from the platform (otherwise answered from D1 for STATIONS_CACHE_MS). */
  platformStationsPerUser: { limit: 10, windowMs: HOUR },
  /** Forfeits and "I've arrived" a driver sends to the platform. */
  platformBlockActionPerUser: { limit: 30, windowMs: HOUR },
  /**
   * Reads that cost far more than a page, per signed-in caller: "download my data" (up to 10,000
   * offers and a dozen statements), the what-if (a replay of up to 100,000 offers; interactive, so
   * a minute's worth of edits), another driver's calendar (an audit row each, kept two years) and
   * reseller payout setup, start and refresh together (a provider call each).
   */
  accountExportPerUser: { limit: 10, windowMs: HOUR },
  whatIfPerUser: { limit: 60, windowMs: MINUTE },
  calendarViewPerViewer: { limit: 200, windowMs: DAY },
  resellerOnboardingPerUser: { limit: 10, windowMs: HOUR },
} as const satisfies Record<string, { limit: number; windowMs: number }>;

/**
 * Wrong SMS codes (confirm, reset, sign-in, SMS second factor) from one client for one account.
 * Anyone can have a sign-in code texted to any phone, so a wrong one must not lock the account for
 * its owner: the first `freeFailures` cost nothing, then each wrong code makes that client wait
 * before its next try, twice as long each time (2 s, 4 s, 8 s … at most a day), remembered for a
 * day. Another client (the owner's phone) is not held. Across clients, guessing is bounded by the
 * codes themselves: five tries each, and at most 10 texted to a number an hour (codeSendPerPhone),
 * so ≤ 50 guesses an hour, each batch of them texted to the owner.
 */
export const SMS_CODE_BACKOFF = { freeFailures: 5, firstDelayMs: 2 * SECOND, maxDelayMs: DAY, memoryMs: DAY } as const;

function smsCodeBackoffKeys(account: string, address: string) {
  return { failures: `smsCodeFailures:${account}:${address}`, hold: `smsCodeHold:${account}:${address}` };
}

/** Refuses (429 with Retry-After) a client that must still wait before its next SMS code for this account. Reads only. */
export async function assertNoSmsCodeHold(db: Db, account: string, address: string, now = Date.now()): Promise<void> {
  await assertUnderLimits(db, [{ key: smsCodeBackoffKeys(account, address).hold, limit: 1, windowMs: 0 }], now);
}

/** Counts one wrong SMS code from this client for this account, and holds the client when it has had its free ones. Answers the hold (ms; 0: none). */
export async function countSmsCodeFailure(db: Db, account: string, address: string, now = Date.now()): Promise<number> {
  const keys = smsCodeBackoffKeys(account, address);
  const { freeFailures, firstDelayMs, maxDelayMs, memoryMs } = SMS_CODE_BACKOFF;
  const [counted] = await countHits(db, [{ key: keys.failures, limit: Number.MAX_SAFE_INTEGER, windowMs: memoryMs }], now);
  const over = (counted?.count ?? 0) - freeFailures;
  if (over <= 0) return 0;
  const holdMs = Math.min(firstDelayMs * 2 ** Math.min(over - 1, 30), maxDelayMs);
  await db
    .insert(rateLimits)
    .values({ key: keys.hold, count: 1, resetAt: now + holdMs })
    .onConflictDoUpdate({ target: rateLimits.key, set: { count: 1, resetAt: now + holdMs } });
  return holdMs;
}

/**
 * Texts sent on someone's request (codes, invitations, temporary passwords, courtesy texts), to all
 * numbers together per hour: the budget itself is CODE_SMS_HOURLY_BUDGET (src/worker/config.ts),
 * charged by `chargeRequestedText` (sms-budget.ts). Requests answered as if a text went out when
 * none does (an unknown phone) count under their own key, so they do the same writes and spend nothing.
 */
export const REQUESTED_SMS_BUDGET_KEY = "requestedSmsGlobal";
export const UNTEXTED_REQUESTS_KEY = "requestedSmsUntexted";
export const REQUESTED_SMS_BUDGET_WINDOW_MS = HOUR;
/** The share of the budget only confirmed accounts' own sign-in and MFA codes may use: everything else stops at 80 %. */
export const CONFIRMED_SIGN_IN_RESERVE_PERCENT = 20;

export type RateLimitName = keyof typeof RATE_LIMITS;
export type RateLimitCheck = { key: string; limit: number; windowMs: number };

/** One named limit applied to one subject (a phone, an address, a user id). */
export function limitFor(name: RateLimitName, subject: string): RateLimitCheck {
  return { key: `${name}:${subject}`, ...RATE_LIMITS[name] };
}

/** A 429 that also says (to the server, not the client) which limits refused the request. */
export class RateLimited extends ApiError {
  constructor(
    readonly keys: string[],
    retryAfterMs: number,
    details?: unknown,
  ) {
    super("rate_limited", "Too many attempts. Try again later", { retryAfterSeconds: Math.ceil(retryAfterMs / 1000), details });
  }
}

/** The windows of these limits as stored now (absent: never hit, or ended and swept). */
async function currentWindows(db: Db, checks: RateLimitCheck[]) {
  const rows = await db
    .select()
    .from(rateLimits)
    .where(
      inArray(
        rateLimits.key,
        checks.map((c) => c.key),
      ),
    );
  return new Map(rows.map((r) => [r.key, r]));
}

/** Refuses (429) if any limit's live window is already full. Reads only. */
export async function assertUnderLimits(db: Db, checks: RateLimitCheck[], now = Date.now()): Promise<void> {
  if (checks.length === 0) return;
  const windows = await currentWindows(db, checks);
  const over = checks.filter((c) => {
    const w = windows.get(c.key);
    return w !== undefined && w.resetAt > now && w.count >= c.limit;
  });
  if (over.length > 0) {
    throw new RateLimited(
      over.map((c) => c.key),
      Math.max(...over.map((c) => windows.get(c.key)!.resetAt - now)),
    );
  }
}

/**
 * Counts one hit against each limit (in one D1 batch) and answers the counts. The upsert starts a
 * fresh window when the stored one has ended, so no sweep is needed for correctness; the retention job
 * only deletes ended windows to keep the table small.
 */
export async function countHits(db: Db, checks: RateLimitCheck[], now = Date.now()): Promise<{ count: number; resetAt: number }[]> {
  if (checks.length === 0) return [];
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
  return results.map((rows) => rows[0] ?? { count: 0, resetAt: now });
}

/**
 * The limits of one attempt: refused with a 429 carrying Retry-After, and then nothing is written
 * (a refused attempt does not count, so an attacker held back by the per-address limit cannot keep
 * filling a victim's per-phone window); otherwise the attempt counts against every limit. Two
 * attempts racing for the last place can both pass the read; the counts then show it and the
 * loser is refused. Answers the counts, for callers that watch a budget.
 */
export async function enforceRateLimits(db: Db, checks: RateLimitCheck[], now = Date.now()): Promise<number[]> {
  if (checks.length === 0) return [];
  await assertUnderLimits(db, checks, now);
  const counted = await countHits(db, checks, now);
  const over = checks.filter((c, i) => counted[i]!.count > c.limit);
  if (over.length > 0) {
    throw new RateLimited(
      over.map((c) => c.key),
      Math.max(...counted.filter((_, i) => counted[i]!.count > checks[i]!.limit).map((r) => r.resetAt - now)),
    );
  }
  return counted.map((r) => r.count);
}

/**
 * `enforceRateLimits` for a signed-in caller's own requests, whose screen says how long to wait:
 * the 429 carries the wait in its envelope too (`details.retryAfterSeconds`, beside Retry-After),
 * as the delivery platform's limits answer it.
 */
export async function enforceCallerLimits(db: Db, checks: RateLimitCheck[], now = Date.now()): Promise<void> {
  try {
    await enforceRateLimits(db, checks, now);
  } catch (err) {
    if (!(err instanceof RateLimited)) throw err;
    const retryAfterSeconds = err.retryAfterSeconds ?? 1;
    throw new RateLimited(err.keys, retryAfterSeconds * 1000, { reason: "too_many_attempts", retryAfterSeconds });
  }
}

/**
 * The caller's address as Cloudflare reports it, as the subject of per-address limits. An IPv6
 * client usually holds a whole /64 (and can pick any address in it), so IPv6 addresses count per
 * /64; IPv4-mapped addresses count as the IPv4 address. Local runs without the header share one bucket.
 */
export function clientAddress(header: string | undefined): string {
  const address = header?.trim().toLowerCase() ?? "";
  if (!address) return "unknown";
  if (!address.includes(":")) return address;
  const mapped = /^[0:]*ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(address);
  if (mapped) return mapped[1]!;
  const groups = expandIpv6(address);
  return groups ? `${groups.slice(0, 4).join(":")}::/64` : address;
}

/** The eight groups of an IPv6 address, without leading zeros, or null if it is not one. */
function expandIpv6(address: string): string[] | null {
  const withoutZone = address.split("%")[0]!;
  const halves = withoutZone.split("::");
  if (halves.length > 2) return null;
  const parse = (part: string) => (part === "" ? [] : part.split(":"));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  // An embedded IPv4 tail (…:1.2.3.4) is two groups.
  const last = tail.length > 0 ? tail[tail.length - 1]! : head[head.length - 1];
  if (last?.includes(".")) return null;
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null;
  const groups = [...head, ...Array.from({ length: halves.length === 2 ? missing : 0 }, () => "0"), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => g.replace(/^0+(?=.)/, ""));
}
