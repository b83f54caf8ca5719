import { maskPhone } from "../../shared/phone";
import type { Config } from "../config";
import type { Db } from "../db/client";
import type { Logger } from "../log";
import { createSmsProvider } from "../providers/sms/provider";
import { type CodeSubject, codeMessage, issueCode } from "./codes";
import { limitFor } from "./rate-limit";
import { chargeRequestedText } from "./sms-budget";

/**
 * Told when sessions of a user end: `sessionId` one of them, or null every one (but `except`, the
 * caller's own, on a change the caller made). The routes hand in what must follow them (the live
 * dashboard's sockets close: src/worker/platform/live-client.ts); identity knows nothing of it.
 */
export type SessionsEnded = (userId: number, sessionId: string | null, except?: string) => Promise<void>;

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
  /** Told of the sessions a flow ends (a sign-out, a credential change, a proof of the phone), once they have. */
  sessionsEnded?: SessionsEnded;
};

export type CodeDelivery = { destination: string };

/** Who a code goes to, as the budget sees it (sms-budget.ts). */
export type CodeSend = {
  /** False for the callers that must not reveal whether an account exists: the code is stored, not texted. */
  send: boolean;
  /** A confirmed account's SMS sign-in or MFA code (or an unknown phone's SMS sign-in, which must look the same). */
  mayUseReserve: boolean;
};

/**
 * The SMS throttles for one code send: per number and purpose, per number, per client address, and
 * the hourly budget of every requested text (`chargeRequestedText`), which caps what a pumping
 * attack spread over many numbers and addresses can cost. A code that is not texted does the same
 * work and spends none of the budget; only confirmed accounts' sign-in and MFA codes may use its
 * last 20 %.
 */
export async function enforceCodeSendLimits(
  deps: IdentityDeps,
  phone: string,
  purpose: CodeSubject["purpose"] | "consent-confirmation",
  send: CodeSend,
): Promise<void> {
  await chargeRequestedText(deps, {
    purpose: `code.${purpose}`,
    texted: send.send,
    mayUseReserve: send.mayUseReserve,
    limits: [
      limitFor("codeSendBurst", `${phone}:${purpose}`),
      limitFor("codeSendPerPurpose", `${phone}:${purpose}`),
      limitFor("codeSendPerPhone", phone),
      limitFor("codeSendPerAddress", deps.address),
    ],
  });
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

export async function deliverCode(deps: IdentityDeps, subject: CodeSubject & CodeSend & { language: "en" | "es" }): Promise<CodeDelivery> {
  await enforceCodeSendLimits(deps, subject.phone, subject.purpose, subject);
  return issueAndSendCode(deps, subject);
}
