/**
 * The Worker tests' one fixture module: each test seeds its own rows (random phones, unique tags,
 * invite codes, regions and referral codes) and calls the real Worker, so tests share nothing,
 * never depend on order, and a count filtered by a test's own region or referral is exact whatever
 * else the database holds. Area-specific data builders (plans, checkouts) sit beside it and build
 * on it (billing-fixtures.ts).
 */
import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { and, desc, eq, gt } from "drizzle-orm";
import { vi } from "vitest";
import { hashPassword } from "../auth/password";
import { randomBelow, randomInviteCode } from "../auth/random";
import { startRefreshFamily } from "../auth/refresh-tokens";
import { sealSecret } from "../auth/secret-box";
import { signIdToken } from "../auth/tokens";
import { generateTotpSecret, totpCode } from "../auth/totp";
import { createDb } from "../db/client";
import { invitations, outbox, users } from "../db/schema";

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

// biome-ignore lint/suspicious/noExplicitAny: tests read answers loosely and pin their shape with expect().
export async function json<T = Record<string, any>>(res: Response): Promise<T> {
  return (await res.json()) as T;
}

/** Area codes in service in the US and Canada (src/shared/phone.ts refuses the rest for texting). */
const AREA_CODES = (
  "201 202 206 212 213 214 215 216 303 305 310 312 313 314 404 407 412 415 416 469 503 504 512 602 604 612 614 617 " +
  "646 702 704 713 718 720 786 801 813 905 916 954"
).split(" ");

/** A random number we may text (E.164) that no other test uses. */
/** Every number uniquePhone handed out in this run (the Worker test files share one module graph): random ones meet by chance. */
const issuedPhones = new Set<string>();

export function uniquePhone(): string {
  for (;;) {
    const area = AREA_CODES[randomBelow(AREA_CODES.length)]!;
    let exchange = 200 + randomBelow(800);
    // N11 exchanges (211 … 911) are service codes, not numbers.
    if (exchange % 100 === 11) exchange += 1;
    const phone = `+1${area}${exchange}${String(randomBelow(10_000)).padStart(4, "0")}`;
    if (issuedPhones.has(phone)) continue;
    issuedPhones.add(phone);
    return phone;
  }
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
    // A driver's texts go out by the queue (notifications/deliver.ts), which hands over a batch after up to a second.
    { timeout: 5000, interval: 10 },
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

/** A message the fake provider accepted (test/fake-provider/server.ts AcceptedMessage). */
export type FakeAccepted = {
  id: string;
  channel: string;
  to: string;
  from: string;
  body: string;
  at: number;
  statusCallback?: string;
  reference?: string;
  unanswered?: boolean;
};

export const uniqueTag = (prefix: string) => `${prefix}-${crypto.randomUUID().slice(0, 8)}`;

/** The columns the messaging tests set, plus `billingDetails` for an administrator's role. */
export type DriverOptions = Omit<SeedOptions, "password" | "totpSecret" | "roleProperties"> & { billingDetails?: boolean };

/** A driver (or an administrator) without a password: no PBKDF2 work for tests that never sign in with one. */
export async function createUser(options: DriverOptions = {}): Promise<{ id: number; phone: string; name: string }> {
  const { billingDetails, ...columns } = options;
  const phone = columns.phone ?? uniquePhone();
  const row = await seedUser({
    password: null,
    name: `Driver ${phone.slice(-4)}`,
    ...columns,
    phone,
    roleProperties: columns.isAdmin ? { billingDetails: billingDetails ?? false } : null,
  });
  return { id: row.id, phone: row.phone, name: row.name };
}

/** An ID token for a fresh session of the user (a real refresh family, as a sign-in makes), without the password round trip. */
export async function tokenFor(
  user: { id: number; phone: string; app?: "flex" | "spark"; isAdmin?: boolean; phoneVerified?: boolean },
  opts: { isAdmin?: boolean; app?: "flex" | "spark" } = {},
): Promise<string> {
  const isAdmin = opts.isAdmin ?? user.isAdmin ?? false;
  const { family } = await startRefreshFamily(db, user.id, { passedTotp: isAdmin });
  return signIdToken(env, {
    sub: String(user.id),
    sid: family,
    phone_number: user.phone,
    phone_number_verified: user.phoneVerified ?? true,
    app: opts.app ?? user.app ?? "flex",
    is_admin: isAdmin,
  });
}

/** A signed-in administrator of a kind: the owner (billingDetails), a support admin (none), a billing admin, or a plain driver. */
export async function signInAs(kind: "owner" | "support" | "billing" | "driver") {
  const user = await createUser(
    kind === "driver"
      ? {}
      : {
          isAdmin: true,
          roleName: kind === "owner" ? "owner" : kind === "billing" ? "finance" : "support",
          billingDetails: kind !== "support",
          name: `${kind} admin`,
        },
  );
  return { user, token: await tokenFor(user, { isAdmin: kind !== "driver" }) };
}

/** A request to the real Worker as `fetch` takes it, with an ID token and a JSON body when given. */
export function api(path: string, init: RequestInit & { token?: string; json?: unknown } = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  if (init.token) headers.set("Authorization", `Bearer ${init.token}`);
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("Content-Type", "application/json");
    body = JSON.stringify(init.json);
  }
  return exports.default.fetch(new Request(`https://bp.test${path}`, { ...init, headers, body }));
}

/** An invitation of `phone` (by a fresh inviter unless one is given). */
export async function invite(phone: string, opts: { invitedAt?: number; freeWeek?: boolean; app?: "flex" | "spark"; inviterId?: number } = {}) {
  const inviter = opts.inviterId ?? (await createUser()).id;
  await db
    .insert(invitations)
    .values({ inviterId: inviter, app: opts.app ?? "flex", phone, invitedAt: opts.invitedAt ?? Date.now(), freeWeek: opts.freeWeek ?? false });
  return inviter;
}
/** A private corner of the fake provider: its own configuration, rate bucket and records. */
export function fakeTenant(name = uniqueTag("t")) {
  const base = `${env.FAKE_PROVIDER_URL}/t/${name}`;
  const control = (path: string, init?: RequestInit) => fetch(`${base}/__control/${path}`, init).then((r) => r.json());
  return {
    base,
    configure: (config: Record<string, unknown>) => control("config", { method: "POST", body: JSON.stringify(config) }),
    messages: () => control("messages") as Promise<{ messages: FakeAccepted[] }>,
    stats: () =>
      control("stats") as Promise<{
        accepted: number;
        distinct: number;
        duplicates: number;
        rejected: Record<string, number>;
        templateLists: number;
      }>,
    /** The Worker's env pointed at this tenant with the real Twilio and Cloud API adapters. */
    env: (overrides: Partial<Env> = {}): Env => ({
      ...env,
      SMS_PROVIDER: "twilio",
      WHATSAPP_PROVIDER: "cloud-api",
      TWILIO_API_BASE: base,
      WHATSAPP_API_BASE: `${base}/v21.0`,
      ...overrides,
    }),
  };
}
