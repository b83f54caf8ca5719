/** Helpers of the identity attacks' tests (routes/auth-security.test.ts and the files beside it). */
import { expect, vi } from "vitest";
import { call, codeIn, lastOutboxId, nextSms, typed } from "./fixtures";

export const SQUATTER_PASSWORD = "Squat#2026!";
export const OWNER_PASSWORD = "Owner#Own3d!";

export type Step = { tokens?: { idToken: string; refreshToken: string }; challenge?: string; session?: string; parameters?: { secret: string } };

export const post = (path: string, body: unknown, options: { token?: string; address?: string } = {}) => call(path, { body, ...options });
export const respond = (body: Record<string, unknown>) => post("/api/auth/respond", body);
export const passwordSignIn = (phone: string, password: string, address?: string) =>
  post("/api/auth/sign-in", { phoneNumber: phone, app: "flex", password }, { address });

/** Someone registers a phone that is not theirs; the code goes to the real owner. */
export async function squat(phone: string) {
  const before = await lastOutboxId();
  expect((await post("/api/auth/register", { phoneNumber: typed(phone), password: SQUATTER_PASSWORD, name: "Squatter", app: "flex" })).status).toBe(201);
  return codeIn((await nextSms(phone, before)).body);
}

/** After each test: the real clock again, and no spy left on crypto or the console. */
export function restoreClockAndMocks() {
  vi.useRealTimers();
  vi.restoreAllMocks();
}
