import { z } from "zod";
import { appSchema, CHALLENGE_NAMES, codeSchema, emailSchema, languageSchema, passwordSchema, phoneSchema } from "../../shared/auth";
import { REGISTRATION_CONSENT } from "../../shared/consent-texts";

/** The identity API's request bodies (/api/auth/*, docs/api.md): the routes validate them, the services take what they parse to. */

const nameSchema = z.string().trim().min(1, "Enter your name").max(100);
/** Optional email as forms send it: absent, empty (no email) or a valid address. */
const optionalEmailSchema = z.union([z.literal("").transform(() => null), z.null(), emailSchema]).optional();
const sessionSchema = z.string().min(16).max(128);
const refreshTokenSchema = z.string().min(16).max(128);

const phoneAndApp = { phoneNumber: phoneSchema, app: appSchema };
export const phoneAndAppSchema = z.object(phoneAndApp);

export const registerSchema = z.object({
  ...phoneAndApp,
  password: passwordSchema,
  name: nameSchema,
  email: optionalEmailSchema,
  referralCode: z.string().trim().max(64).optional(),
  language: languageSchema.default("en"),
  /** The optional marketing consent box: ticked, with the version of the wording it showed (src/shared/consent-texts.ts). */
  marketingConsent: z.object({ version: z.literal(REGISTRATION_CONSENT.version) }).optional(),
});

/** Confirm: the code, and (optionally) the password chosen at registration, which keeps it. */
export const confirmSchema = z.object({ ...phoneAndApp, code: codeSchema, password: z.string().min(1).max(256).optional() });

export const signInSchema = z.union([
  z.object({ ...phoneAndApp, password: z.string().min(1, "Enter your password").max(256) }).strict(),
  z.object({ ...phoneAndApp, method: z.literal("sms") }).strict(),
]);

export const respondSchema = z.object({
  challenge: z.enum(CHALLENGE_NAMES),
  session: sessionSchema,
  code: codeSchema.optional(),
  newPassword: passwordSchema.optional(),
});

export const refreshSchema = z.object({ refreshToken: refreshTokenSchema });
/** `pushEndpoint`: this device's push subscription (PushSubscription.endpoint), which ends with the session. */
export const signOutSchema = z.object({
  refreshToken: refreshTokenSchema,
  global: z.boolean().optional(),
  pushEndpoint: z.string().min(1).max(2048).optional(),
});
export const resetPasswordSchema = z.object({ ...phoneAndApp, code: codeSchema, newPassword: passwordSchema });
export const changePasswordSchema = z.object({ currentPassword: z.string().min(1).max(256), newPassword: passwordSchema });

export const meSchema = z
  .object({ name: nameSchema.optional(), email: optionalEmailSchema, language: languageSchema.optional() })
  .refine((body) => Object.values(body).some((value) => value !== undefined), "Send at least one of name, email, language");

export type PhoneAndApp = z.infer<typeof phoneAndAppSchema>;
export type RegisterRequest = z.infer<typeof registerSchema>;
export type ConfirmRequest = z.infer<typeof confirmSchema>;
export type SignInRequest = z.infer<typeof signInSchema>;
export type RespondRequest = z.infer<typeof respondSchema>;
export type SignOutRequest = z.infer<typeof signOutSchema>;
export type ResetPasswordRequest = z.infer<typeof resetPasswordSchema>;
export type ChangePasswordRequest = z.infer<typeof changePasswordSchema>;
export type MeRequest = z.infer<typeof meSchema>;
