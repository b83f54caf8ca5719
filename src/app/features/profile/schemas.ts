import { emailSchema, languageSchema, passwordSchema } from "../../../shared/auth";
import type { ValidationCode } from "../../../shared/validation";
import { z } from "../../../shared/zod";
import { mismatch, optionalText, required } from "../../lib/forms";

/** Built from the Worker's own schemas (src/shared/auth.ts); messages are validation codes. */
export const profileSchema = z.object({
  name: required(
    z
      .string()
      .trim()
      .max(100, "tooLong" satisfies ValidationCode),
  ),
  email: optionalText(z.string().trim().pipe(emailSchema)),
  language: languageSchema,
});

export const changePasswordSchema = z
  .object({ currentPassword: required(z.string()), newPassword: required(passwordSchema), confirmPassword: required(z.string()) })
  .refine((v) => v.newPassword === v.confirmPassword, mismatch("confirmPassword"));
