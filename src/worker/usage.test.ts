/** The Worker's metering for the benches: off unless USAGE_LOG is "1"; on, it counts and logs totals. */
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { captureSessionOf } from "./platform/capture";
import { logUsage, usageEnv } from "./usage";

afterEach(() => vi.restoreAllMocks());

const lastLine = (spy: { mock: { calls: unknown[][] } }) =>
  JSON.parse(String(spy.mock.calls.filter((c) => String(c[0]).includes("worker.usage")).at(-1)?.[0])) as Record<string, unknown> & {
    doCalls: Record<string, number>;
  };

describe("the Worker's usage meter", () => {
  it("hands the environment through untouched when USAGE_LOG is not set", () => {
    expect(usageEnv(env)).toBe(env);
    const spy = vi.spyOn(console, "log");
    logUsage(env, { request: true });
    expect(spy).not.toHaveBeenCalled();
  });

  it("counts D1 statements, Durable Object calls and queue messages, and logs the totals", async () => {
    const on = { ...env, USAGE_LOG: "1" } as Env;
    const metered = usageEnv(on);
    expect(usageEnv(on)).toBe(metered);
    const spy = vi.spyOn(console, "log");
    logUsage(metered, { request: true });
    const before = lastLine(spy);
    await metered.DB.prepare("SELECT 1").all();
    await metered.DB.prepare("CREATE TABLE IF NOT EXISTS usage_probe (v)").run();
    await metered.DB.prepare("INSERT INTO usage_probe VALUES (1)").run();
    await captureSessionOf(metered, 424_242).status(424_242);
    logUsage(metered, { batchOf: 3 });
    const after = lastLine(spy);
    expect((after.d1Reads as number) - (before.d1Reads as number)).toBe(1);
    expect((after.d1Writes as number) - (before.d1Writes as number)).toBe(2);
    expect((after.d1RowsWritten as number) - (before.d1RowsWritten as number)).toBeGreaterThanOrEqual(1);
    expect((after.doCalls.CAPTURE_SESSION ?? 0) - (before.doCalls.CAPTURE_SESSION ?? 0)).toBe(1);
    expect((after.queueMessagesReceived as number) - (before.queueMessagesReceived as number)).toBe(3);
    await env.DB.prepare("DROP TABLE usage_probe").run();
  });
});
