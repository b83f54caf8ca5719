/**
 * Flex drivers for the benches that run engines (bench/engine.ts, bench/live.ts), seeded straight
 * into a bench's own database: users, their sessions' refresh-token families, platform accounts
 * with tokens from the fake platform sealed as the app seals them, stations, filters (three of the
 * fake's nine stations each, every hour of every day); each one's ID token is signed with the
 * build's local key for its session. A thousand password sign-ins would spend the run in PBKDF2
 * and trip the per-address sign-in limit.
 */
import { createHash, randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { importJWK, SignJWT } from "jose";
import { sealSecret } from "../src/worker/auth/secret-box.ts";
import { displayName, stationArea, stationCode } from "../src/worker/platform/station-zones.ts";
import { DEFAULT_STATIONS } from "../test/fake-platform/server.ts";
import { run } from "./harness.ts";

export type SeededDriver = { userId: number; driverId: string; token: string; stations: string[] };
type SeedOptions = {
  platformUrl: string;
  /** The bench's persisted state (wrangler's --persist-to). */
  state: string;
  /** The build's .dev.vars (devVarsOf): the key that signs ID tokens, the one that seals platform tokens. */
  vars: Record<string, string>;
  count: number;
  /** The first user id (each bench its own range). */
  userBase: number;
  /** The minimum pay of the i-th driver's filters, cents (none by default). */
  minPayOf?: (i: number) => number;
};

const stationIds = DEFAULT_STATIONS.flex.map((s) => s.serviceAreaId);

/**
 * A Flex connection as the product makes one (src/worker/platform/connection.ts): the fake's
 * sign-in page answered, then the device registered with the code and the PKCE verifier.
 */
async function flexTokens(platformUrl: string, email: string, now: number) {
  const verifier = randomBytes(32).toString("base64url");
  const serial = randomBytes(16).toString("hex");
  const clientId = Buffer.from(`${serial}#A1MPSLFC7L5AFK`).toString("hex");
  const form = new URLSearchParams({
    "openid.return_to": `${platformUrl}/flex/ap/maplanding`,
    "openid.oa2.code_challenge": createHash("sha256").update(verifier).digest("base64url"),
    "openid.oa2.code_challenge_method": "S256",
    "openid.oa2.client_id": `device:${clientId}`,
    step: "password",
    email,
    password: "pw",
  });
  const page = await fetch(`${platformUrl}/flex/ap/signin`, { method: "POST", redirect: "manual", body: form, signal: AbortSignal.timeout(20_000) });
  const code = new URL(page.headers.get("Location") ?? "http://x/").searchParams.get("openid.oa2.authorization_code");
  if (!code) throw new Error(`the fake's sign-in page gave no code for ${email} (${page.status})`);
  const registered = (await (
    await fetch(`${platformUrl}/flex/auth/register`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      signal: AbortSignal.timeout(20_000),
      body: JSON.stringify({
        auth_data: { authorization_code: code, code_verifier: verifier, code_algorithm: "SHA-256", client_id: clientId, client_domain: "DeviceLegacy" },
        registration_data: { domain: "Device", app_name: "com.amazon.rabbit", app_version: "303338310", device_type: "A1MPSLFC7L5AFK", device_serial: serial },
      }),
    })
  ).json()) as { response: { success: { tokens: { bearer: { access_token: string; refresh_token: string; expires_in: string } } } } };
  const bearer = registered.response.success.tokens.bearer;
  return {
    accessToken: bearer.access_token,
    refreshToken: bearer.refresh_token,
    accessExpiresAt: now + Number(bearer.expires_in) * 1000,
    device: { serial, instanceId: randomUUID().toUpperCase() },
  };
}

export async function seedFlexDrivers(opts: SeedOptions): Promise<SeededDriver[]> {
  const { platformUrl, state, vars, count, userBase, minPayOf = () => 0 } = opts;
  const control = (what: string, body: unknown) =>
    fetch(`${platformUrl}/__control/${what}`, { method: "POST", body: JSON.stringify(body), signal: AbortSignal.timeout(20_000) }).then(
      (r) => r.json() as Promise<Record<string, unknown>>,
    );
  const key = await importJWK(JSON.parse(vars.JWT_PRIVATE_JWK!) as Parameters<typeof importJWK>[0], "ES256");
  const now = Date.now();
  const rows: string[] = [];
  const q = (v: string | number | null) => (v === null ? "NULL" : typeof v === "number" ? String(v) : `'${v.replace(/'/g, "''")}'`);
  // The stations as the catalogue keeps them: the platform's name, and the city and zone its code gives.
  const stationValues = DEFAULT_STATIONS.flex.map((s) => {
    const name = displayName(s.name);
    const area = stationArea(stationCode(name));
    return `('flex', ${q(s.serviceAreaId)}, ${q(name)}, ${q(area?.city ?? null)}, ${q(area?.timeZone ?? null)}, ${now})`;
  });
  rows.push(`INSERT OR IGNORE INTO stations (app, id, name, city, time_zone, updated_at) VALUES ${stationValues.join(", ")};`);
  const drivers: SeededDriver[] = [];
  // Whole day and noon to noon: a block belongs to the day it starts on, so this takes a block of up
  // to 12 hours whatever the hour the bench runs at, past midnight included.
  const anyTime = [
    { start: "00:00", end: "00:00" },
    { start: "12:00", end: "12:00" },
  ];
  const whole = JSON.stringify(Object.fromEntries(["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, anyTime])));
  for (let i = 0; i < count; i++) {
    const userId = userBase + i;
    const email = `bench-${i}@example.com`;
    const { driverId, customerId, name } = (await control("accounts", { email, password: "pw" })) as { driverId: string; customerId: string; name: string };
    const tokens = await flexTokens(platformUrl, email, now);
    const sealed = await sealSecret(JSON.stringify(tokens), vars.MFA_ENCRYPTION_KEY!);
    // Three stations each, spread over the nine.
    const mine = [0, 1, 2].map((k) => stationIds[(i + k * 3) % stationIds.length]!);
    const minPay = minPayOf(i);
    const phone = `+1646${String(2_000_000 + i).padStart(7, "0")}`;
    const family = `bench-${randomBytes(8).toString("hex")}`;
    rows.push(
      `INSERT INTO users (id, app, phone, phone_verified, name, invite_code, expiration_at, good_standing, account_connected, setup_complete, status, sms_opt_out) VALUES (${userId}, 'flex', ${q(phone)}, 1, ${q(`Bench Driver ${i}`)}, ${q(`BENCH${i}`)}, ${now + 7 * 86_400_000}, 1, 1, 1, 'stop', 1);`,
      `INSERT INTO refresh_tokens (token_hash, family, user_id, expires_at, created_at) VALUES (${q(randomBytes(32).toString("hex"))}, ${q(family)}, ${userId}, ${now + 30 * 86_400_000}, ${now});`,
      `INSERT INTO platform_accounts (user_id, app, customer_id, account_name, sealed_tokens, connected_at, updated_at) VALUES (${userId}, 'flex', ${q(customerId)}, ${q(name)}, ${q(sealed)}, ${now}, ${now});`,
      `INSERT INTO driver_filters (user_id, stations, min_pay_cents, min_hourly_cents, arrival_buffer_minutes, min_duration_minutes, max_duration_minutes, schedule, daily_cap_minutes, updated_at) VALUES (${userId}, ${q(JSON.stringify(mine.map((id) => ({ id }))))}, ${minPay}, 0, 30, 0, 0, ${q(whole)}, 0, ${now});`,
    );
    const iat = Math.floor(now / 1000);
    const token = await new SignJWT({ sid: family, phone_number: phone, phone_number_verified: true, app: "flex", is_admin: false })
      .setProtectedHeader({ alg: "ES256", typ: "id+jwt" })
      .setIssuer("blockpilot")
      .setAudience("blockpilot-app")
      .setSubject(String(userId))
      .setIssuedAt(iat)
      .setExpirationTime(iat + 3600)
      .sign(key);
    drivers.push({ userId, driverId, token, stations: mine });
  }
  mkdirSync(".seed", { recursive: true });
  const file = `.seed/bench-drivers-${process.pid}.sql`;
  writeFileSync(file, rows.join("\n"));
  run("wrangler", ["d1", "execute", "DB", "--local", `--persist-to=${state}`, `--file=${file}`]);
  rmSync(file, { force: true });
  return drivers;
}
