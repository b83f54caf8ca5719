import { emailSchema, languageSchema, passwordSchema } from "../../../shared/auth";
import { NOTIFICATION_CHANNELS, type NotificationEvent } from "../../../shared/notifications";
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

/** A select per event: "" is no choice (the default), sent as null, which clears a stored one. */
const channelChoice = z.union([z.literal(""), z.enum(NOTIFICATION_CHANNELS)]).transform((value) => (value === "" ? null : value));

/** The profile's notifications form: its values are the `channels` of PUT /api/driver/notifications. */
export const notificationChoicesSchema = z.object({
  blockWon: channelChoice,
  searchStopped: channelChoice,
  serviceEnding: channelChoice,
} satisfies Record<NotificationEvent, unknown>);
