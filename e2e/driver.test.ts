/**
 * The driver product end to end, in Chromium against the built app and the fake delivery platform
 * (started by e2e/run.ts): a new driver registers, connects the platform account on the platform's
 * own sign-in page (pasting the address it lands on), sets filters, turns the system on, and within
 * a minute sees a won block and a disliked offer with its reason on the dashboard, and the block on
 * the calendar.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { launch, newPage, newPhone } from "./browser.ts";
import { CHICAGO, codeTextedTo, grantService, platformUrl } from "./drivers.ts";
import { signInOwner, type Tokens } from "./owner.ts";

const HOUR = 3_600_000;

let browser: Browser;
let owner: Tokens;
before(async () => {
  browser = await launch();
  owner = await signInOwner();
});
after(async () => {
  await browser?.close();
});

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && !/status of 4\d\d/.test(m.text()) && errors.push(m.text()));
  return errors;
}

const path = (page: Page, pathname: string) => page.waitForURL((url) => url.pathname === pathname, { timeout: 15_000 });

/**
 * The dashboard on a phone (390 × 844): each offer is a card, nothing scrolls sideways, and the
 * reason an offer was not taken is inside the screen's width; back at 1280 px, the table with its header.
 */
async function assertCardsOnPhone(page: Page, reason: string) {
  await page.setViewportSize({ width: 390, height: 844 });
  const why = page.locator(".offers-table li", { hasText: reason });
  await why.scrollIntoViewIfNeeded();
  const phone = await page.evaluate(() => ({
    scrollWidth: document.scrollingElement!.scrollWidth,
    innerWidth,
    card: getComputedStyle(document.querySelector(".offers-table tr.offer")!).display,
    header: document.querySelector(".offers-table thead")!.getBoundingClientRect().width,
    // Anything of the offers' card (a card, a tab, the pager) past its right edge.
    outside: (() => {
      const card = document.querySelector(".dashboard-offers")!;
      const right = card.getBoundingClientRect().right;
      // (The column headers are clipped to a pixel, their boxes as wide as ever.)
      return [...card.querySelectorAll("*")]
        .filter((e) => !e.closest("thead") && e.getBoundingClientRect().right > right + 0.5)
        .map((e) => `${e.tagName.toLowerCase()}.${e.className}: ${e.textContent?.slice(0, 30)}`);
    })(),
  }));
  assert.ok(phone.scrollWidth <= phone.innerWidth, `the dashboard scrolls sideways at 390 px: ${phone.scrollWidth} px wide`);
  assert.deepEqual(phone.outside, [], "the offers' card is too narrow for what it holds at 390 px");
  assert.equal(phone.card, "grid", "an offer is not laid out as a card at 390 px");
  assert.ok(phone.header <= 1, "the table's header shows on a phone");
  // A card is still a row of the table for a screen reader (Chromium's accessibility tree), its
  // cells named by the hidden column headers.
  const cdp = await page.context().newCDPSession(page);
  const { nodes } = (await cdp.send("Accessibility.getFullAXTree")) as { nodes: { role?: { value?: string }; name?: { value?: string } }[] };
  await cdp.detach();
  const roles = (role: string) => nodes.filter((n) => n.role?.value === role).map((n) => n.name?.value ?? "");
  assert.ok(roles("columnheader").includes(reason.startsWith("Pay") ? "Why / action" : "Motivo / acción"), "the cards lost their column headers");
  assert.ok(roles("row").length >= 3, "the cards are not rows of a table");
  // e2e/accessibility.test.ts checks every page at 1280 px; the cards, here.
  const axe = await new AxeBuilder({ page })
    .include(".dashboard-offers")
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"])
    .analyze();
  const blocking = axe.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.help}`);
  assert.deepEqual(blocking, [], "axe finds serious or critical violations in the cards");
  const box = (await why.boundingBox())!;
  assert.ok(box.x >= 0 && box.x + box.width <= phone.innerWidth && box.width > 0, `the reason is outside the screen's width: ${JSON.stringify(box)}`);
  assert.ok(await why.isVisible(), "the reason is not visible");
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.locator(".offers-table th").first().waitFor();
  const wide = await page.evaluate(() => ({
    row: getComputedStyle(document.querySelector(".offers-table tr.offer")!).display,
    header: document.querySelector(".offers-table th")!.getBoundingClientRect().width,
  }));
  assert.deepEqual({ row: wide.row, header: wide.header > 1 }, { row: "table-row", header: true }, "the wide screen does not show the table");
}

test("a new driver connects, sets filters, turns the system on and sees a won block, a disliked offer and the calendar", async () => {
  const page = await newPage(browser);
  const errors = watchErrors(page);
  const phone = newPhone();
  const password = "Driv3r!e2e";
  const platformEmail = `flo.${phone.e164.slice(2)}@example.com`;

  // Register and confirm the phone.
  await page.goto("/register");
  await page.getByLabel("Full name").fill("Flo Flex");
  await page.getByLabel("Phone number").fill(phone.typed);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(password);
  const registeredAt = Date.now() - 1000;
  await page.getByRole("button", { name: "Create account" }).click();
  await path(page, "/confirm-account");
  await page.getByLabel("6-digit code").fill(await codeTextedTo(owner.idToken, phone.e164, registeredAt));
  await page.getByRole("button", { name: "Confirm account" }).click();

  // Connect the platform account on the platform's own sign-in page, opened in a new tab: any email
  // signs in at the fake, which then lands on its /ap/maplanding page with a one-time code.
  // On a phone-sized screen: both steps fit its width.
  await path(page, "/flex/login");
  await page.setViewportSize({ width: 390, height: 800 });
  await page.getByRole("heading", { name: "2. Paste the address of the page you land on" }).waitFor();
  const link = page.getByRole("link", { name: "Open the Amazon Flex sign-in (opens in a new tab)" });
  assert.equal(await link.getAttribute("target"), "_blank");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), "the connect page is wider than the phone");
  const [signIn] = await Promise.all([page.context().waitForEvent("page"), link.click()]);
  await signIn.waitForLoadState();
  assert.equal(new URL(signIn.url()).origin, new URL(platformUrl).origin, "the sign-in opens at the platform");
  await signIn.getByLabel("Email").fill(platformEmail);
  await signIn.getByLabel("Password").fill("platform-secret");
  await signIn.getByRole("button", { name: "Sign in" }).click();
  await signIn.waitForURL((url) => url.pathname.endsWith("/ap/maplanding"), { timeout: 15_000 });
  const landing = signIn.url();
  assert.ok(new URL(landing).searchParams.get("openid.oa2.authorization_code"), `no code in ${landing}`);
  await signIn.close();

  // The wrong address first (the sign-in page's own), then the page it landed on.
  const field = page.getByLabel("Address of the page you landed on");
  await field.fill((await link.getAttribute("href"))!);
  await page.getByRole("button", { name: "Connect account" }).click();
  await page.getByRole("alert").getByText("That is not the address of the page Amazon Flex shows after you sign in.", { exact: false }).waitFor();
  await field.fill(landing);
  await page.getByRole("button", { name: "Connect account" }).click();
  await page.setViewportSize({ width: 1280, height: 800 });

  // Filters: one station, a $50 minimum, every day open all day (so the test runs at any hour).
  await path(page, "/flex/settings");
  grantService(phone.e164);
  await page.getByRole("heading", { name: "Filters" }).waitFor();
  // Listed by the platform's name without its " - Amazon.com", in its city's group, with its zone.
  const chicago = page.getByRole("group", { name: /Chicago, IL/ });
  await chicago.getByText("Time zone: Central Time (Chicago)").waitFor();
  await chicago.getByLabel("Chicago (DCH1)").check();
  await page.getByLabel("Minimum block pay ($)").fill("50");
  for (const day of ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]) {
    await page.getByLabel(`${day} From`).fill("00:00");
    await page.getByLabel(`${day} To`).fill("00:00");
  }
  await page.getByRole("button", { name: "Save filters" }).click();
  await path(page, "/flex/dashboard");

  // Two offers appear at the station: one to take, one under the minimum.
  // A morning in Chicago a day or two ahead: both blocks (07:00–10:00, 12:00–14:00 at the latest) end
  // before midnight there, so each is judged by its pay alone whatever the hour the test runs at.
  let startsAt = Math.ceil((Date.now() + 26 * HOUR) / HOUR) * HOUR;
  const chicagoHour = (t: number) => Number(new Intl.DateTimeFormat("en-US", { timeZone: "America/Chicago", hour: "numeric", hourCycle: "h23" }).format(t));
  while (chicagoHour(startsAt) < 6 || chicagoHour(startsAt) > 7) startsAt += HOUR;
  const res = await fetch(`${platformUrl}/__control/offers`, {
    method: "POST",
    body: JSON.stringify({
      offers: [
        { app: "flex", serviceAreaId: CHICAGO, startsAt, endsAt: startsAt + 3 * HOUR, payCents: 7200, expiresInMs: 120_000 },
        { app: "flex", serviceAreaId: CHICAGO, startsAt: startsAt + 5 * HOUR, endsAt: startsAt + 7 * HOUR, payCents: 4000, expiresInMs: 120_000 },
      ],
    }),
  });
  assert.equal(res.status, 200);

  // The system on: the dashboard shows both within a minute, without a reload.
  await page.getByRole("switch", { name: /Search for blocks/ }).click();
  await page.getByText(/Searching 1 station until/).waitFor();
  const offers = page.locator(".offers-table");
  await offers
    .locator("tr[data-status=won]")
    .getByText(/Chicago \(DCH1\)/)
    .waitFor({ timeout: 60_000 });
  await offers.getByText("Pay $40 is under your $50 minimum").waitFor({ timeout: 60_000 });
  await page.getByRole("button", { name: "Won (1)" }).waitFor();
  await assertCardsOnPhone(page, "Pay $40 is under your $50 minimum");

  // And on the calendar, on its day in Chicago.
  const day = new Intl.DateTimeFormat("en-CA", { timeZone: "America/Chicago", year: "numeric", month: "2-digit", day: "2-digit" }).format(startsAt);
  await page.goto(`/flex/calendar?week=${day}`);
  const label = new Intl.DateTimeFormat("en-US", { weekday: "long", month: "short", day: "numeric", timeZone: "UTC" }).format(Date.parse(`${day}T00:00:00Z`));
  await page
    .getByRole("region", { name: label })
    .getByText(/Chicago \(DCH1\)/)
    .waitFor();
  await page.getByRole("region", { name: label }).getByText("$72").waitFor();

  // The insights, opened directly: pre-rendered as well (the heading and the lead, its largest paint),
  // then hydrated; the won block is in the what-if's "It took", and the what-if loads near the screen.
  await page.goto("/flex/insights");
  await page.getByRole("heading", { level: 1, name: "Insights" }).waitFor();
  assert.ok(
    await page.evaluate(
      () => document.documentElement.dataset.prerendered === location.pathname && !document.documentElement.classList.contains("render-client"),
    ),
    "the insights' pre-rendered page was not shown",
  );
  await page.getByRole("region", { name: "The market, last 30 days" }).waitFor();
  const whatIf = page.getByRole("region", { name: "What if?" });
  await whatIf.scrollIntoViewIfNeeded();
  await whatIf.getByLabel("Minimum $/hour").waitFor();
  await whatIf.getByRole("row", { name: /^Blocks/ }).waitFor();
  assert.equal(await whatIf.getByRole("row", { name: /^Blocks/ }).textContent(), "Blocks11", "the same filters take back the block the system won");

  // Spanish too, on the same dashboard, opened directly. Its first paint is the pre-rendered page (its
  // heading and a loading view) before any script has been asked for; the app then hydrates it and
  // shows the driver's dashboard in its place (with no hydration error: the errors checked below).
  await page.goto("/flex/dashboard");
  await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
  await page.getByRole("switch").waitFor();
  const first = await page.evaluate(() => ({
    shown: document.documentElement.dataset.prerendered === location.pathname && !document.documentElement.classList.contains("render-client"),
    paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
    script: Math.min(
      ...performance
        .getEntriesByType("resource")
        .filter((e) => e.name.endsWith(".js"))
        .map((e) => e.startTime),
    ),
    hydrated: !document.getElementById("root")?.hasAttribute("inert"),
  }));
  assert.ok(first.shown, "the dashboard's pre-rendered page was not shown");
  assert.ok(first.paint < first.script, `a script was asked for at ${first.script} ms, before the first paint at ${first.paint} ms`);
  assert.ok(first.hydrated, "the dashboard's page is still inert");
  await page.getByRole("button", { name: /Español/ }).click();
  await page.getByText("El pago de $40 está por debajo de tu mínimo de $50").waitFor();
  await assertCardsOnPhone(page, "El pago de $40 está por debajo de tu mínimo de $50");

  // Off again, so the engine stops polling for the rest of the run.
  await page.getByRole("switch").click();
  await page.getByText("Apagado: enciéndelo para buscar.").waitFor();
  assert.deepEqual(errors, []);
});
