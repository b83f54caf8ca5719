import { emailSchema, languageSchema, passwordSchema } from "../../../shared/auth";
import { z } from "../../../shared/zod";
import { mismatch, optionalText } from "../../components/ui/use-form";

/** Built from the Worker's own schemas (src/shared/auth.ts); our messages are translation keys. */
export const profileSchema = z.object({
  name: z.string().trim().min(1).max(100, "auth:validation.tooLong"),
  email: optionalText(z.string().trim().pipe(emailSchema)),
  language: languageSchema,
});

export const changePasswordSchema = z
  .object({ currentPassword: z.string().min(1), newPassword: passwordSchema, confirmPassword: z.string() })
  .refine((v) => v.newPassword === v.confirmPassword, mismatch("confirmPassword"));
