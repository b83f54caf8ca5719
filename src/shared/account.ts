import { codeSchema } from "./auth";
import type { ValidationCode } from "./validation";
import { z } from "./zod";

/**
 * What an erased account's phone becomes (src/worker/account/erase.ts): a tombstone, not a number,
 * so the number can register again and no audience, lead or sign-in reaches the row.
 */
export const ERASED_PHONE_PREFIX = "erased:";
export const isErasedPhone = (phone: string) => phone.startsWith(ERASED_PHONE_PREFIX);

/** The word typed to confirm an account's deletion, in each language (either is accepted). */
export const DELETE_CONFIRMATION_WORDS = { en: "DELETE", es: "ELIMINAR" } as const;

const confirmationSchema = z
  .string()
  .trim()
  .refine((value) => Object.values(DELETE_CONFIRMATION_WORDS).includes(value.toUpperCase() as "DELETE"), "invalid" satisfies ValidationCode);

/** POST /api/account/delete: the password, or for an account without one the texted code, and the typed word. */
export const deleteAccountSchema = z
  .object({
    password: z
      .string()
      .min(1, "required" satisfies ValidationCode)
      .max(256)
      .optional(),
    code: codeSchema.optional(),
    confirmation: confirmationSchema,
  })
  .strict()
  .refine((body) => (body.password === undefined) !== (body.code === undefined), { message: "Send the password or the code", path: ["password"] });

/** POST /api/admin/users/:id/erase: the written request's reference and the typed word. */
export const adminEraseSchema = z
  .object({
    reference: z.string().trim().min(3, "Name the written request (at least 3 characters)").max(500),
    confirmation: confirmationSchema,
  })
  .strict();

/** How the account proves itself before deletion: its password, or a code texted to it. */
export type DeleteReauth = { method: "password" } | { method: "code"; destination: string };
