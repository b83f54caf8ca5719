/**
 * The notifications API (docs/api.md): the settings a driver reads and changes, this browser's
 * push subscription (upsert by endpoint, at most MAX_PUSH_SUBSCRIPTIONS), its removal, and the
 * sign-out that forgets it; bad input is a 400 in the one envelope and changes nothing.
 */
import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { MAX_PUSH_SUBSCRIPTIONS } from "../../shared/notifications";
import { notificationChannels, pushSubscriptions } from "../db/schema";
import { savePushSubscription } from "../notifications/settings";
import { call, createUser, db, json, seedUser, signIn, tokenFor } from "../test/fixtures";
import { fakeSubscription } from "../test/push-fixtures";

async function driver(options: Parameters<typeof createUser>[0] = {}) {
  const user = await createUser(options);
  return { user, token: await tokenFor(user) };
}
const devicesOf = (userId: number) => db.select().from(pushSubscriptions).where(eq(pushSubscriptions.userId, userId)).orderBy(pushSubscriptions.id);
const put = (path: string, token: string, body: unknown) => call(path, { method: "PUT", token, body });

describe("GET and PUT /api/driver/notifications", () => {
  it("answers the VAPID key, the devices, the choices and what each event goes by; a choice set and cleared", async () => {
    const { user, token } = await driver({ smsOptOut: true });
    const first = await json(await call("/api/driver/notifications", { token }));
    expect(first).toEqual({
      vapidPublicKey: env.VAPID_PUBLIC_KEY,
      devices: 0,
      channels: { blockWon: null, searchStopped: null, serviceEnding: null },
      effective: { blockWon: "sms", searchStopped: "sms", serviceEnding: "sms" },
      smsOptOut: true,
    });
    const subscription = await fakeSubscription();
    expect(await json(await put("/api/driver/push-subscription", token, subscription))).toEqual({ devices: 1 });
    const set = await put("/api/driver/notifications", token, { channels: { blockWon: "both", serviceEnding: "none" } });
    expect(set.status).toBe(200);
    expect(await json(set)).toMatchObject({
      devices: 1,
      channels: { blockWon: "both", searchStopped: null, serviceEnding: "none" },
      effective: { blockWon: "both", searchStopped: "push", serviceEnding: "none" },
    });
    const cleared = await json(await put("/api/driver/notifications", token, { channels: { blockWon: null } }));
    expect(cleared).toMatchObject({ channels: { blockWon: null, serviceEnding: "none" }, effective: { blockWon: "push" } });
    expect(await db.select().from(notificationChannels).where(eq(notificationChannels.userId, user.id))).toMatchObject([
      { event: "serviceEnding", channel: "none" },
    ]);
  });

  it("refuses an unknown event or channel with a 400 envelope and changes nothing", async () => {
    const { user, token } = await driver();
    for (const body of [{ channels: { blockWon: "fax" } }, { channels: { offerSeen: "push" } }, { channels: "push" }, {}]) {
      const res = await put("/api/driver/notifications", token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await json(res)).toMatchObject({ error: { code: "validation_failed", details: expect.any(Array) } });
    }
    expect(await db.select().from(notificationChannels).where(eq(notificationChannels.userId, user.id))).toEqual([]);
  });
});

describe("PUT and DELETE /api/driver/push-subscription", () => {
  it("refuses a bad endpoint or bad keys with a 400 envelope and stores nothing", async () => {
    const { user, token } = await driver();
    const good = await fakeSubscription();
    const bad = [
      { ...good, endpoint: "not a url" },
      { ...good, endpoint: "ftp://push.example/x" },
      { ...good, keys: { ...good.keys, p256dh: "short" } },
      { ...good, keys: { ...good.keys, auth: "has spaces in it!" } },
      { endpoint: good.endpoint },
    ];
    for (const body of bad) {
      const res = await put("/api/driver/push-subscription", token, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(await json(res)).toMatchObject({ error: { code: "validation_failed" } });
    }
    expect(await devicesOf(user.id)).toEqual([]);
  });

  it("an endpoint another account held moves to this one; the same one again is one device", async () => {
    const a = await driver();
    const b = await driver();
    const subscription = await fakeSubscription();
    await put("/api/driver/push-subscription", a.token, subscription);
    expect(await json(await put("/api/driver/push-subscription", b.token, subscription))).toEqual({ devices: 1 });
    expect(await json(await put("/api/driver/push-subscription", b.token, subscription))).toEqual({ devices: 1 });
    expect(await devicesOf(a.user.id)).toEqual([]);
    expect(await devicesOf(b.user.id)).toMatchObject([{ endpoint: subscription.endpoint }]);
  });

  it(`past ${MAX_PUSH_SUBSCRIPTIONS} devices the oldest goes`, async () => {
    const { user, token } = await driver();
    const subscriptions = [];
    for (let i = 0; i <= MAX_PUSH_SUBSCRIPTIONS; i++) {
      subscriptions.push(await fakeSubscription());
      await savePushSubscription(db, env, user.id, subscriptions[i]!, Date.now() + i);
    }
    const kept = (await devicesOf(user.id)).map((d) => d.endpoint);
    expect(kept).toHaveLength(MAX_PUSH_SUBSCRIPTIONS);
    expect(kept).not.toContain(subscriptions[0]!.endpoint);
    expect(await json(await call("/api/driver/notifications", { token }))).toMatchObject({ devices: MAX_PUSH_SUBSCRIPTIONS });
  });

  it("production refuses a push service that is not https on a public host", async () => {
    const { user } = await driver();
    const production = { ...env, ENVIRONMENT: "production" } as Env;
    const subscription = await fakeSubscription();
    await expect(savePushSubscription(db, production, user.id, subscription)).rejects.toMatchObject({ code: "validation_failed", status: 400 });
    await expect(savePushSubscription(db, production, user.id, { ...subscription, endpoint: "https://127.0.0.1/push/x" })).rejects.toMatchObject({
      code: "validation_failed",
    });
    expect(await savePushSubscription(db, production, user.id, { ...subscription, endpoint: "https://push.example.com/x" })).toEqual({ devices: 1 });
  });

  it("DELETE removes only the caller's device with that endpoint; an absent one is fine", async () => {
    const a = await driver();
    const b = await driver();
    const mine = await fakeSubscription();
    const theirs = await fakeSubscription();
    await put("/api/driver/push-subscription", a.token, mine);
    await put("/api/driver/push-subscription", b.token, theirs);
    const del = (token: string, endpoint: string) => call("/api/driver/push-subscription", { method: "DELETE", token, body: { endpoint } });
    expect(await json(await del(a.token, theirs.endpoint))).toEqual({ devices: 1 });
    expect(await devicesOf(b.user.id)).toHaveLength(1);
    expect(await json(await del(a.token, mine.endpoint))).toEqual({ devices: 0 });
    expect(await json(await del(a.token, mine.endpoint))).toEqual({ devices: 0 });
    expect((await del(a.token, "")).status).toBe(400);
  });
});

describe("an administrator acting for the driver", () => {
  it("reads the driver's settings as the driver does; an administrator's account has none (404)", async () => {
    const { user, token } = await driver();
    await put("/api/driver/notifications", token, { channels: { searchStopped: "sms" } });
    const admin = await tokenFor(await createUser({ isAdmin: true, roleName: "support" }), { isAdmin: true });
    const res = await call(`/api/admin/users/${user.id}/dashboard/notifications`, { token: admin });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual(await json(await call("/api/driver/notifications", { token })));
    const other = await createUser({ isAdmin: true, roleName: "support" });
    expect((await call(`/api/admin/users/${other.id}/dashboard/notifications`, { token: admin })).status).toBe(404);
  });
});

describe("signing out with pushEndpoint", () => {
  it("forgets that device of the account signing out, and no other", async () => {
    const user = await seedUser();
    const tokens = await signIn(user);
    const other = await driver();
    const mine = await fakeSubscription();
    const kept = await fakeSubscription();
    await put("/api/driver/push-subscription", tokens.idToken, mine);
    await put("/api/driver/push-subscription", tokens.idToken, kept);
    await put("/api/driver/push-subscription", other.token, await fakeSubscription());
    const res = await call("/api/auth/sign-out", { body: { refreshToken: tokens.refreshToken, pushEndpoint: mine.endpoint } });
    expect(res.status).toBe(200);
    expect((await devicesOf(user.id)).map((d) => d.endpoint)).toEqual([kept.endpoint]);
    expect(await devicesOf(other.user.id)).toHaveLength(1);
  });
});
