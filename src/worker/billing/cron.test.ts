import { env } from "cloudflare:test";
import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { localStripeObjects, optOuts, outbox, payments, users } from "../db/schema";
import { createLogger } from "../log";
import { driver, openCheckout, testPlan } from "../test/billing-fixtures";
import { db, seedUser, uniquePhone } from "../test/fixtures";
import { runBillingCron, sendExpiryReminders } from "./cron";
import { DAY_MS } from "./service-time";

const HOUR = 3_600_000;
const log = createLogger({ test: "reminders" });

async function textsTo(phones: string[]) {
  return db.select().from(outbox).where(inArray(outbox.to, phones));
}

describe("expiry reminders", () => {
  it("texts each driver once, 24 hours before expiry, in their language; never opted-out numbers or admins", async () => {
    // A clock of its own, far ahead, so other tests' drivers are not due in this window.
    const now = Date.now() + 400 * DAY_MS;
    const due = await seedUser({ expirationAt: now + 23 * HOUR, goodStanding: true, language: "es" });
    const later = await seedUser({ expirationAt: now + 25 * HOUR, goodStanding: true });
    const expired = await seedUser({ expirationAt: now - HOUR });
    const flagged = await seedUser({ expirationAt: now + 2 * HOUR, smsOptOut: true });
    const stopped = await seedUser({ expirationAt: now + 2 * HOUR });
    await db.insert(optOuts).values({ phone: stopped.phone, channel: "sms", keyword: "STOP" });
    const admin = await seedUser({ expirationAt: now + 2 * HOUR, isAdmin: true });
    const unconfirmed = await seedUser({ expirationAt: now + 2 * HOUR, phoneVerified: false });
    const phones = [due, later, expired, flagged, stopped, admin, unconfirmed].map((u) => u.phone);

    await Promise.all([sendExpiryReminders(env, db, log, now), sendExpiryReminders(env, db, log, now)]);
    await sendExpiryReminders(env, db, log, now + HOUR / 2);
    const texts = await textsTo(phones);
    expect(texts.map((t) => t.to)).toEqual([due.phone]);
    expect(texts[0]!.body).toMatch(/^Blockpilot: tu servicio termina en 24 horas/);
    expect(texts[0]!.body).toContain("/payment");

    // Paid again: a new expiration earns a new reminder when it comes near.
    await db
      .update(users)
      .set({ expirationAt: now + 8 * DAY_MS })
      .where(eq(users.id, due.id));
    await sendExpiryReminders(env, db, log, now + 7 * DAY_MS + HOUR);
    expect((await textsTo([due.phone])).length).toBe(2);
    // And the later driver gets theirs once their day comes.
    await sendExpiryReminders(env, db, log, now + 2 * HOUR);
    expect((await textsTo([later.phone])).length).toBe(1);
  });
});

describe("the Stripe emulator's upkeep", () => {
  it("expires open checkout sessions past their time, which fails their payments", async () => {
    const user = await driver({ phone: uniquePhone() });
    const { payment, sessionId } = await openCheckout(user, (await testPlan()).id);
    await runBillingCron(env, Date.now() + 2 * HOUR, () => {});
    const session = (await db.select().from(localStripeObjects).where(eq(localStripeObjects.id, sessionId)).get())!;
    expect(session.data.status).toBe("expired");
    expect((await db.select().from(payments).where(eq(payments.id, payment.id)).get())!).toMatchObject({ status: "failed", failureCode: "expired" });
  });
});
