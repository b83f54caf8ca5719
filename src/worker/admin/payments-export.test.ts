import { desc, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { auditLog, payments } from "../db/schema";
import { call, db, seedAdmin, seedUser, signInAdmin } from "../test/fixtures";

describe("GET /api/admin/billing/payments/export.csv", () => {
  it("streams the filtered payments with net amounts, defuses formulas, is for billing admins only, and is audited", async () => {
    // Letters only: the search also matches phone numbers holding its digits, and other test files' payers share the database.
    const tag = `Payer${Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => String.fromCharCode(97 + (b % 26))).join("")}`;
    const driver = await seedUser({ password: null, name: `=cmd ${tag}` });
    await db.insert(payments).values([
      { userId: driver.id, amountCents: 3999, days: 7, status: "successful", settledAt: 1_900_000_000_000, createdAt: 1_900_000_000_000 },
      { userId: driver.id, amountCents: 7499, refundedCents: 2500, days: 14, status: "refunded", settledAt: 1_900_000_100_000, createdAt: 1_900_000_100_000 },
      { userId: driver.id, amountCents: 3999, days: 7, status: "failed", failureCode: "card_declined", createdAt: 1_900_000_200_000 },
    ]);
    const billing = (await signInAdmin(await seedAdmin({ roleName: "owner", roleProperties: { billingDetails: true } }))).idToken;
    const support = (await signInAdmin(await seedAdmin({ roleName: "support", roleProperties: { billingDetails: false } }))).idToken;
    expect((await call(`/api/admin/billing/payments/export.csv?q=${tag}`, { token: support })).status).toBe(403);

    const res = await call(`/api/admin/billing/payments/export.csv?q=${tag}`, { token: billing });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toBe('attachment; filename="payments.csv"');
    const lines = (await res.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,created,settled,user_id,name,phone,app,status,amount,refunded,net,days,provider,failure");
    expect(lines).toHaveLength(4);
    expect(lines[1]).toContain(`,'=cmd ${tag},`);
    expect(lines[1]).toMatch(/,successful,39\.99,0\.00,39\.99,7,/);
    expect(lines[2]).toMatch(/,refunded,74\.99,25\.00,49\.99,14,/);
    expect(lines[3]).toMatch(/,failed,39\.99,0\.00,0\.00,7,stripe,card_declined$/);
    const onlyFailed = (await (await call(`/api/admin/billing/payments/export.csv?q=${tag}&status=failed`, { token: billing })).text()).trimEnd().split("\r\n");
    expect(onlyFailed).toHaveLength(2);
    const audit = await db.select().from(auditLog).where(eq(auditLog.action, "admin.payments_exported")).orderBy(desc(auditLog.id)).get();
    expect(audit?.details).toMatchObject({ filters: { q: tag } });
  });
});
