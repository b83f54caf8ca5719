import type { InferRequestType, InferResponseType } from "hono/client";
import type { App } from "../../../shared/auth";
import { publicApi, unwrap } from "../../lib/api-client";
import { withIdentityRetry } from "../../lib/identity-retry";

/**
 * Identity calls. None carries the caller's ID token (sending a stale one would only trigger a
 * refresh). They return the answer or throw ApiClientError; the screens decide what to show.
 * Each is retried with exponential back-off for up to 300000 ms when it cannot have reached the
 * server (lib/identity-retry.ts).
 */
export type { App };
/** A sign-in step's answer: tokens, or the next challenge. */
export type SignInAnswer = InferResponseType<(typeof publicApi.auth)["sign-in"]["$post"]> | InferResponseType<typeof publicApi.auth.respond.$post>;
export type Challenge = Extract<SignInAnswer, { challenge: unknown }>;
type RespondBody = InferRequestType<typeof publicApi.auth.respond.$post>["json"];

export const authApi = {
  signIn: (body: { phoneNumber: string; app: App; password: string }) => withIdentityRetry(() => unwrap(publicApi.auth["sign-in"].$post({ json: body }))),
  signInWithSms: (body: { phoneNumber: string; app: App }) =>
    withIdentityRetry(() => unwrap(publicApi.auth["sign-in"].$post({ json: { ...body, method: "sms" } }))),
  respond: (body: RespondBody) => withIdentityRetry(() => unwrap(publicApi.auth.respond.$post({ json: body }))),
  register: (body: InferRequestType<typeof publicApi.auth.register.$post>["json"]) =>
    withIdentityRetry(() => unwrap(publicApi.auth.register.$post({ json: body }))),
  /** Confirming is a sign-in too: with the registration password it answers tokens; without, a NEW_PASSWORD_REQUIRED challenge. */
  confirm: (body: { phoneNumber: string; app: App; code: string; password?: string }) =>
    withIdentityRetry(() => unwrap(publicApi.auth.confirm.$post({ json: body }))),
  resendCode: (body: { phoneNumber: string; app: App }) => withIdentityRetry(() => unwrap(publicApi.auth["resend-code"].$post({ json: body }))),
  forgotPassword: (body: { phoneNumber: string; app: App }) => withIdentityRetry(() => unwrap(publicApi.auth["forgot-password"].$post({ json: body }))),
  resetPassword: (body: { phoneNumber: string; app: App; code: string; newPassword: string }) =>
    withIdentityRetry(() => unwrap(publicApi.auth["reset-password"].$post({ json: body }))),
};

export function isChallenge<Answer extends SignInAnswer>(answer: Answer): answer is Extract<Answer, { challenge: unknown }> {
  return "challenge" in answer;
}
