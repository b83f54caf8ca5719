import { z } from "zod";
import { checkSmsPhone, PHONE_REFUSAL_MESSAGES } from "./phone";

/** Spec §5: at least 8 characters with a number, an uppercase letter and a special character. */
export const passwordSchema = z
  .string()
  .min(8, "At least 8 characters")
  .max(256, "At most 256 characters")
  .regex(/\d/, "Include a number")
  .regex(/[A-Z]/, "Include an uppercase letter")
  .regex(/[^A-Za-z0-9]/, "Include a special character");

/**
 * A US/Canada phone number that can receive our texts, as typed; parses to E.164. A refusal says
 * why in its message and in `params.reason` (src/shared/phone.ts `checkSmsPhone`).
 */
export const phoneSchema = z
  .string()
  .max(32)
  .transform((value, ctx) => {
    const checked = checkSmsPhone(value);
    if (!checked.ok) {
      ctx.addIssue({ code: "custom", message: PHONE_REFUSAL_MESSAGES[checked.reason], params: { reason: checked.reason } });
      return z.NEVER;
    }
    return checked.e164;
  });

/** Spec §5: something, an at sign, something, a dot, something. */
export const emailSchema = z
  .string()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Enter a valid email");

export const appSchema = z.enum(["flex", "spark"]);
export const languageSchema = z.enum(["en", "es"]);
export const codeSchema = z.string().regex(/^\d{6}$/, "Enter the 6-digit code");
