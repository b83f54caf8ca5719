/**
 * The people of the demo data: the demo accounts whose sign-in details `npm run dev` prints, and the
 * seeded Flex and Spark drivers, drawn from a fixed pseudo-random sequence so every machine and
 * every run gets the same ones.
 */
import type { users } from "../../src/worker/db/schema.ts";

export type NewUser = typeof users.$inferInsert;

export const DEMO = {
  owner: { phone: "+13055550100", password: "Owner#2026!", totp: "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP", name: "Olivia Owner" },
  support: { phone: "+13055550101", password: "Support#2026!", totp: "KRSXG5CTMVRXEZLUKRSXG5CTMVRXEZLU", name: "Sam Support" },
  driver: { phone: "+13055550102", password: "Driver#2026!", name: "Diego Driver" },
};

/** The demo driver's referral code as an approved reseller. */
export const DEMO_RESELLER_CODE = "DIEGO10";
/** The demo driver's account id (the admins are 1 and 2; the seeded drivers start at 10). */
export const DEMO_DRIVER_ID = 3;
/** The first id of the extra drivers `--drivers N` adds for the benches. */
export const BENCH_FIRST_ID = 1_000_000;
export const DAY = 86_400_000;

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
export const REFERRALS = ["MIAMI10", "FLEXPRO", "SPARKUP", "TAMPA5", "ATL2026", "DALLASX", "ROADKING", "WELCOME"];
export const FIRST = [
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
export const LAST = [
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

/** Deterministic pseudo-random numbers in [0, 1): the same demo data on every machine and every run. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A driver as the seed makes one: each field drawn in this order from `rand`. */
export function makeDriver(
  id: number,
  app: "flex" | "spark",
  phone: string,
  rand: () => number,
  now: number,
  passwordHash: string | null,
): NewUser & { id: number; createdAt: number } {
  const created = now - Math.floor(rand() * 240) * DAY - Math.floor(rand() * DAY);
  const paid = rand() < 0.7;
  const expiration = paid ? now + Math.floor((rand() * 40 - 12) * DAY) : null;
  const connected = rand() < 0.8;
  const setup = connected && rand() < 0.85;
  return {
    id,
    app,
    phone,
    phoneVerified: rand() < 0.95,
    name: `${FIRST[Math.floor(rand() * FIRST.length)]} ${LAST[Math.floor(rand() * LAST.length)]}`,
    email: rand() < 0.6 ? `driver${id}@example.com` : null,
    passwordHash,
    language: rand() < 0.45 ? "es" : "en",
    createdAt: created,
    expirationAt: expiration,
    goodStanding: expiration !== null && expiration > now,
    humanRegion: app === "flex" ? FLEX_REGIONS[Math.floor(rand() * FLEX_REGIONS.length)] : null,
    deliveryArea: app === "spark" ? SPARK_AREAS[Math.floor(rand() * SPARK_AREAS.length)] : null,
    accountConnected: connected,
    setupComplete: setup,
    status: setup && rand() < 0.6 ? "start" : "stop",
    referralCode: rand() < 0.5 ? REFERRALS[Math.floor(rand() * REFERRALS.length)] : null,
    inviteCode: `D${id.toString(36).toUpperCase()}`,
    stripeExpressId: rand() < 0.08 ? `acct_demo${id}` : null,
  };
}

export type SeededDriver = ReturnType<typeof makeDriver>;

/**
 * The demo driver and the seeded Flex and Spark drivers, drawn first from the seed's random
 * sequence (the demo rows go on drawing from it after them).
 */
export function demoDrivers(rand: () => number, now: number, driverHash: string | null): SeededDriver[] {
  const drivers: SeededDriver[] = [];
  const demoDriver = makeDriver(DEMO_DRIVER_ID, "flex", DEMO.driver.phone, rand, now, driverHash);
  Object.assign(demoDriver, {
    name: DEMO.driver.name,
    // English, whatever the random draws give the others: the demo and the e2e tests read its screens in English.
    language: "en",
    phoneVerified: true,
    // The demo driver connects to the fake platform and sets filters in the app (docs/engine.md).
    accountConnected: false,
    setupComplete: false,
    goodStanding: true,
    expirationAt: now + 7 * DAY,
    status: "stop",
    humanRegion: "Miami",
  } satisfies Partial<NewUser>);
  drivers.push(demoDriver);
  for (let i = 0; i < 300; i++) drivers.push(makeDriver(10 + i, "flex", `+1305555${String(1000 + i).padStart(4, "0")}`, rand, now, driverHash));
  for (let i = 0; i < 100; i++) drivers.push(makeDriver(400 + i, "spark", `+1407555${String(1000 + i).padStart(4, "0")}`, rand, now, driverHash));
  // The demo driver is an approved reseller (docs/payments.md): twelve Flex drivers registered with their code.
  for (const d of drivers.filter((d) => d.app === "flex" && d.id >= 10 && d.id < 22)) d.referralCode = DEMO_RESELLER_CODE;
  return drivers;
}

/** The seed's random sequence for the demo data. */
export const demoRandom = () => prng(2026);

/**
 * A seeded Flex driver whom the dashboard shows as it is: connected, filters set, paid up, phone
 * confirmed, in English (the demo driver starts unconnected, to show the connection screens). Its
 * password is the demo driver's. The seed is deterministic, so it is always the same one.
 */
export function dashboardDriverPhone(): string {
  const ready = demoDrivers(demoRandom(), Date.now(), null).find(
    (d) => d.app === "flex" && d.id !== DEMO_DRIVER_ID && d.accountConnected && d.setupComplete && d.goodStanding && d.phoneVerified && d.language === "en",
  );
  if (!ready) throw new Error("the seed has no Flex driver the dashboard shows as it is");
  return ready.phone;
}
