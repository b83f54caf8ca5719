import type { Config } from "../config";
import type { Db } from "../db/client";
import type { Logger } from "../log";
import {
  assertUnderLimits,
  CONFIRMED_SIGN_IN_RESERVE_PERCENT,
  countHits,
  type RateLimitCheck,
  RateLimited,
  REQUESTED_SMS_BUDGET_KEY,
  REQUESTED_SMS_BUDGET_WINDOW_MS,
  UNTEXTED_REQUESTS_KEY,
} from "./rate-limit";

export type SmsBudgetDeps = { db: Db; config: Pick<Config, "CODE_SMS_HOURLY_BUDGET">; log: Logger; now: number };

/** One text someone's request asks us to send (or to answer as if we sent). */
export type RequestedText = {
  /** What it is, for the log: `code.sign-in`, `invitation`, `admin.temporary_password`, `courtesy.free_week`. */
  purpose: string;
  /**
   * False when the answer must look as if a text went out but none does (an unknown phone, an
   * already confirmed one): the same reads and writes happen, and the budget is not spent.
   */
  texted: boolean;
  /**
   * A confirmed account's own sign-in or MFA code (or the stand-in an unknown phone gets for an SMS
   * sign-in): may use the last CONFIRMED_SIGN_IN_RESERVE_PERCENT of the budget, which every other
   * text leaves alone, so flooding registrations or resets cannot lock drivers out.
   */
  mayUseReserve: boolean;
  /** The text's own limits (per number, per address), checked and counted together with the budget. */
  limits?: RateLimitCheck[];
};

/** How many texts an hour all requests together may send, and how many of them the texts outside the reserve may. */
export function requestedSmsShares(budget: number): { whole: number; open: number } {
  return { whole: budget, open: Math.max(1, Math.floor((budget * (100 - CONFIRMED_SIGN_IN_RESERVE_PERCENT)) / 100)) };
}

/**
 * The one budget of every text sent on someone's request: verification codes, invitations,
 * administrators' temporary passwords and courtesy texts all go through here before they are sent.
 * Refuses (429, nothing written) when the text's own limits or its share of the hourly budget
 * (CODE_SMS_HOURLY_BUDGET; 80 % of it unless `mayUseReserve`) are full; otherwise counts it. An
 * untexted request reads the same windows and writes the same number of rows, but counts under a
 * key of its own, so it spends nothing and takes as long. Logged as `alert.requested_sms_budget`
 * when the open share fills (`reserve_only`), when the whole budget fills (`reached`), and on every
 * refusal by the budget (`refusing`).
 */
export async function chargeRequestedText(deps: SmsBudgetDeps, text: RequestedText): Promise<void> {
  const budget = deps.config.CODE_SMS_HOURLY_BUDGET;
  const shares = requestedSmsShares(budget);
  const limits = text.limits ?? [];
  const share: RateLimitCheck = {
    key: REQUESTED_SMS_BUDGET_KEY,
    limit: text.mayUseReserve ? shares.whole : shares.open,
    windowMs: REQUESTED_SMS_BUDGET_WINDOW_MS,
  };
  const refusedByBudget = (err: unknown) => {
    if (err instanceof RateLimited && err.keys.includes(REQUESTED_SMS_BUDGET_KEY)) {
      deps.log.error("alert.requested_sms_budget", { state: "refusing", budget, purpose: text.purpose });
    }
    return err;
  };
  try {
    await assertUnderLimits(deps.db, [...limits, share], deps.now);
  } catch (err) {
    throw refusedByBudget(err);
  }
  const counted = await countHits(deps.db, [...limits, text.texted ? share : { ...share, key: UNTEXTED_REQUESTS_KEY }], deps.now);
  // Two requests racing for the last place both pass the read; the counts show it and the later one is refused.
  const checked = text.texted ? [...limits, share] : limits;
  const over = checked.map((check, i) => ({ check, window: counted[i]! })).filter(({ check, window }) => window.count > check.limit);
  if (over.length > 0) {
    throw refusedByBudget(
      new RateLimited(
        over.map(({ check }) => check.key),
        Math.max(...over.map(({ window }) => window.resetAt - deps.now)),
      ),
    );
  }
  if (!text.texted) return;
  const spent = counted[limits.length]!.count;
  if (spent === shares.open && shares.open < shares.whole)
    deps.log.error("alert.requested_sms_budget", { state: "reserve_only", budget, purpose: text.purpose });
  if (spent === shares.whole) deps.log.error("alert.requested_sms_budget", { state: "reached", budget, purpose: text.purpose });
}
