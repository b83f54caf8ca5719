/**
 * Test-only helpers for the identity tests: each test seeds its own users with random phones and
 * calls the real Worker, so tests share nothing and can run in any order.
 */
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { and, desc, eq, gt } from "drizzle-orm";
import { vi } from "vitest";
import { createDb } from "../db/client";
import { outbox, users } from "../db/schema";
import { hashPassword } from "./password";
import { randomBelow, randomInviteCode } from "./random";
import { sealSecret } from "./secret-box";
import { generateTotpSecret, totpCode } from "./totp";

export const db = createDb(env.DB);

export type CallOptions = { method?: string; body?: unknown; token?: string; address?: string; headers?: Record<string, string> };

/** A request to the real Worker; every call gets its own client address unless one is given. */
export function call(path: string, options: CallOptions = {}): Promise<Response> {
  const headers: Record<string, string> = { "CF-Connecting-IP": options.address ?? uniqueAddress(), ...options.headers };
  if (options.body !== undefined) headers["content-type"] = "application/json";
  if (options.token) headers.Authorization = `Bearer ${options.token}`;
  return exports.default.fetch(
    new Request(`https://bp.test${path}`, {
      method: options.method ?? (options.body === undefined ? "GET" : "POST"),
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
    }),
  );
}

export async function json<T = Record<string, any>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Area codes in service in the US and Canada (src/shared/phone.ts refuses the rest for texting). */
const AREA_CODES = (
  "201 202 206 212 213 214 215 216 303 305 310 312 313 314 404 407 412 415 416 469 503 504 512 602 604 612 614 617 " +
  "646 702 704 713 718 720 786 801 813 905 916 954"
).split(" ");

/** A random number we may text (E.164) that no other test uses. */
export function uniquePhone(): string {
  const area = AREA_CODES[randomBelow(AREA_CODES.length)]!;
  let exchange = 200 + randomBelow(800);
  // N11 exchanges (211 … 911) are service codes, not numbers.
  if (exchange % 100 === 11) exchange += 1;
  return `+1${area}${exchange}${String(randomBelow(10_000)).padStart(4, "0")}`;
}

/** How people type it: "(305) 555-0100". */
export function typed(e164: string): string {
  return `(${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`;
}

export function uniqueAddress(): string {
  return `10.${randomBelow(256)}.${randomBelow(256)}.${1 + randomBelow(254)}`;
}

export const PASSWORD = "Driver#2026!";

export type SeedOptions = Partial<typeof users.$inferInsert> & { password?: string | null; totpSecret?: string };

/** Inserts a user straight into D1 (a verified Flex driver unless told otherwise). */
export async function seedUser(options: SeedOptions = {}) {
  const { password = PASSWORD, totpSecret, ...columns } = options;
  const row = await db
    .insert(users)
    .values({
      app: "flex",
      phone: uniquePhone(),
      phoneVerified: true,
      name: "Test Driver",
      passwordHash: password === null ? null : await hashPassword(password, env.PASSWORD_PEPPER),
      inviteCode: randomInviteCode(),
      ...(totpSecret ? { mfaMethod: "totp" as const, mfaSecret: await sealSecret(totpSecret, env.MFA_ENCRYPTION_KEY) } : {}),
      ...columns,
    })
    .returning()
    .get();
  return { ...row, password };
}

/** An administrator with TOTP enrolled; `totpSecret` is what an authenticator app would hold. */
export async function seedAdmin(options: SeedOptions = {}) {
  const totpSecret = options.totpSecret ?? generateTotpSecret();
  const user = await seedUser({ isAdmin: true, roleName: "owner", roleProperties: { billingDetails: true }, name: "Test Admin", ...options, totpSecret });
  return { ...user, totpSecret };
}

/** The newest outbox SMS to a phone after `afterId`, waiting for the background send to land. */
export async function nextSms(phone: string, afterId = 0) {
  return vi.waitFor(
    async () => {
      const row = await db
        .select()
        .from(outbox)
        .where(and(eq(outbox.to, phone), gt(outbox.id, afterId)))
        .orderBy(desc(outbox.id))
        .limit(1)
        .get();
      if (!row) throw new Error(`no SMS to ${phone} yet`);
      return row;
    },
    { timeout: 2000, interval: 10 },
  );
}

export async function lastOutboxId(): Promise<number> {
  const row = await db.select({ id: outbox.id }).from(outbox).orderBy(desc(outbox.id)).limit(1).get();
  return row?.id ?? 0;
}

export function codeIn(body: string): string {
  const match = /\b(\d{6})\b/.exec(body);
  if (!match) throw new Error(`no code in "${body}"`);
  return match[1]!;
}

export type Tokens = { idToken: string; refreshToken: string; expiresIn: number };

/** Signs in a user who owes no challenge and returns the tokens. */
export async function signIn(user: { app: string; phone: string; password: string | null }): Promise<Tokens> {
  const res = await call("/api/auth/sign-in", { body: { phoneNumber: user.phone, app: user.app, password: user.password } });
  const body = await json(res);
  if (res.status !== 200 || !body.tokens) throw new Error(`sign-in failed: ${res.status} ${JSON.stringify(body)}`);
  return body.tokens as Tokens;
}

/** Signs in an administrator through the real TOTP challenge and returns the tokens. */
export async function signInAdmin(admin: { app: string; phone: string; password: string | null; totpSecret: string }): Promise<Tokens> {
  const step = await json(await call("/api/auth/sign-in", { body: { phoneNumber: admin.phone, app: admin.app, password: admin.password } }));
  if (step.challenge !== "SOFTWARE_TOKEN_MFA") throw new Error(`expected SOFTWARE_TOKEN_MFA, got ${JSON.stringify(step)}`);
  const res = await call("/api/auth/respond", { body: { challenge: "SOFTWARE_TOKEN_MFA", session: step.session, code: await totpCode(admin.totpSecret) } });
  const body = await json(res);
  if (!body.tokens) throw new Error(`TOTP answer failed: ${res.status} ${JSON.stringify(body)}`);
  return body.tokens as Tokens;
}
