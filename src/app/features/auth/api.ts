import { api } from "../../lib/api-client";
import type { TokenAnswer } from "../../lib/session";

/** Identity calls of docs/api.md. They return data or throw ApiClientError; the screens decide. */

export type App = "flex" | "spark";
export type ChallengeName = "SMS_MFA" | "SOFTWARE_TOKEN_MFA" | "MFA_SETUP" | "NEW_PASSWORD_REQUIRED" | "CUSTOM_CHALLENGE";
export type Challenge = {
  challenge: ChallengeName;
  session: string;
  parameters?: { secret?: string; otpauthUri?: string; destination?: string; [key: string]: unknown };
};
export type SignInAnswer = { tokens: TokenAnswer } | Challenge;
export type CodeDelivery = { codeDelivery?: { destination?: string } };

// None of these needs the caller's ID token; sending a stale one would only trigger a refresh.
const anonymous = { auth: false } as const;

export const authApi = {
  signIn: (body: { phoneNumber: string; app: App; password: string }) => api.post<SignInAnswer>("/api/auth/sign-in", body, anonymous),
  signInWithSms: (body: { phoneNumber: string; app: App }) => api.post<SignInAnswer>("/api/auth/sign-in", { ...body, method: "sms" }, anonymous),
  respond: (body: { challenge: ChallengeName; session: string; code?: string; newPassword?: string }) =>
    api.post<SignInAnswer>("/api/auth/respond", body, anonymous),
  register: (body: { phoneNumber: string; password: string; name: string; email?: string; app: App; referralCode?: string; language: "en" | "es" }) =>
    api.post<CodeDelivery>("/api/auth/register", body, anonymous),
  /** Confirming is a sign-in too: with the registration password it answers tokens; without, a NEW_PASSWORD_REQUIRED challenge. */
  confirm: (body: { phoneNumber: string; app: App; code: string; password?: string }) =>
    api.post<{ confirmed: true } & SignInAnswer>("/api/auth/confirm", body, anonymous),
  resendCode: (body: { phoneNumber: string; app: App }) => api.post<CodeDelivery>("/api/auth/resend-code", body, anonymous),
  forgotPassword: (body: { phoneNumber: string; app: App }) => api.post<CodeDelivery>("/api/auth/forgot-password", body, anonymous),
  resetPassword: (body: { phoneNumber: string; app: App; code: string; newPassword: string }) =>
    api.post<{ reset: true }>("/api/auth/reset-password", body, anonymous),
};

export function isChallenge(answer: SignInAnswer): answer is Challenge {
  return "challenge" in answer;
}
