/**
 * The admin console as a new owner meets it: signing in lands on the dashboard with its guided
 * tour; the users table leads to a driver; their service time is extended by 3 days with a
 * reason; their dashboard opens as they see it, under the "acting for" banner; the audit log
 * shows who extended it and who opened their dashboard. And a deep link opened signed out survives the sign-in.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { DEMO } from "../scripts/seed.ts";
import { launch, newPage } from "./browser.ts";
import { freshTotp } from "./owner.ts";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  return errors;
}

async function signInAsOwner(page: Page) {
  await page.getByLabel("Phone number").fill(DEMO.owner.phone);
  await page.getByLabel("Password", { exact: true }).fill(DEMO.owner.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByLabel("6-digit code").fill(await freshTotp());
  await page.getByRole("button", { name: "Verify" }).click();
}

const onPath = (page: Page, pathname: string) => page.waitForURL((url) => url.pathname === pathname);
const titled = (page: Page, title: string) => page.waitForFunction((expected) => document.title === expected, title);

test("the owner signs in, follows the tour, opens a driver from the users table, extends their service by 3 days and finds it in the audit log", async () => {
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await page.goto("/login");
  await signInAsOwner(page);
  await onPath(page, "/admin");
  await titled(page, "Admin dashboard · Blockpilot");

  // First visit: the tour opens by itself, on the live figures.
  const tour = page.locator(".tour-popover");
  await tour.getByText(/users that are active right now/).waitFor();
  await page.keyboard.press("ArrowRight");
  await tour.getByText(/database of registered users/).waitFor();
  await tour.getByRole("button", { name: "Next step" }).click();
  await tour.getByText(/users who paid today/).waitFor();
  await page.keyboard.press("ArrowLeft");
  await tour.getByText(/database of registered users/).waitFor();
  await page.keyboard.press("Escape");
  await tour.waitFor({ state: "detached" });
  // The figures behind it are real numbers from the seeded data.
  const active = page.getByRole("region", { name: "Right now" }).getByText("System on").locator("xpath=..");
  assert.match((await active.textContent()) ?? "", /System on\d/);

  // The users table, searched, leads to the driver's page.
  await page.getByRole("navigation", { name: "Admin pages" }).getByRole("link", { name: "Users" }).click();
  await onPath(page, "/admin/users");
  await page.getByLabel("Search").fill(DEMO.driver.name);
  const link = page.getByRole("link", { name: DEMO.driver.name });
  await link.waitFor();
  await link.click();
  await page.getByRole("heading", { name: DEMO.driver.name, level: 1 }).waitFor();
  await titled(page, `${DEMO.driver.name} · Blockpilot`);
  const userPath = new URL(page.url()).pathname;
  const userId = userPath.split("/").pop();

  // Extend by 3 days with a reason; the expiration moves by exactly 3 days.
  const section = page.getByRole("region", { name: "Service time" });
  const current = async () => (await section.getByText(/Service paid until/).textContent()) ?? "";
  const before = await current();
  const reason = `Outage on Monday (${Date.now()})`;
  await section.getByLabel(/Days to add/).fill("3");
  await section.getByLabel(/Reason/).fill(reason);
  await section.getByRole("button", { name: "Change service time" }).click();
  await section.getByText("Extended by 3 days.").waitFor();
  await page.waitForFunction((text) => !document.body.textContent?.includes(text), before);
  const parse = (text: string) => {
    const [d, m, y] = /(\d\d)\/(\d\d)\/(\d\d)/.exec(text)!.slice(1).map(Number) as [number, number, number];
    return Date.UTC(2000 + y, m - 1, d);
  };
  assert.equal((parse(await current()) - parse(before)) / 86_400_000, 3, `${before} → ${await current()}`);
  await section.getByRole("cell", { name: reason }).waitFor();

  // Their dashboard, as they see it, under the "acting for" banner; the banner leads back.
  await page.getByRole("link", { name: "Their dashboard" }).click();
  await onPath(page, `${userPath}/dashboard`);
  const banner = page.getByRole("note", { name: new RegExp(`^Acting for ${DEMO.driver.name}`) });
  await banner.waitFor();
  await page.getByRole("switch", { name: /Search for blocks/ }).waitFor();
  await titled(page, `${DEMO.driver.name}'s dashboard · Blockpilot`);
  await banner.getByRole("link", { name: "Back to their page" }).click();
  await onPath(page, userPath);

  // The audit log has the entry, by the owner, about this driver.
  await page.getByRole("navigation", { name: "Admin pages" }).getByRole("link", { name: "Audit log" }).click();
  await onPath(page, "/admin/audit");
  await page.getByLabel("About").fill(`user:${userId}`);
  const row = page.getByRole("row").filter({ hasText: reason });
  await row.waitFor();
  assert.match((await row.textContent()) ?? "", new RegExp(`${DEMO.owner.name}.*billing\\.service_time_adjusted.*user:${userId}`));
  // Opening their dashboard is in the log too: by the owner, about this driver.
  const opened = page.getByRole("row").filter({ hasText: "driver.dashboard_viewed" });
  await opened.first().waitFor();
  assert.match((await opened.first().textContent()) ?? "", new RegExp(`${DEMO.owner.name}.*driver\\.dashboard_viewed.*user:${userId}`));
  assert.deepEqual(errors, []);
});

test("a deep link opened signed out lands there after signing in; a driver gets 'no access'", async () => {
  const page = await newPage(browser);
  await page.goto("/admin/audit?action=admin.user_created");
  await onPath(page, "/");
  await page.goto("/login");
  await signInAsOwner(page);
  await onPath(page, "/admin/audit");
  assert.equal(new URL(page.url()).searchParams.get("action"), "admin.user_created");
  await page.getByRole("heading", { name: "Audit log" }).waitFor();

  const driver = await newPage(browser, { width: 390, height: 800 });
  await driver.goto("/login");
  await driver.getByLabel("Phone number").fill(DEMO.driver.phone);
  await driver.getByLabel("Password", { exact: true }).fill(DEMO.driver.password);
  await driver.getByRole("button", { name: "Sign in", exact: true }).click();
  await driver.waitForURL((url) => url.pathname !== "/login");
  await driver.goto("/admin/users");
  // In the driver's language, whichever the demo data gave them.
  await driver.getByRole("heading", { name: /^(No access|Sin acceso)$/ }).waitFor();
  assert.equal(new URL(driver.url()).pathname, "/admin/users");
});
