import { maskPhone } from "../../shared/phone";
import type { Config } from "../config";
import type { Db } from "../db/client";
import type { Logger } from "../log";
import { createSmsProvider } from "../providers/sms/provider";
import { type CodeSubject, codeMessage, issueCode } from "./codes";
import { CODE_SMS_BUDGET_KEY, CODE_SMS_BUDGET_WINDOW_MS, enforceRateLimits, limitFor, RateLimited } from "./rate-limit";

/** What the identity flows need from a request, gathered once by the routes. */
export type IdentityDeps = {
  db: Db;
  env: Env;
  config: Pick<Config, "CODE_SMS_HOURLY_BUDGET">;
  log: Logger;
  /** CF-Connecting-IP, for per-address limits. */
  address: string;
  waitUntil: (promise: Promise<unknown>) => void;
  now: number;
};

export type CodeDelivery = { destination: string };

/**
 * The SMS throttles for one code send: per number and purpose, per number, per client address, and
 * the hourly budget of all code texts together (CODE_SMS_HOURLY_BUDGET), which caps what a pumping
 * attack spread over many numbers and addresses can cost. Reaching the budget is logged as an
 * alert (`alert.code_sms_budget`), once when it fills and on every refusal after.
 */
export async function enforceCodeSendLimits(deps: IdentityDeps, phone: string, purpose: CodeSubject["purpose"] | "consent-confirmation"): Promise<void> {
  const budget = deps.config.CODE_SMS_HOURLY_BUDGET;
  const checks = [
    limitFor("codeSendBurst", `${phone}:${purpose}`),
    limitFor("codeSendPerPurpose", `${phone}:${purpose}`),
    limitFor("codeSendPerPhone", phone),
    limitFor("codeSendPerAddress", deps.address),
    { key: CODE_SMS_BUDGET_KEY, limit: budget, windowMs: CODE_SMS_BUDGET_WINDOW_MS },
  ];
  let counts: number[];
  try {
    counts = await enforceRateLimits(deps.db, checks, deps.now);
  } catch (err) {
    if (err instanceof RateLimited && err.keys.includes(CODE_SMS_BUDGET_KEY)) {
      deps.log.error("alert.code_sms_budget", { state: "refusing", budget, purpose });
    }
    throw err;
  }
  if (counts[checks.length - 1] === budget) deps.log.error("alert.code_sms_budget", { state: "reached", budget, purpose });
}

/**
 * Sends an SMS after the response, logging a failure. Sending in the background keeps the
 * response time independent of the provider's latency, so it cannot tell whether a message went
 * out (i.e. whether an account exists) on the endpoints that must not say.
 */
export function sendSmsInBackground(deps: IdentityDeps, to: string, body: string, event: string): void {
  const sending = createSmsProvider(deps.env)
    .send({ to, body })
    .then((outcome) => {
      if (outcome.ok) deps.log.info(`${event}.sent`, { providerId: outcome.providerId });
      else deps.log.error(`${event}.failed`, { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
    })
    .catch((err: unknown) => deps.log.error(`${event}.failed`, { error: err instanceof Error ? err.message : String(err) }));
  deps.waitUntil(sending);
}

/**
 * Stores a new code and (when `send`) texts it in the user's language. Callers that must not
 * reveal whether an account exists call this for unknown phones too with `send: false`, so both
 * cases do the same database work and answer the same.
 */
export async function issueAndSendCode(deps: IdentityDeps, subject: CodeSubject & { language: "en" | "es"; send: boolean }): Promise<CodeDelivery> {
  const code = await issueCode(deps.db, deps.env.PASSWORD_PEPPER, { app: subject.app, phone: subject.phone, purpose: subject.purpose }, deps.now);
  if (subject.send) sendSmsInBackground(deps, subject.phone, codeMessage(subject.purpose, subject.language, code), `code.${subject.purpose}`);
  return { destination: maskPhone(subject.phone) };
}

export async function deliverCode(deps: IdentityDeps, subject: CodeSubject & { language: "en" | "es"; send: boolean }): Promise<CodeDelivery> {
  await enforceCodeSendLimits(deps, subject.phone, subject.purpose);
  return issueAndSendCode(deps, subject);
}
