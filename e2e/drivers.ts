/**
 * What the driver e2e tests share: the fake platform's address and its Chicago station, the code a
 * registration texts (read from the outbox as the owner), and a week of service granted straight
 * in the run's local database as a successful payment would leave it (paying is
 * e2e/payments.test.ts's own test).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { baseUrl } from "./browser.ts";

export const platformUrl = process.env.E2E_PLATFORM_URL ?? "http://127.0.0.1:8789";
/** The fake platform's Chicago station (test/fake-platform/server.ts): its id is opaque, its code in its name. */
export const CHICAGO = "e5c6d3a7-dch1";

/** The 6-digit code last texted to `phone` since `since` (epoch ms), waited for up to 15 s. */
export async function codeTextedTo(ownerToken: string, phone: string, since = 0): Promise<string> {
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${baseUrl}/api/admin/outbox?${new URLSearchParams({ to: phone, page: "1", pageSize: "20" })}`, {
      headers: { Authorization: `Bearer ${ownerToken}` },
    });
    const rows = ((await res.json()) as { rows: { body: string; createdAt: number }[] }).rows;
    const code = rows.find((r) => r.createdAt >= since && /\b\d{6}\b/.test(r.body))?.body.match(/\b(\d{6})\b/)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no code reached ${phone}`);
}

/** A week of service for the driver with this phone, written into the run's local database. */
export function grantService(phone: string): void {
  const state = process.env.D1_PERSIST_TO;
  assert.ok(state, "e2e/run.ts sets D1_PERSIST_TO");
  const sql = `UPDATE users SET expiration_at = ${Date.now() + 7 * 86_400_000}, good_standing = 1 WHERE phone = '${phone}'`;
  const result = spawnSync("wrangler", ["d1", "execute", "DB", "--local", `--persist-to=${state}`, "--command", sql], { encoding: "utf8" });
  assert.equal(result.status, 0, result.stderr);
}
