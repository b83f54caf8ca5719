import { checkSmsPhone, PHONE_REFUSAL_CODES } from "./phone";
import type { ValidationCode } from "./validation";
import { z } from "./zod";

/** The two products: Flex drivers and Spark drivers. Every account, code and campaign belongs to one. */
export const APPS = ["flex", "spark"] as const;
export type App = (typeof APPS)[number];

export const LANGUAGES = ["en", "es"] as const;
export type Language = (typeof LANGUAGES)[number];

export const MFA_METHODS = ["none", "sms", "totp"] as const;
export type MfaMethod = (typeof MFA_METHODS)[number];

/** The steps a sign-in may still ask for (docs/architecture.md, identity). */
export const CHALLENGE_NAMES = ["SMS_MFA", "SOFTWARE_TOKEN_MFA", "MFA_SETUP", "NEW_PASSWORD_REQUIRED", "CUSTOM_CHALLENGE"] as const;
export type ChallengeName = (typeof CHALLENGE_NAMES)[number];

/**
 * What an ID token says of its user. The server verifies the token; the SPA only reads these
 * claims to route. `sid` names the session (refresh-token family) the token was issued for.
 */
export type IdClaims = {
  sub: string;
  sid: string;
  phone_number: string;
  phone_number_verified: boolean;
  app: App;
  is_admin: boolean;
  exp: number;
};

/**
 * The user item GET /api/flex/v1/user answers: the old product's fields plus what the SPA routes on.
 * Two of them the old product named otherwise (flexEmail, proxyInstalled): the old calls answer
 * those names too (src/worker/auth/user-item.ts `withOldFieldNames`).
 */
export type UserItem = {
  id: number;
  name: string;
  phoneNumber: string;
  email: string | null;
  goodStanding: boolean;
  expirationDateTimestamp: number | null;
  /** dd/MM/yy in UTC, or null. */
  expirationDate: string | null;
  createDateTimestamp: number;
  humanRegion: string | null;
  driverOptions: { deliveryArea: string | null };
  /** The driver has connected their delivery-platform account (the old product called it proxyInstalled). */
  accountConnected: boolean;
  setupComplete: boolean;
  isAdmin: boolean;
  referral: string | null;
  status: "start" | "stop";
  stripeExpressId: string | null;
  role: { name: string; properties: { billingDetails: boolean } } | null;
  app: App;
  language: Language;
  phoneNumberVerified: boolean;
  mfaMethod: MfaMethod;
  inviteCode: string;
};

/** At least 8 characters with a number, an uppercase letter and a special character (docs/product.md, validation). */
export const passwordSchema = z
  .string()
  .min(8, "passwordLength" satisfies ValidationCode)
  .max(256, "passwordTooLong" satisfies ValidationCode)
  .regex(/\d/, "passwordNumber" satisfies ValidationCode)
  .regex(/[A-Z]/, "passwordUppercase" satisfies ValidationCode)
  .regex(/[^A-Za-z0-9]/, "passwordSpecial" satisfies ValidationCode);

/**
 * A US/Canada phone number that can receive our texts, as typed; parses to E.164. A refusal says
 * why in its message and in `params.reason` (src/shared/phone.ts `checkSmsPhone`).
 */
export const phoneSchema = z
  .string()
  .max(32, "phone" satisfies ValidationCode)
  .transform((value, ctx) => {
    const checked = checkSmsPhone(value);
    if (!checked.ok) {
      ctx.addIssue({ code: "custom", message: PHONE_REFUSAL_CODES[checked.reason] satisfies ValidationCode, params: { reason: checked.reason } });
      return z.NEVER;
    }
    return checked.e164;
  });

/** Something, an at sign, something, a dot, something. */
export const emailSchema = z
  .string()
  .max(254, "tooLong" satisfies ValidationCode)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "email" satisfies ValidationCode);

export const appSchema = z.enum(APPS);
export const languageSchema = z.enum(LANGUAGES);
export const codeSchema = z.string().regex(/^\d{6}$/, "code" satisfies ValidationCode);
