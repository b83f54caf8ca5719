import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { app } from "../app";
import { users } from "../db/schema";
import { call, db, json, seedAdmin, seedUser, signIn, signInAdmin } from "../test/fixtures";

const DAY = 86_400_000;

/** HMAC-SHA256(key, message) as hex, written out here so the test does not reuse the route's code. */
async function hmacHex(key: string, message: string): Promise<string> {
  const k = await crypto.subtle.importKey("raw", new TextEncoder().encode(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", k, new TextEncoder().encode(message)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

describe("GET /api/flex/v1/user", () => {
  it("answers the user item of the signed-in user (docs/product.md) as { Item }", async () => {
    const expiration = Date.UTC(2031, 2, 7, 15, 0, 0);
    const user = await seedUser({
      name: "Ana López",
      email: "ana@example.com",
      goodStanding: true,
      expirationAt: expiration,
      createdAt: Date.UTC(2030, 0, 2),
      humanRegion: "Miami",
      accountConnected: true,
      setupComplete: true,
      referralCode: "MIAMI10",
      status: "start",
      stripeExpressId: "acct_123",
      language: "es",
    });
    const res = await call("/api/flex/v1/user", { token: (await signIn(user)).idToken });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      Item: {
        id: user.id,
        name: "Ana López",
        phoneNumber: user.phone,
        email: "ana@example.com",
        goodStanding: true,
        expirationDateTimestamp: expiration,
        expirationDate: "07/03/31",
        createDateTimestamp: Date.UTC(2030, 0, 2),
        humanRegion: "Miami",
        driverOptions: { deliveryArea: null },
        accountConnected: true,
        setupComplete: true,
        isAdmin: false,
        referral: "MIAMI10",
        status: "start",
        stripeExpressId: "acct_123",
        role: null,
        app: "flex",
        language: "es",
        phoneNumberVerified: true,
        mfaMethod: "none",
        inviteCode: user.inviteCode,
        // The old product's names of email and accountConnected, which its callers read.
        flexEmail: "ana@example.com",
        proxyInstalled: true,
      },
    });
  });

  it("carries the role of an administrator and a Spark driver's delivery area", async () => {
    const spark = await seedAdmin({ app: "spark", deliveryArea: "Mesa, AZ", roleName: "owner", roleProperties: { billingDetails: true } });
    const { Item } = await json(await call("/api/flex/v1/user", { token: (await signInAdmin(spark)).idToken }));
    expect(Item).toMatchObject({
      app: "spark",
      driverOptions: { deliveryArea: "Mesa, AZ" },
      isAdmin: true,
      role: { name: "owner", properties: { billingDetails: true } },
      expirationDate: null,
    });
  });

  it("is not in good standing once the paid time has run out, whatever the stored flag says", async () => {
    const lapsed = await seedUser({ goodStanding: true, expirationAt: Date.now() - DAY });
    const { Item } = await json(await call("/api/flex/v1/user", { token: (await signIn(lapsed)).idToken }));
    expect(Item.goodStanding).toBe(false);
  });

  it("refuses an unconfirmed phone (it gets the confirm flow only), even with a session from before that rule", async () => {
    const user = await seedUser();
    const { idToken } = await signIn(user);
    await db.update(users).set({ phoneVerified: false }).where(eq(users.id, user.id));
    const res = await call("/api/flex/v1/user", { token: idToken });
    expect(res.status).toBe(403);
    expect((await json(res)).error).toEqual({ code: "forbidden", message: "Confirm account to continue", details: { reason: "unconfirmed" } });
  });

  it("needs a session", async () => {
    expect((await call("/api/flex/v1/user")).status).toBe(401);
  });
});

describe("GET /api/flex/v1/user/chat", () => {
  it("computes HMAC-SHA256 hex right on a published example (the check below relies on it)", async () => {
    expect(await hmacHex("key", "The quick brown fox jumps over the lazy dog")).toBe("f7bc83f430538424b13298e6aa6fb143ef4d59a14946175997479dbc2d1a3cd8");
  });

  it("answers the chat widget's identity with a phone hash signed by CHAT_HASH_SECRET", async () => {
    const user = await seedUser({
      name: "Luis",
      email: "luis@example.com",
      goodStanding: true,
      expirationAt: Date.UTC(2031, 11, 31, 23, 0),
      humanRegion: "Tampa",
      accountConnected: true,
    });
    const res = await call("/api/flex/v1/user/chat", { token: (await signIn(user)).idToken });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({
      enabled: false,
      scriptUrl: null,
      email: "luis@example.com",
      name: "Luis",
      phone: user.phone,
      phoneHash: await hmacHex("test-chat-secret", user.phone),
      label: "Blockpilot Flex",
      attributes: { good_standing: true, expiration_date: "2031-12-31", human_region: "Tampa", account_connected: true },
    });
  });

  it("is enabled, with the script URL, only when CHAT_WIDGET_URL is set", async () => {
    const user = await seedUser({ app: "spark" });
    const { idToken } = await signIn(user);
    const ctx = createExecutionContext();
    const res = await app.fetch(
      new Request("https://bp.test/api/flex/v1/user/chat", { headers: { Authorization: `Bearer ${idToken}` } }),
      { ...env, CHAT_WIDGET_URL: "https://chat.example.com/widget.js" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const body = await json(res);
    expect(body).toMatchObject({ enabled: true, scriptUrl: "https://chat.example.com/widget.js", label: "Blockpilot Spark" });
    expect(body.attributes).toEqual({ good_standing: false, expiration_date: null, human_region: null, account_connected: false });
  });

  it("needs a session", async () => {
    expect((await call("/api/flex/v1/user/chat")).status).toBe(401);
  });
});
