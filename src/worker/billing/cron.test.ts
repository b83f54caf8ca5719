import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { localStripeObjects, payments } from "../db/schema";
import { driver, openCheckout, testPlan } from "../test/billing-fixtures";
import { db, uniquePhone } from "../test/fixtures";
import { runBillingCron } from "./cron";

const HOUR = 3_600_000;
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
