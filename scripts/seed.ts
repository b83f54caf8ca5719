/**
 * Demo data for local runs, idempotent (fixed ids and keys; re-running changes nothing but the
 * demo admins' credentials, which are reset to the printed ones).
 *
 *   npm run seed                     demo data: admins, ~300 Flex + ~100 Spark drivers, referrals,
 *                                    invitations, payments, offers, plans, stations, templates
 *   npm run seed -- --drivers 100000 also N extra Flex drivers for benchmarks
 *   npm run seed -- --print          only print the demo sign-in details
 */

import { spawnSync } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { REGISTRATION_CONSENT } from "../src/shared/consent-texts.ts";
import { hashPassword } from "../src/worker/auth/password.ts";
import { sealSecret } from "../src/worker/auth/secret-box.ts";
import { DEFAULT_STATIONS } from "../test/fake-platform/server.ts";
import { ensureDevVars, readDevVars } from "./dev-vars.ts";

export const DEMO = {
  owner: { phone: "+13055550100", password: "Owner#2026!", totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", name: "Olivia Owner" },
  support: { phone: "+13055550101", password: "Support#2026!", totp: "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU", name: "Sam Support" },
  driver: { phone: "+13055550102", password: "Driver#2026!", name: "Diego Driver" },
};

const FLEX_REGIONS = [
  "Miami",
  "Orlando",
  "Tampa",
  "Jacksonville",
  "Atlanta",
  "Dallas",
  "Houston",
  "Austin",
  "Phoenix",
  "Los Angeles",
  "San Diego",
  "Chicago",
  "Newark",
  "Charlotte",
  "Las Vegas",
  "Toronto",
];
const SPARK_AREAS = [
  "Kissimmee, FL",
  "Hialeah, FL",
  "Brandon, FL",
  "Mesa, AZ",
  "Plano, TX",
  "Pasadena, TX",
  "Aurora, IL",
  "Henderson, NV",
  "Mississauga, ON",
  "Marietta, GA",
];
const DEMO_RESELLER_CODE = "DIEGO10";
const REFERRALS = ["MIAMI10", "FLEXPRO", "SPARKUP", "TAMPA5", "ATL2026", "DALLASX", "ROADKING", "WELCOME"];
const FIRST = [
  "José",
  "María",
  "Luis",
  "Ana",
  "Carlos",
  "Sofía",
  "Miguel",
  "Lucía",
  "Juan",
  "Camila",
  "James",
  "Emily",
  "Michael",
  "Olivia",
  "David",
  "Emma",
  "Daniel",
  "Ava",
  "Kevin",
  "Grace",
  "André",
  "Fatima",
  "Wei",
  "Priya",
];
const LAST = [
  "García",
  "Rodríguez",
  "Martínez",
  "Hernández",
  "López",
  "González",
  "Pérez",
  "Sánchez",
  "Ramírez",
  "Torres",
  "Smith",
  "Johnson",
  "Williams",
  "Brown",
  "Jones",
  "Miller",
  "Davis",
  "Nguyen",
  "Kim",
  "Patel",
];
/** Why demo offers were disliked: the reasons evaluateOffer gives (src/shared/offer-filter.ts) and the engine's own. */
const DISLIKE_REASONS = [["pay"], ["station"], ["window"], ["duration"], ["buffer"], ["hourly"], ["pay", "hourly"], ["day"], ["overlap"]];
const DAY = 86_400_000;
const LEAD_MESSAGES = [
  "Hi, does it work for Spark in Kissimmee?",
  "¿Cuánto cuesta la semana? Quiero probar.",
  "I paid but my blocks are not showing up.",
  "Can I pay for two weeks at once?",
  "Necesito ayuda para conectar mi cuenta de Flex.",
];

// Deterministic pseudo-random numbers: the same demo data on every machine and every run.
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sqlValue = (v: unknown): string =>
  v === null || v === undefined ? "NULL" : typeof v === "number" ? String(v) : typeof v === "boolean" ? (v ? "1" : "0") : `'${String(v).replace(/'/g, "''")}'`;

function insert(table: string, rows: Record<string, unknown>[], conflict = "OR IGNORE", chunk = 200): string[] {
  if (rows.length === 0) return [];
  const cols = Object.keys(rows[0]!);
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += chunk) {
    const values = rows.slice(i, i + chunk).map((r) => `(${cols.map((c) => sqlValue(r[c])).join(",")})`);
    out.push(`INSERT ${conflict} INTO ${table} (${cols.join(",")}) VALUES ${values.join(",\n")};`);
  }
  return out;
}

type Driver = Record<string, unknown>;

function makeDriver(id: number, app: "flex" | "spark", phone: string, rand: () => number, now: number, passwordHash: string | null): Driver {
  const created = now - Math.floor(rand() * 240) * DAY - Math.floor(rand() * DAY);
  const paid = rand() < 0.7;
  const expiration = paid ? now + Math.floor((rand() * 40 - 12) * DAY) : null;
  const connected = rand() < 0.8;
  const setup = connected && rand() < 0.85;
  return {
    id,
    app,
    phone,
    phone_verified: rand() < 0.95,
    name: `${FIRST[Math.floor(rand() * FIRST.length)]} ${LAST[Math.floor(rand() * LAST.length)]}`,
    email: rand() < 0.6 ? `driver${id}@example.com` : null,
    password_hash: passwordHash,
    language: rand() < 0.45 ? "es" : "en",
    created_at: created,
    expiration_at: expiration,
    good_standing: expiration !== null && expiration > now,
    human_region: app === "flex" ? FLEX_REGIONS[Math.floor(rand() * FLEX_REGIONS.length)] : null,
    delivery_area: app === "spark" ? SPARK_AREAS[Math.floor(rand() * SPARK_AREAS.length)] : null,
    account_connected: connected,
    setup_complete: setup,
    status: setup && rand() < 0.6 ? "start" : "stop",
    referral_code: rand() < 0.5 ? REFERRALS[Math.floor(rand() * REFERRALS.length)] : null,
    invite_code: `D${id.toString(36).toUpperCase()}`,
    stripe_express_id: rand() < 0.08 ? `acct_demo${id}` : null,
  };
}

/**
 * The demo driver and the seeded Flex and Spark drivers, drawn first from the seed's random
 * sequence (demoStatements goes on drawing from it after them).
 */
function demoDrivers(rand: () => number, now: number, driverHash: string | null): Driver[] {
  const drivers: Driver[] = [];
  const demoDriver = makeDriver(3, "flex", DEMO.driver.phone, rand, now, driverHash);
  Object.assign(demoDriver, {
    name: DEMO.driver.name,
    // English, whatever the random draws give the others: the demo and the e2e tests read its screens in English.
    language: "en",
    phone_verified: true,
    // The demo driver connects to the fake platform and sets filters in the app (docs/engine.md).
    account_connected: false,
    setup_complete: false,
    good_standing: true,
    expiration_at: now + 7 * DAY,
    status: "stop",
    human_region: "Miami",
  });
  drivers.push(demoDriver);
  for (let i = 0; i < 300; i++) drivers.push(makeDriver(10 + i, "flex", `+1305555${String(1000 + i).padStart(4, "0")}`, rand, now, driverHash));
  for (let i = 0; i < 100; i++) drivers.push(makeDriver(400 + i, "spark", `+1407555${String(1000 + i).padStart(4, "0")}`, rand, now, driverHash));
  // The demo driver is an approved reseller (docs/payments.md): twelve Flex drivers registered with their code.
  for (const d of drivers.filter((d) => d.app === "flex" && (d.id as number) >= 10 && (d.id as number) < 22)) d.referral_code = DEMO_RESELLER_CODE;
  return drivers;
}

/**
 * A seeded Flex driver whom the dashboard shows as it is: connected, filters set, paid up, phone
 * confirmed, in English (the demo driver starts unconnected, to show the connection screens). Its
 * password is the demo driver's. The seed is deterministic, so it is always the same one.
 */
export function dashboardDriverPhone(): string {
  const ready = demoDrivers(prng(2026), Date.now(), null).find(
    (d) => d.app === "flex" && d.id !== 3 && d.account_connected && d.setup_complete && d.good_standing && d.phone_verified && d.language === "en",
  );
  if (!ready) throw new Error("the seed has no Flex driver the dashboard shows as it is");
  return ready.phone as string;
}

async function demoStatements(vars: Record<string, string>, now: number): Promise<string[]> {
  const rand = prng(2026);
  const sql: string[] = [];
  const driverHash = await hashPassword(DEMO.driver.password, vars.PASSWORD_PEPPER!);

  const admins = [
    { id: 1, who: DEMO.owner, role: "owner", billing: true },
    { id: 2, who: DEMO.support, role: "support", billing: false },
  ];
  for (const a of admins) {
    const row = {
      id: a.id,
      app: "flex",
      phone: a.who.phone,
      phone_verified: true,
      name: a.who.name,
      email: `${a.role}@blockpilot.local`,
      password_hash: await hashPassword(a.who.password, vars.PASSWORD_PEPPER!),
      language: "en",
      is_admin: true,
      role_name: a.role,
      role_properties: JSON.stringify({ billingDetails: a.billing }),
      good_standing: true,
      expiration_at: now + 365 * DAY,
      account_connected: true,
      setup_complete: true,
      status: "stop",
      invite_code: `ADMIN${a.id}`,
      mfa_secret: await sealSecret(a.who.totp, vars.MFA_ENCRYPTION_KEY!),
      mfa_method: "totp",
      created_at: now - 400 * DAY,
    };
    sql.push(
      ...insert("users", [row], "").map((s) =>
        s.replace(
          /;$/,
          " ON CONFLICT(app, phone) DO UPDATE SET password_hash = excluded.password_hash, mfa_secret = excluded.mfa_secret, mfa_method = 'totp', is_admin = 1, role_name = excluded.role_name, role_properties = excluded.role_properties;",
        ),
      ),
    );
  }

  const drivers = demoDrivers(rand, now, driverHash);
  sql.push(...insert("users", drivers));

  sql.push(
    ...insert("referral_codes", [
      ...REFERRALS.map((code, i) => ({
        code,
        app: i % 3 === 2 ? "spark" : "flex",
        owner: `Partner ${i + 1}`,
        owner_user_id: null,
        created_at: now - 300 * DAY,
      })),
      { code: DEMO_RESELLER_CODE, app: "flex", owner: DEMO.driver.name, owner_user_id: 3, created_at: now - 60 * DAY },
    ]),
  );
  sql.push(
    ...insert("resellers", [
      {
        user_id: 3,
        status: "approved",
        message: "I help the drivers at my station get set up.",
        commission_bps: 2000,
        referral_code: DEMO_RESELLER_CODE,
        applied_at: now - 61 * DAY,
        decided_at: now - 60 * DAY,
        decided_by: 1,
        updated_at: now - 60 * DAY,
      },
      // An application waiting for the billing page.
      {
        user_id: 22,
        status: "applied",
        message: "Twenty drivers in my WhatsApp group want in.",
        commission_bps: 2000,
        applied_at: now - DAY,
        updated_at: now - DAY,
      },
    ]),
  );

  // The same rows migrations/0005_11_default_plans.sql creates in a fresh database (kept here for
  // a database whose plans were deleted).
  const plans = [
    { id: 1, app: "flex", name: "1 week", days: 7, price_cents: 3999, sort_order: 1 },
    { id: 2, app: "flex", name: "2 weeks", days: 14, price_cents: 7499, sort_order: 2 },
    { id: 3, app: "flex", name: "4 weeks", days: 28, price_cents: 13999, sort_order: 3 },
    { id: 4, app: "spark", name: "1 week", days: 7, price_cents: 2999, sort_order: 1 },
    { id: 5, app: "spark", name: "2 weeks", days: 14, price_cents: 5499, sort_order: 2 },
    { id: 6, app: "spark", name: "4 weeks", days: 28, price_cents: 9999, sort_order: 3 },
  ];
  sql.push(...insert("plans", plans));

  // The fake platform's stations and delivery areas, as drivers' settings pages save them.
  const stations = (["flex", "spark"] as const).flatMap((app) =>
    DEFAULT_STATIONS[app].map((s) => ({ app, id: s.serviceAreaId, name: s.name, region: s.region, time_zone: s.timeZone, updated_at: now })),
  );
  sql.push(...insert("stations", stations));

  const payments: Record<string, unknown>[] = [];
  const offers: Record<string, unknown>[] = [];
  const invitations: Record<string, unknown>[] = [];
  let paymentId = 1;
  let offerId = 1;
  for (const d of drivers) {
    const id = d.id as number;
    const paidTimes = d.expiration_at ? 1 + Math.floor(rand() * 4) : 0;
    for (let p = 0; p < paidTimes; p++) {
      const plan = plans.filter((pl) => pl.app === d.app)[Math.floor(rand() * 2)]!;
      const status = rand() < 0.9 ? "successful" : rand() < 0.5 ? "failed" : "refunded";
      payments.push({
        id: paymentId,
        user_id: id,
        plan_id: plan.id,
        amount_cents: plan.price_cents,
        days: plan.days,
        status,
        payer_id: id,
        provider: "local",
        provider_ref: `demo_pay_${paymentId}`,
        refunded_cents: status === "refunded" ? plan.price_cents : 0,
        failure_code: status === "failed" ? "expired" : null,
        settled_at: (d.created_at as number) + p * 7 * DAY + 60_000,
        created_at: (d.created_at as number) + p * 7 * DAY,
        updated_at: (d.created_at as number) + p * 7 * DAY + 60_000,
      });
      paymentId++;
    }
    if (d.account_connected) {
      const appStations = stations.filter((s) => s.app === d.app);
      for (let o = 0; o < 5; o++) {
        const starts = now - Math.floor(rand() * 14) * DAY + Math.floor(rand() * 12) * 3_600_000;
        const roll = rand();
        const station = appStations[Math.floor(rand() * appStations.length)]!;
        const status = roll < 0.35 ? "won" : roll < 0.8 ? "disliked" : "gone";
        offers.push({
          id: offerId,
          user_id: id,
          app: d.app,
          platform_offer_id: `demo-offer-${offerId++}`,
          station_id: station.id,
          station_name: station.name,
          time_zone: station.time_zone,
          status,
          reasons: status === "disliked" ? JSON.stringify(DISLIKE_REASONS[Math.floor(rand() * DISLIKE_REASONS.length)]) : null,
          pay_cents: 5400 + Math.floor(rand() * 60) * 100,
          starts_at: starts,
          ends_at: starts + (3 + Math.floor(rand() * 3)) * 1_800_000,
          seen_at: starts - 3_600_000,
          created_at: starts - 3_600_000,
        });
      }
    }
    if (rand() < 0.3) {
      const count = 1 + Math.floor(rand() * 3);
      for (let k = 0; k < count; k++) {
        // Some invitees registered (phone of another demo driver), most did not.
        const registered = rand() < 0.3;
        const invitee = registered ? drivers[Math.floor(rand() * drivers.length)]! : null;
        const phone = invitee ? (invitee.phone as string) : `+1786555${String(Math.floor(rand() * 9000) + 1000)}`;
        // A friend counts as registered only with an account made after the invitation (docs/payments.md).
        const ago = Math.floor(rand() * 60) * DAY;
        const invitedAt = invitee ? Math.min(now - ago, (invitee.created_at as number) - DAY) : now - ago;
        invitations.push({ inviter_id: id, app: d.app, phone, invited_at: invitedAt, free_week: registered && rand() < 0.5 });
      }
    }
  }
  // Each settled demo payment has its ledger row, so the service-time history explains the days.
  const ledger = payments
    .filter((p) => p.status === "successful" || p.status === "refunded")
    .flatMap((p) => {
      const settled = p.settled_at as number;
      const days = (p.days as number) * DAY;
      const paid = {
        user_id: p.user_id,
        kind: "payment",
        delta_ms: days,
        expiration_before: null as number | null,
        expiration_after: settled + days,
        payment_id: p.id,
      };
      const rows = [{ ...paid, source_key: `payment:${p.id}`, request_id: "seed", created_at: settled }];
      if (p.status === "refunded") {
        rows.push({
          ...paid,
          kind: "refund",
          delta_ms: -days,
          expiration_before: settled + days,
          expiration_after: settled,
          source_key: `refund:${p.id}:${p.amount_cents}`,
          request_id: "seed",
          created_at: settled + DAY,
        });
      }
      return rows;
    });
  sql.push(...insert("payments", payments), ...insert("service_time_ledger", ledger), ...insert("offers", offers), ...insert("invitations", invitations));

  // The consent ledger (docs/messaging-rules.md): most drivers ticked the marketing box when they
  // registered; invited numbers carry only the weaker invitation basis, which allows no marketing.
  const consentRand = prng(14);
  const consents: Record<string, unknown>[] = [];
  for (const d of drivers) {
    if (consentRand() >= 0.85) continue;
    const language = d.language === "es" ? "es" : "en";
    consents.push({
      phone: d.phone,
      kind: "consent",
      channel: "all",
      basis: "express",
      source: "registration",
      text: REGISTRATION_CONSENT[language],
      text_version: REGISTRATION_CONSENT.version,
      language,
      user_id: d.id,
      at: d.created_at,
    });
  }
  for (const i of invitations) {
    consents.push({
      phone: i.phone,
      kind: "consent",
      channel: "all",
      basis: "invitation",
      source: "invitation",
      language: "en",
      actor_id: i.inviter_id,
      at: i.invited_at,
    });
  }
  sql.push(...insert("consent_events", consents));

  sql.push(
    ...insert("whatsapp_templates", [
      {
        id: "demo_welcome_en",
        name: "welcome_back",
        language: "en_US",
        category: "MARKETING",
        components: JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Welcome back to Blockpilot" },
          { type: "BODY", text: "Your blocks are waiting. Renew your week today and we'll start searching again." },
        ]),
      },
      {
        id: "demo_welcome_es",
        name: "welcome_back",
        language: "es_MX",
        category: "MARKETING",
        components: JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Bienvenido de nuevo a Blockpilot" },
          { type: "BODY", text: "Tus bloques te esperan. Renueva tu semana hoy y volveremos a buscar." },
        ]),
      },
      {
        id: "demo_expiring_en",
        name: "service_expiring",
        language: "en_US",
        category: "UTILITY",
        components: JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Your week ends soon" },
          { type: "BODY", text: "Your Blockpilot service expires soon. Pay now to keep catching blocks." },
        ]),
      },
      {
        id: "demo_invite_es",
        name: "friend_invite",
        language: "es_MX",
        category: "MARKETING",
        components: JSON.stringify([
          { type: "HEADER", format: "TEXT", text: "Un amigo te invitó" },
          { type: "BODY", text: "Regístrate en Blockpilot y consigue mejores bloques de Flex." },
        ]),
      },
    ]),
  );
  sql.push(
    ...insert(
      "leads",
      Array.from({ length: 40 }, (_, i) => ({
        id: i + 1,
        app: i % 4 === 0 ? "spark" : "flex",
        phone: `+1954555${String(2000 + i)}`,
        name: `${FIRST[i % FIRST.length]} ${LAST[(i * 7) % LAST.length]}`,
        email: i % 2 === 0 ? `lead${i}@example.com` : null,
        source: ["contact", "facebook", "referral", "website"][i % 4],
        message: i % 4 === 0 ? LEAD_MESSAGES[(i / 4) % LEAD_MESSAGES.length] : null,
        status: (["new", "new", "contacted", "converted", "lost"] as const)[i % 5],
        created_at: now - i * DAY,
      })),
    ),
  );
  // Demo drivers who stopped short of paying in their first day are leads (src/worker/admin/leads.ts files them as they happen).
  sql.push(`INSERT OR IGNORE INTO leads (app, phone, name, email, source, user_id, created_at)
    SELECT u.app, u.phone, u.name, u.email, 'drop-off', u.id, u.created_at + ${DAY} FROM users u
    WHERE u.is_admin = 0 AND u.id < ${BENCH_FIRST_ID} AND u.created_at <= ${now - DAY}
      AND NOT (u.phone_verified = 1 AND u.account_connected = 1 AND EXISTS (SELECT 1 FROM payments p WHERE p.user_id = u.id AND p.status = 'successful'));`);
  return sql;
}

const BENCH_FIRST_ID = 1_000_000;

/**
 * N extra Flex drivers who signed up over the last year, and that year's activity, for the
 * benches (the dashboard and users budgets are for 100,000 drivers with a year of data). The
 * activity is generated inside SQLite (INSERT … SELECT over a counter), deterministic from the
 * ids, with fixed ids so a re-run adds nothing: about 6 payments, 15 offers and a share of 52
 * weekly campaigns' messages per driver.
 */
function benchDrivers(count: number, now: number): string[] {
  const rand = prng(99);
  const rows: Driver[] = [];
  for (let i = 0; i < count; i++) {
    const driver = makeDriver(BENCH_FIRST_ID + i, "flex", `+1${6460000000 + i}`, rand, now, null);
    // Spread over the whole year, not the demo's 240 days.
    driver.created_at = now - Math.floor(rand() * 365 * DAY);
    rows.push(driver);
  }
  return [...insert("users", rows, "OR IGNORE", 400), ...benchActivity(count, now)];
}

function benchActivity(count: number, now: number): string[] {
  const last = BENCH_FIRST_ID + count - 1;
  const drivers = `FROM users u WHERE u.id BETWEEN ${BENCH_FIRST_ID} AND ${last}`;
  // The n-th event of a driver's chain: from sign-up (plus a few weeks for the first), every `step` days,
  // at a pseudo-random time of day; events that would fall after now are not made. So each day of the
  // year gets about the same activity from the drivers signed up by then, as a real service would.
  const chain = (salt: string, stepDays: number) => `u.created_at + ((u.id % 4) * 7 + ${salt} * ${stepDays}) * ${DAY} + ((u.id * 31 + ${salt} * 17) % ${DAY})`;
  const when = (salt: string) => chain(salt, 7);
  const offerAt = (salt: string) => chain(salt, 10);
  return [
    // Payments: up to 12 weekly ones per driver (about 6), one of the three Flex plans; 1 in 20 failed, 1 in 20 refunded.
    `WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 11)
     INSERT OR IGNORE INTO payments (id, user_id, payer_id, plan_id, amount_cents, days, status, provider, provider_ref, refunded_cents, settled_at, created_at)
     SELECT 10000000 + (u.id - ${BENCH_FIRST_ID}) * 12 + k.n, u.id, u.id, 1 + (u.id + k.n) % 3,
       CASE (u.id + k.n) % 3 WHEN 0 THEN 3999 WHEN 1 THEN 7499 ELSE 13999 END,
       CASE (u.id + k.n) % 3 WHEN 0 THEN 7 WHEN 1 THEN 14 ELSE 28 END,
       CASE (u.id * 3 + k.n) % 20 WHEN 0 THEN 'failed' WHEN 1 THEN 'refunded' ELSE 'successful' END, 'local',
       'bench_pay_' || u.id || '_' || k.n,
       CASE (u.id * 3 + k.n) % 20 WHEN 1 THEN CASE (u.id + k.n) % 3 WHEN 0 THEN 3999 WHEN 1 THEN 7499 ELSE 13999 END ELSE 0 END,
       CASE (u.id * 3 + k.n) % 20 WHEN 0 THEN NULL ELSE ${when("k.n")} + 60000 END, ${when("k.n")}
     ${drivers.replace("FROM users u", "FROM users u JOIN k ON k.n < (u.id * 7919) % 13")} AND ${when("k.n")} + 60000 < ${now};`,
    // Offers: up to 30 per driver, one every 10 days (about 15), at the Flex stations; about a third won.
    `WITH RECURSIVE k(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM k WHERE n < 29),
       s AS (SELECT id, name, time_zone, row_number() OVER (ORDER BY id) - 1 AS i, count(*) OVER () AS total FROM stations WHERE app = 'flex')
     INSERT OR IGNORE INTO offers (id, user_id, app, platform_offer_id, station_id, station_name, time_zone, status, reasons, pay_cents, starts_at, ends_at, seen_at, created_at)
     SELECT 20000000 + (u.id - ${BENCH_FIRST_ID}) * 30 + k.n, u.id, 'flex', 'bench-offer-' || u.id || '-' || k.n, s.id, s.name, s.time_zone,
       CASE WHEN (u.id * 3 + k.n) % 20 < 7 THEN 'won' WHEN (u.id * 3 + k.n) % 20 < 16 THEN 'disliked' ELSE 'gone' END,
       CASE WHEN (u.id * 3 + k.n) % 20 BETWEEN 7 AND 15 THEN '["pay"]' END,
       5400 + ((u.id * 13 + k.n * 7) % 60) * 100,
       ${offerAt("k.n")} + 3600000, ${offerAt("k.n")} + 3600000 + (3 + (u.id + k.n) % 3) * 1800000, ${offerAt("k.n")}, ${offerAt("k.n")}
     ${drivers.replace("FROM users u", "FROM users u JOIN k ON k.n < (u.id * 104729) % 31 JOIN s ON s.i = (u.id + k.n) % s.total")} AND ${offerAt("k.n")} + 3600000 < ${now};`,
    // 52 weekly campaigns by the owner, each to 1 in 52 of the drivers: a year of messages, 1 in 25 failed.
    `WITH RECURSIVE w(n) AS (SELECT 0 UNION ALL SELECT n + 1 FROM w WHERE n < 51)
     INSERT OR IGNORE INTO campaigns (id, app, channel, source, message, audience, author_id, idempotency_key, status, total, created_at, updated_at)
     SELECT 1000000 + w.n, 'flex', 'sms', 'drivers', 'Weekly reminder ' || w.n, '{}', 1, 'bench-week-' || w.n, 'done', 0,
       ${now} - (52 - w.n) * 7 * ${DAY}, ${now} - (52 - w.n) * 7 * ${DAY} FROM w;`,
    `INSERT OR IGNORE INTO campaign_messages (campaign_id, user_id, phone, name, status, provider_id, attempts, updated_at)
     SELECT 1000000 + u.id % 52, u.id, u.phone, u.name, CASE WHEN u.id % 25 = 0 THEN 'failed' ELSE 'delivered' END, 'bench_msg_' || u.id, 1,
       ${now} - (52 - u.id % 52) * 7 * ${DAY} + (u.id % 3600) * 1000
     ${drivers};`,
  ];
}

function execute(file: string) {
  // D1_PERSIST_TO lets the end-to-end run seed its own throw-away database.
  const persist = process.env.D1_PERSIST_TO ? [`--persist-to=${process.env.D1_PERSIST_TO}`] : [];
  const result = spawnSync("wrangler", ["d1", "execute", "DB", "--local", `--file=${file}`, ...persist], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  if (result.status !== 0) {
    console.error(result.stdout);
    throw new Error(`wrangler d1 execute failed (${result.status})`);
  }
}

export function printDemoDetails(url = "http://localhost:5173") {
  console.log(`
  Blockpilot demo accounts (${url})
    Owner admin     ${DEMO.owner.phone}  password ${DEMO.owner.password}  TOTP secret ${DEMO.owner.totp}
    Support admin   ${DEMO.support.phone}  password ${DEMO.support.password}  TOTP secret ${DEMO.support.totp} (no billingDetails)
    Driver          ${DEMO.driver.phone}  password ${DEMO.driver.password}  (an approved reseller, code ${DEMO_RESELLER_CODE})
  SMS codes and messages go to the outbox (printed in this log). Payments use the local checkout:
  card 4242 4242 4242 4242 pays, 4000 0000 0000 0002 is declined, 4000 0000 0000 9995 has no funds.
`);
}

async function main() {
  const args = process.argv.slice(2);
  if (args.includes("--print")) return printDemoDetails();
  const driversArg = args.indexOf("--drivers");
  const extra = driversArg >= 0 ? Number(args[driversArg + 1]) : 0;
  if (!Number.isInteger(extra) || extra < 0) throw new Error("--drivers takes a whole number");
  ensureDevVars();
  const vars = readDevVars();
  const now = Date.now();
  const started = performance.now();
  mkdirSync(".seed", { recursive: true });
  const statements = [...(await demoStatements(vars, now)), ...(extra ? benchDrivers(extra, now) : [])];
  // A file of this run's own: `npm test` seeds the e2e database and the benches' at the same
  // moment, and with one shared file a seed could run another's statements (the e2e database once
  // got a bench's 2,000 extra drivers).
  const file = `.seed/seed-${process.pid}.sql`;
  writeFileSync(file, statements.join("\n"));
  try {
    execute(file);
  } finally {
    rmSync(file, { force: true });
  }
  console.log(`Seeded demo data${extra ? ` and ${extra} extra drivers` : ""} in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
  printDemoDetails();
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
