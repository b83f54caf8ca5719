import { eq } from "drizzle-orm";
import { expect } from "vitest";
import { users, verificationCodes } from "../db/schema";
import { call, codeIn, db, lastOutboxId, nextSms, PASSWORD, typed } from "./fixtures";

/** Helpers of the identity routes' tests (routes/auth*.test.ts). */

export const NEW_PASSWORD = "Fresh#Start9";

export function register(body: Record<string, unknown>, address?: string) {
  return call("/api/auth/register", { body: { password: PASSWORD, name: "New Driver", app: "flex", ...body }, address });
}

export async function registerAndGetCode(phone: string, extra: Record<string, unknown> = {}) {
  const before = await lastOutboxId();
  const res = await register({ phoneNumber: typed(phone), ...extra });
  expect(res.status).toBe(201);
  return codeIn((await nextSms(phone, before)).body);
}

export const userByPhone = (phone: string) => db.query.users.findFirst({ where: eq(users.phone, phone) });
export const countRows = async (phone: string) => (await db.select().from(users).where(eq(users.phone, phone))).length;

/** Moves a code's expiry into the past, as ten minutes passing would. */
export async function expireCodes(phone: string) {
  await db
    .update(verificationCodes)
    .set({ expiresAt: Date.now() - 1 })
    .where(eq(verificationCodes.phone, phone));
}
