/**
 * Screenshots of the landing page, sign-in and the driver's dashboard at a phone's width and a
 * desktop's, kept as artifacts (e2e/artifacts/screenshots/, not committed) for people to look at.
 */
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { resolve } from "node:path";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { DEMO, dashboardDriverPhone } from "../scripts/seed.ts";
import { baseUrl, launch, newPage } from "./browser.ts";

const OUT = resolve(import.meta.dirname, "artifacts/screenshots");
const WIDTHS = { phone: { width: 390, height: 844 }, desktop: { width: 1280, height: 800 } };

let browser: Browser;
before(async () => {
  browser = await launch();
  mkdirSync(OUT, { recursive: true });
});
after(async () => {
  await browser?.close();
});

/** The seeded driver whom the dashboard shows as it is (the demo driver starts unconnected). */
async function driverTokens() {
  const res = await fetch(`${baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumber: dashboardDriverPhone(), app: "flex", password: DEMO.driver.password }),
  });
  return ((await res.json()) as { tokens: unknown }).tokens;
}

for (const [name, path, signedIn, heading] of [
  ["landing", "/", false, "Better blocks, without the refresh"],
  ["login", "/login", false, "Sign in"],
  ["dashboard", "/flex/dashboard", true, "Dashboard"],
] as const) {
  test(`screenshots of ${name} at phone and desktop widths`, async () => {
    const tokens = signedIn ? await driverTokens() : null;
    for (const [size, viewport] of Object.entries(WIDTHS)) {
      const page = await newPage(browser, viewport);
      if (tokens) await page.addInitScript((stored) => localStorage.setItem("bp.session", JSON.stringify(stored)), tokens);
      await page.goto(path);
      await page.getByRole("heading", { level: 1, name: heading }).waitFor();
      await page.waitForLoadState("networkidle", { timeout: 5000 }).catch(() => {});
      await page.waitForFunction(() => !document.querySelector(".splash, .status-view-loading, .landing-signin-waiting"), null, { timeout: 10_000 });
      const file = resolve(OUT, `${name}-${size}.png`);
      await page.screenshot({ path: file, fullPage: true });
      console.log(`  screenshot: ${file}`);
      assert.equal(new URL(page.url()).pathname, path);
      await page.context().close();
    }
  });
}
