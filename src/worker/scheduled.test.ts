import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runScheduledJobs, SCHEDULED_JOBS } from "./scheduled";

describe("scheduled jobs", () => {
  it("lists each job the cron runs, once", () => {
    expect(SCHEDULED_JOBS.map((job) => job.name)).toEqual([
      "retention",
      "recover stalled sends",
      "prune dashboard cache",
      "file drop-off leads",
      "billing",
      "recover stalled notifications",
      "tell drivers their service ends",
    ]);
  });

  it("starts every job with the tick's time, each kept alive on its own, a failing one holding back none", async () => {
    const ran: [string, number][] = [];
    const kept: Promise<unknown>[] = [];
    const job = (name: string, fails = false) => ({
      name,
      run: async (_env: Env, now: number) => {
        ran.push([name, now]);
        if (fails) throw new Error(`${name} failed`);
      },
    });
    runScheduledJobs(env, 1_800_000_000_000, (promise) => kept.push(promise), [job("a"), job("b", true), job("c")]);
    expect(ran).toEqual([
      ["a", 1_800_000_000_000],
      ["b", 1_800_000_000_000],
      ["c", 1_800_000_000_000],
    ]);
    expect((await Promise.allSettled(kept)).map((result) => result.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  });
});
