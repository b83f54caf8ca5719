/**
 * When the capture engine runs and when it stops: the schedule (paused, searching until when),
 * service expiring and a payment resuming it, a refused refresh disconnecting the driver (who is
 * told), a refused access token refreshed once and the call repeated (refused again right after a
 * good refresh: disconnected), the driver turning it off, one object per driver.
 */
import { env } from "cloudflare:test";
import { and, desc, eq, gt } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { driverFilters, outbox, platformAccounts, users } from "../db/schema";
import { connectedDriver } from "../test/connected-driver";
import { engineStarter, sleep } from "../test/engine-fixtures";
import { db, lastOutboxId, nextSms } from "../test/fixtures";
import { captureSessionOf, resumeCapture } from "./capture";

const start = engineStarter();

describe("when it runs and when it stops", () => {
  it("pauses outside the schedule and does not poll", async () => {
    const d = await connectedDriver({ filters: { schedule: {} } });
    // A schedule with no window at all: set after start is refused, so write it directly.
    await db.update(driverFilters).set({ schedule: {} }).where(eq(driverFilters.userId, d.user.id));
    const status = await start(d.user.id);
    expect(status).toMatchObject({ state: "paused", opensAt: null });
    await sleep(700);
    expect((await d.world.stats()).drivers[d.driverId]).toBeUndefined();
  });

  it("says until when it searches, read in the station's zone", async () => {
    const wholeDay = [{ start: "00:00", end: "00:00" }];
    const schedule = { mon: wholeDay, tue: wholeDay, wed: wholeDay, thu: wholeDay, fri: wholeDay, sat: wholeDay, sun: wholeDay };
    const d = await connectedDriver({ zones: ["America/Denver"], filters: { schedule } });
    const status = await start(d.user.id);
    expect(status.state).toBe("searching");
    if (status.state !== "searching") return;
    // A whole-day window ends at the next local midnight in Denver.
    const midnight = new Intl.DateTimeFormat("en-US", { timeZone: "America/Denver", hour: "numeric", minute: "numeric", hourCycle: "h23" }).format(
      status.until,
    );
    expect(midnight).toBe("00:00");
    expect(status.stations).toBe(1);
  });

  it("stops by itself when service expires, and a payment's resume starts it again", async () => {
    const d = await connectedDriver();
    // Service ends two seconds after the start, set just before it: a slow setup on a busy machine
    // (a clean-clone run took over 1.2 s) must not use the service up before the engine starts.
    await db
      .update(users)
      .set({ expirationAt: Date.now() + 2000 })
      .where(eq(users.id, d.user.id));
    expect((await start(d.user.id)).state).toBe("searching");
    await vi.waitFor(
      async () => {
        const s = await captureSessionOf(env, d.user.id).status(d.user.id);
        if (s.state !== "stopped") throw new Error(s.state);
        expect(s.reason).toBe("expired");
      },
      { timeout: 10_000, interval: 100 },
    );
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("stop");
    // Paid again:
    await db
      .update(users)
      .set({ expirationAt: Date.now() + 86_400_000 })
      .where(eq(users.id, d.user.id));
    await resumeCapture(env, d.user.id);
    expect((await captureSessionOf(env, d.user.id).status(d.user.id)).state).toBe("searching");
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("start");
  });

  it("resume does not start a system the driver turned off", async () => {
    const d = await connectedDriver();
    await start(d.user.id);
    await captureSessionOf(env, d.user.id).stop(d.user.id);
    await resumeCapture(env, d.user.id);
    expect(await captureSessionOf(env, d.user.id).status(d.user.id)).toEqual({ state: "stopped", reason: "driver" });
  });

  it("refuses to start without paid service, a connection or filters", async () => {
    const unpaid = await connectedDriver({ user: { expirationAt: Date.now() - 1000 } });
    expect(await start(unpaid.user.id)).toEqual({ state: "stopped", reason: "expired" });
    const unconnected = await connectedDriver({ connect: false });
    expect(await start(unconnected.user.id)).toEqual({ state: "stopped", reason: "disconnected" });
    const noFilters = await connectedDriver();
    await db.delete(driverFilters).where(eq(driverFilters.userId, noFilters.user.id));
    expect(await start(noFilters.user.id)).toEqual({ state: "stopped", reason: "setup" });
  });

  it("a refresh the platform refuses disconnects the driver, stops the engine and tells them", async () => {
    const d = await connectedDriver();
    const before = await lastOutboxId();
    await start(d.user.id);
    await sleep(400);
    await d.world.control("revoke", { email: d.email });
    await vi.waitFor(
      async () => {
        const row = await db.select().from(users).where(eq(users.id, d.user.id)).get();
        if (row?.accountConnected) throw new Error("still connected");
        expect(row?.status).toBe("stop");
      },
      { timeout: 4000, interval: 100 },
    );
    const account = await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get();
    expect(account).toMatchObject({ sealedTokens: null, disconnectReason: "refused" });
    expect(await captureSessionOf(env, d.user.id).status(d.user.id)).toEqual({ state: "stopped", reason: "disconnected" });
    const sms = await vi.waitFor(
      async () => {
        const row = await db
          .select()
          .from(outbox)
          .where(and(eq(outbox.to, d.user.phone), gt(outbox.id, before)))
          .orderBy(desc(outbox.id))
          .get();
        if (!row) throw new Error("no SMS yet");
        return row;
        // The text goes out by the queue, which hands over a batch after up to a second.
      },
      { timeout: 5000, interval: 50 },
    );
    expect(sms.body).toMatch(/ended the connection to your account/);
  });

  it("an access token the platform refuses (403) is refreshed once and the call repeated: the engine searches on", async () => {
    const d = await connectedDriver();
    await start(d.user.id);
    await sleep(400);
    // The access tokens die (expired early); the refresh token stays good.
    await d.world.control("revoke", { customerId: d.customerId, accessOnly: true });
    const polls = async () => (await d.world.calls(d.customerId))["POST /GetOffersForProviderPost"] ?? 0;
    const before = await polls();
    await vi.waitFor(async () => expect((await d.world.calls(d.customerId))["POST /auth/token"]).toBe(1), { timeout: 4000, interval: 100 });
    await vi.waitFor(async () => expect(await polls()).toBeGreaterThan(before + 2), { timeout: 4000, interval: 100 });
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.accountConnected).toBe(true);
    expect((await captureSessionOf(env, d.user.id).status(d.user.id)).state).toBe("searching");
  });

  it("a 403 again right after a good refresh disconnects the driver, who is told", async () => {
    const d = await connectedDriver({
      faults: [
        { kind: "403", on: "offers" },
        { kind: "403", on: "offers" },
      ],
    });
    const before = await lastOutboxId();
    await start(d.user.id);
    await vi.waitFor(
      async () =>
        expect(await db.select().from(platformAccounts).where(eq(platformAccounts.userId, d.user.id)).get()).toMatchObject({
          sealedTokens: null,
          disconnectReason: "refused",
        }),
      { timeout: 4000, interval: 100 },
    );
    // One refresh, which the platform granted; the repeated call was refused all the same.
    const calls = await d.world.calls(d.customerId);
    expect(calls["POST /auth/token"]).toBe(1);
    expect(calls["POST /GetOffersForProviderPost"]).toBe(2);
    expect(await captureSessionOf(env, d.user.id).status(d.user.id)).toEqual({ state: "stopped", reason: "disconnected" });
    const sms = await nextSms(d.user.phone, before);
    expect(sms.body).toMatch(/ended the connection to your account/);
  });

  it("the driver turning it off stops the polls", async () => {
    const d = await connectedDriver();
    await start(d.user.id);
    await sleep(500);
    await captureSessionOf(env, d.user.id).stop(d.user.id);
    const polls = (await d.world.stats()).drivers[d.driverId]!.polls;
    await sleep(800);
    expect((await d.world.stats()).drivers[d.driverId]!.polls).toBe(polls);
    expect((await db.select().from(users).where(eq(users.id, d.user.id)).get())?.status).toBe("stop");
  });

  it("one object serves one driver only", async () => {
    const a = await connectedDriver();
    const b = await connectedDriver();
    await captureSessionOf(env, a.user.id).status(a.user.id);
    let refused: unknown = null;
    try {
      await captureSessionOf(env, a.user.id).status(b.user.id);
    } catch (err) {
      refused = err;
    }
    expect(refused).toBeInstanceOf(Error);
    expect((refused as Error).message).toMatch(/belongs to user/);
  });
});
