/**
 * The capture engine when things go wrong: accepts whose answer is lost (settled from the platform's
 * schedule, never accepted twice), the object evicted between polls, the platform's 429s, 5xx and
 * time-outs (back-off), all against the fake platform over HTTP.
 */
import { abortAllDurableObjects, env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it, vi } from "vitest";
import { connectedDriver } from "../test/connected-driver";
import { engineStarter, HOUR, recordsOf, sleep, soon, waitForRecords, wonBlocksInD1 } from "../test/engine-fixtures";
import { captureSessionOf } from "./capture";

const start = engineStarter();

describe("failures, restarts and the platform's limits", () => {
  it("an accept whose answer is lost is resolved from the platform's schedule, not accepted again, across a restart", async () => {
    const d = await connectedDriver({ faults: [{ kind: "lost", on: "accept" }] });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await start(d.user.id);
    // The accept hangs until the platform time-out (1 s in tests); then the object restarts.
    await sleep(1300);
    await abortAllDurableObjects();
    const [row] = await waitForRecords(d.user.id, 1, 6000);
    // Settled from the schedule: the assignment at the offer's station and times, with its id.
    expect(row).toMatchObject({ platformOfferId: id, status: "won", blockId: expect.stringMatching(/^SA/) });
    const accepts = ((await (await fetch(`${env.FAKE_PLATFORM_URL}/__control/accepts`)).json()) as { accepts: { offerId: string }[] }).accepts;
    expect(accepts.filter((a) => a.offerId === id)).toHaveLength(1);
    expect((await d.world.stats()).doubleAccepts).toBe(0);
  });

  it("a restart in the middle of a poll loses no offer: each is in the history once, the won block in D1 once", async () => {
    const d = await connectedDriver({ filters: { minPayCents: 5000 }, faults: [{ kind: "lost", on: "accept" }] });
    const [good, poor] = await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 7200 },
      // Gone from the platform's list before the object is back: only what the first poll wrote can record it.
      { serviceAreaId: d.stations[0]!, startsAt: soon(6), endsAt: soon(8), payCents: 3000, expiresInMs: 700 },
    ]);
    await start(d.user.id);
    // The accept of the good one is out (its answer never comes) when the object restarts.
    await sleep(450);
    await abortAllDurableObjects();
    const rows = await waitForRecords(d.user.id, 2, 6000);
    expect(rows.map((r) => [r.platformOfferId, r.status]).sort()).toEqual(
      [
        [good, "won"],
        [poor, "disliked"],
      ].sort(),
    );
    await vi.waitFor(async () => expect((await wonBlocksInD1(d.user.id)).map((r) => r.platformOfferId)).toEqual([good]));
    await sleep(600);
    expect(await recordsOf(d.user.id)).toHaveLength(2);
    expect(await wonBlocksInD1(d.user.id)).toHaveLength(1);
  });

  it("takes nothing that overlaps an accept whose answer was lost until that accept is settled", async () => {
    const d = await connectedDriver({ faults: [{ kind: "lost", on: "accept" }] });
    const base = soon(3);
    const [rich, cheap] = await d.world.offers([
      { serviceAreaId: d.stations[0]!, startsAt: base, endsAt: base + 2 * HOUR, payCents: 9000 },
      { serviceAreaId: d.stations[0]!, startsAt: base + HOUR, endsAt: base + 3 * HOUR, payCents: 4000 },
    ]);
    // The rich one's accept is lost (the platform gives us the block, the answer never comes); the
    // next poll lists only the cheap one, which must wait for the schedule to say the rich one is ours.
    await start(d.user.id);
    const rows = await waitForRecords(d.user.id, 2, 8000);
    expect(rows.find((r) => r.platformOfferId === rich)).toMatchObject({ status: "won" });
    expect(rows.find((r) => r.platformOfferId === cheap)).toMatchObject({ status: "disliked", reasons: ["overlap"] });
    expect(await d.world.stats()).toMatchObject({ overlaps: 0, doubleAccepts: 0 });
  });

  it("an accept that failed before the platform took it is tried again while the offer is open", async () => {
    const d = await connectedDriver({ faults: [{ kind: "5xx", on: "accept" }] });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1, 6000);
    expect(row).toMatchObject({ platformOfferId: id, status: "won" });
    expect(await recordsOf(d.user.id)).toHaveLength(1);
  });

  it("remembers decided offers across a restart: nothing is judged or recorded twice", async () => {
    const d = await connectedDriver({ filters: { minPayCents: 9000 } });
    await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000, expiresInMs: 120_000 }]);
    const stub = captureSessionOf(env, d.user.id);
    await start(d.user.id);
    await waitForRecords(d.user.id, 1);
    // A record deleted behind the engine's back is not written again: the object remembers it decided.
    await runInDurableObject(stub, (_instance, state) => void state.storage.sql.exec("DELETE FROM offers"));
    await abortAllDurableObjects();
    await sleep(1000);
    expect(await recordsOf(d.user.id)).toHaveLength(0);
    expect((await captureSessionOf(env, d.user.id).status(d.user.id)).state).toBe("searching");
  });

  it("Flex's rate limit (400 \"Rate exceeded\", no wait given) locks the engine out: no poll until the lockout's wait is over", async () => {
    // One poll per 2 s allowed; the engine asks every 300 ms until told "Rate exceeded".
    const d = await connectedDriver({ offersRate: 0.5, offersBurst: 1 });
    await start(d.user.id);
    await sleep(2600);
    const mine = (await (await fetch(`${env.FAKE_PLATFORM_URL}/__control/stats?polls=1`)).json()) as {
      drivers: Record<string, { polls: number; overLimit: number; pollTimes: number[] }>;
    };
    const polls = mine.drivers[d.driverId]!;
    // Refused again right after the first wait (the bucket is not full yet): the second wait is twice as long.
    expect(polls.overLimit).toBeGreaterThanOrEqual(1);
    expect(polls.overLimit).toBeLessThanOrEqual(2);
    // The first poll, the refused one, and one after the wait (CAPTURE_LOCKOUT_MS, a second in tests) at most.
    expect(polls.polls).toBeLessThanOrEqual(3);
    const gaps = polls.pollTimes.slice(1).map((t, i) => t - polls.pollTimes[i]!);
    for (const gap of gaps.slice(1)) expect(gap).toBeGreaterThanOrEqual(Number(env.CAPTURE_LOCKOUT_MS));
    expect(["rate_limited", "searching"]).toContain((await captureSessionOf(env, d.user.id).status(d.user.id)).state);
  });

  it("Spark's modelled 429 with Retry-After is waited out as asked, never polling over the limit again", async () => {
    const d = await connectedDriver({ app: "spark", zones: ["America/Chicago"], offersRate: 0.5, offersBurst: 1 });
    await start(d.user.id);
    await sleep(2600);
    const mine = (await d.world.stats()).drivers[d.driverId]!;
    expect(mine.overLimit).toBe(1);
    // The 429 said "Retry-After: 2": at most the first poll, the refused one and one after the wait.
    expect(mine.polls).toBeLessThanOrEqual(3);
    expect((await captureSessionOf(env, d.user.id).status(d.user.id)).state).toBe("searching");
  });

  it("backs off on 5xx and time-outs, then searches again", async () => {
    const d = await connectedDriver({
      faults: [
        { kind: "5xx", on: "offers" },
        { kind: "timeout", on: "offers" },
      ],
    });
    const [id] = await d.world.offers([{ serviceAreaId: d.stations[0]!, startsAt: soon(3), endsAt: soon(5), payCents: 6000 }]);
    await start(d.user.id);
    const [row] = await waitForRecords(d.user.id, 1, 8000);
    expect(row).toMatchObject({ platformOfferId: id, status: "won" });
  });
});
