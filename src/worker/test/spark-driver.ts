/** The drivers of the driver routes' tests (routes/driver*.test.ts). */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { users } from "../db/schema";
import { captureSessionOf } from "../platform/capture";
import { defaultWorld } from "./connected-driver";
import { db, seedUser, signIn } from "./fixtures";
import { settleNotifications } from "./push-fixtures";

export const HOUR = 3_600_000;

/** Drivers whose engine a test started: stopped after each test (stopRunningEngines, an afterEach), their notifications gone out. */
export const running: number[] = [];
export async function stopRunningEngines() {
  const ids = running.splice(0);
  for (const id of ids) await captureSessionOf(env, id).stop(id);
  await settleNotifications(ids);
}

let accounts = 0;
/** A platform account's email of its own. */
export const platformEmail = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${accounts++}@example.com`;

/**
 * A Spark driver signed in to Blockpilot, with a platform account (not yet connected) in the fake's
 * default world: Spark keeps the modelled email-and-password sign-in (Flex's hand-off through the
 * platform's page is in driver-connection.test.ts).
 */
export async function newDriver(challenge: "none" | "code" | "approval" = "none", user: Parameters<typeof seedUser>[0] = {}) {
  const email = platformEmail("route");
  await defaultWorld().control("accounts", { email, password: "platform-pw", challenge, offersRate: null });
  const row = await seedUser({ app: "spark", expirationAt: Date.now() + 7 * 86_400_000, goodStanding: true, ...user });
  const { idToken } = await signIn(row);
  return { user: row, email, token: idToken };
}

export const userRow = (id: number) => db.select().from(users).where(eq(users.id, id)).get();
