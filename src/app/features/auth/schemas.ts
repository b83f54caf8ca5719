import { appSchema, codeSchema, emailSchema, passwordSchema, phoneSchema } from "../../../shared/auth";
import type { ValidationCode } from "../../../shared/validation";
import { z } from "../../../shared/zod";
import { mismatch, optionalText, required } from "../../lib/forms";

/**
 * The identity forms, built from the schemas the Worker validates with (src/shared/auth.ts), so a
 * form the browser accepts is one the server accepts. Messages are validation codes.
 */
const tooLong: ValidationCode = "tooLong";
const anything = z.string();

export const loginSchema = z.object({ phoneNumber: required(phoneSchema), password: required(anything), app: appSchema });
export const smsLoginSchema = z.object({ phoneNumber: required(phoneSchema), app: appSchema });

export const registerSchema = z
  .object({
    name: required(z.string().trim().max(100, tooLong)),
    phoneNumber: required(phoneSchema),
    email: optionalText(z.string().trim().pipe(emailSchema)),
    password: required(passwordSchema),
    confirmPassword: required(anything),
    app: appSchema,
    referralCode: optionalText(z.string().trim().max(40, tooLong)),
  })
  .refine((v) => v.password === v.confirmPassword, mismatch("confirmPassword"));

export const confirmSchema = z.object({ phoneNumber: required(phoneSchema), app: appSchema, code: required(codeSchema) });
export const phoneOnlySchema = z.object({ phoneNumber: required(phoneSchema), app: appSchema });

export const resetSchema = z
  .object({ code: required(codeSchema), newPassword: required(passwordSchema), confirmPassword: required(anything) })
  .refine((v) => v.newPassword === v.confirmPassword, mismatch("confirmPassword"));

export const codeOnlySchema = z.object({ code: required(codeSchema) });
export const newPasswordSchema = z
  .object({ newPassword: required(passwordSchema), confirmPassword: required(anything) })
  .refine((v) => v.newPassword === v.confirmPassword, mismatch("confirmPassword"));
