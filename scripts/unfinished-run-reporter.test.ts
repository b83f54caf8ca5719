import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const run = (env: Record<string, string> = {}) =>
  spawnSync("npx", ["vitest", "run", "--config", "scripts/fixtures/unfinished-run/vitest.config.ts"], {
    encoding: "utf8",
    env: { ...process.env, ...env, FORCE_COLOR: "0" },
    timeout: 60_000,
  });

describe("the unfinished-run reporter", () => {
  it("says how the run ended and which files were running when Vitest's process ends mid-run", () => {
    const result = run({ END_RUN_WITH: "3", RUNNING_MARKER: join(mkdtempSync(join(tmpdir(), "unfinished-run-")), "running") });
    expect(result.status).toBe(3);
    expect(result.stderr).toMatch(/The test run ended before its summary \(exit code 3\) after \d+ s, with [\d.]+ GiB of [\d.]+ GiB memory free\./);
    expect(result.stderr).toMatch(/Running then:\n {2}.*slow\.fixture\.ts \(for [\d.]+ s\)/);
  }, 60_000);

  it("says nothing when the run ends with its summary", () => {
    const result = run();
    expect(result.status).toBe(0);
    expect(result.stdout).toMatch(/1 passed/);
    expect(result.stderr).not.toMatch(/ended before its summary/);
  }, 60_000);
});
