import { appSchema, codeSchema, emailSchema, passwordSchema, phoneSchema } from "../../../shared/auth";
import { z } from "../../../shared/zod";
import { mismatch, optionalText as optional } from "../../components/ui/use-form";

/**
 * The identity forms, built from the schemas the Worker validates with (src/shared/auth.ts), so a
 * form the browser accepts is one the server accepts. Our own messages are translation keys.
 */
const trimmed = z.string().trim();

export const loginSchema = z.object({ phoneNumber: phoneSchema, password: z.string().min(1), app: appSchema });
export const smsLoginSchema = z.object({ phoneNumber: phoneSchema, app: appSchema });

export const registerSchema = z
  .object({
    name: trimmed.min(1).max(100, "auth:validation.tooLong"),
    phoneNumber: phoneSchema,
    email: optional(z.string().trim().pipe(emailSchema)),
    password: passwordSchema,
    confirmPassword: z.string(),
    app: appSchema,
    referralCode: optional(trimmed.max(40, "auth:validation.tooLong")),
  })
  .refine((v) => v.password === v.confirmPassword, mismatch("confirmPassword"));

export const confirmSchema = z.object({ phoneNumber: phoneSchema, app: appSchema, code: codeSchema });
export const phoneOnlySchema = z.object({ phoneNumber: phoneSchema, app: appSchema });

export const resetSchema = z
  .object({ code: codeSchema, newPassword: passwordSchema, confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, mismatch("confirmPassword"));

export const codeOnlySchema = z.object({ code: codeSchema });
export const newPasswordSchema = z
  .object({ newPassword: passwordSchema, confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, mismatch("confirmPassword"));
