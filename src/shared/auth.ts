import { z } from "zod";
import { normalizeUsPhone } from "./phone";

/** Spec §5: at least 8 characters with a number, an uppercase letter and a special character. */
export const passwordSchema = z
  .string()
  .min(8, "At least 8 characters")
  .max(256, "At most 256 characters")
  .regex(/\d/, "Include a number")
  .regex(/[A-Z]/, "Include an uppercase letter")
  .regex(/[^A-Za-z0-9]/, "Include a special character");

/** A US/Canada phone number as typed; parses to E.164. */
export const phoneSchema = z
  .string()
  .max(32)
  .transform((value, ctx) => {
    const e164 = normalizeUsPhone(value);
    if (!e164) {
      ctx.addIssue({ code: "custom", message: "Enter a US or Canada phone number" });
      return z.NEVER;
    }
    return e164;
  });

/** Spec §5: something, an at sign, something, a dot, something. */
export const emailSchema = z
  .string()
  .max(254)
  .regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/, "Enter a valid email");

export const appSchema = z.enum(["flex", "spark"]);
export const languageSchema = z.enum(["en", "es"]);
export const codeSchema = z.string().regex(/^\d{6}$/, "Enter the 6-digit code");
