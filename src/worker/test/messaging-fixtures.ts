import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { startRefreshFamily } from "../auth/refresh-tokens";
import { signIdToken } from "../auth/tokens";
import { createDb } from "../db/client";

/**
 * Test data for the messaging tests. Every helper makes fresh, unique rows (phones, invite codes,
 * regions, referral codes), so tests never share ids, never depend on order, and a count filtered
 * by a test's own region or referral is exact whatever else the database holds.
 */

let seq = Math.floor(Math.random() * 9_000_000);

/** Area codes in service in the US and Canada (src/shared/phone.ts refuses the rest for texting). */
const AREA_CODES = ["212", "305", "312", "415", "416", "512", "617", "646", "713", "786"];

/** A unique number we may text, in E.164 (unique across 100,000 consecutive calls: area and line come from the sequence). */
export function uniquePhone(): string {
  seq += 1;
  const area = AREA_CODES[Math.floor(seq / 10_000) % AREA_CODES.length]!;
  let exchange = 200 + (Math.floor(seq / 7) % 800);
  // N11 exchanges (211 … 911) are service codes, not numbers.
  if (exchange % 100 === 11) exchange += 1;
  return `+1${area}${exchange}${String(seq % 10_000).padStart(4, "0")}`;
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

export type UserRow = {
  app?: "flex" | "spark";
  phone?: string;
  name?: string;
  email?: string | null;
  isAdmin?: boolean;
  roleName?: string | null;
  billingDetails?: boolean;
  createdAt?: number;
  expirationAt?: number | null;
  goodStanding?: boolean;
  humanRegion?: string | null;
  deliveryArea?: string | null;
  accountConnected?: boolean;
  setupComplete?: boolean;
  status?: "start" | "stop";
  referralCode?: string | null;
  stripeExpressId?: string | null;
  smsOptOut?: boolean;
  whatsappOptOut?: boolean;
};

export async function createUser(u: UserRow = {}): Promise<{ id: number; phone: string; name: string }> {
  const phone = u.phone ?? uniquePhone();
  const name = u.name ?? `Driver ${phone.slice(-4)}`;
  const row = await env.DB.prepare(
    `INSERT INTO users (app, phone, phone_verified, name, email, is_admin, role_name, role_properties, created_at, expiration_at, good_standing,
       human_region, delivery_area, account_connected, setup_complete, status, referral_code, invite_code, stripe_express_id, sms_opt_out, whatsapp_opt_out)
     VALUES (?, ?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
    .bind(
      u.app ?? "flex",
      phone,
      name,
      u.email ?? null,
      u.isAdmin ? 1 : 0,
      u.roleName ?? null,
      u.isAdmin ? JSON.stringify({ billingDetails: u.billingDetails ?? false }) : null,
      u.createdAt ?? Date.now(),
      u.expirationAt ?? null,
      u.goodStanding ? 1 : 0,
      u.humanRegion ?? null,
      u.deliveryArea ?? null,
      u.accountConnected ? 1 : 0,
      u.setupComplete ? 1 : 0,
      u.status ?? "stop",
      u.referralCode ?? null,
      uniqueTag("INV"),
      u.stripeExpressId ?? null,
      u.smsOptOut ? 1 : 0,
      u.whatsappOptOut ? 1 : 0,
    )
    .first<{ id: number }>();
  return { id: row!.id, phone, name };
}

/** An ID token for a fresh session of the user (a real refresh family, as a sign-in makes). */
export async function tokenFor(user: { id: number; phone: string }, opts: { isAdmin?: boolean; app?: "flex" | "spark" } = {}): Promise<string> {
  const { family } = await startRefreshFamily(createDb(env.DB), user.id, { passedTotp: opts.isAdmin ?? false });
  return signIdToken(env, {
    sub: String(user.id),
    sid: family,
    phone_number: user.phone,
    phone_number_verified: true,
    app: opts.app ?? "flex",
    is_admin: opts.isAdmin ?? false,
  });
}

/** A signed-in admin: the owner (billingDetails), a support admin (no billingDetails), or a plain driver. */
export async function signIn(kind: "owner" | "support" | "billing" | "driver") {
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

export async function invite(phone: string, opts: { invitedAt?: number; freeWeek?: boolean; app?: "flex" | "spark"; inviterId?: number } = {}) {
  const inviter = opts.inviterId ?? (await createUser()).id;
  await env.DB.prepare("INSERT INTO invitations (inviter_id, app, phone, invited_at, free_week) VALUES (?, ?, ?, ?, ?)")
    .bind(inviter, opts.app ?? "flex", phone, opts.invitedAt ?? Date.now(), opts.freeWeek ? 1 : 0)
    .run();
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
