import type { Db } from "../db/client";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { randomInviteCode } from "./random";

export type NewUser = Omit<typeof users.$inferInsert, "id" | "inviteCode">;

/** How many invite codes are drawn before giving up: a clash is rare (2^39 codes), three in a row is a fault. */
const INVITE_CODE_DRAWS = 4;

function isUniqueViolation(err: unknown, index: string): boolean {
  const text = err instanceof Error ? `${err.message} ${err.cause instanceof Error ? err.cause.message : ""}` : String(err);
  return text.includes("UNIQUE constraint failed") && text.includes(index);
}

/**
 * The one way an account is written (registration, an administrator creating one): with a fresh
 * invite code, drawn again when it clashes with another account's, and a phone already registered
 * in the app answered as a 409, not a fault.
 */
export async function insertUser(db: Db, values: NewUser, drawInviteCode: () => string = randomInviteCode): Promise<typeof users.$inferSelect> {
  for (let draw = 1; ; draw++) {
    try {
      return await db
        .insert(users)
        .values({ ...values, inviteCode: drawInviteCode() })
        .returning()
        .get();
    } catch (err) {
      if (isUniqueViolation(err, "users.phone")) throw new ApiError("conflict", "An account with this phone number already exists");
      if (isUniqueViolation(err, "users.invite_code") && draw < INVITE_CODE_DRAWS) continue;
      throw err;
    }
  }
}
