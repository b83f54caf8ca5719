/**
 * The platform's rate limit end to end, in Chromium against the built app and the fake delivery
 * platform (started by e2e/run.ts): a connected driver's engine is searching when the platform
 * answers "Rate exceeded"; the dashboard, on a phone, then says the platform is limiting the
 * account and when searching resumes (station time), in English and Spanish, and the engine makes
 * no offers call meanwhile. Getting there (registering, connecting, filters) is done through the
 * API and the platform's own sign-in page: the screens of those steps are e2e/driver.test.ts's.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { baseUrl, launch, newPage, newPhone, storeSession } from "./browser.ts";
import { CHICAGO, codeTextedTo, grantService, platformUrl } from "./drivers.ts";
import { signInOwner, type Tokens } from "./owner.ts";

const PASSWORD = "Limit3d!e2e";
const ip = `203.0.113.${200 + Math.floor(Math.random() * 50)}`;

let browser: Browser;
let owner: Tokens;
before(async () => {
  browser = await launch();
  owner = await signInOwner();
});
after(async () => {
  await browser?.close();
});

async function call(path: string, init: { method?: string; token?: string; body?: unknown } = {}) {
  const res = await fetch(`${baseUrl}${path}`, {
    method: init.method ?? (init.body === undefined ? "GET" : "POST"),
    headers: {
      "Content-Type": "application/json",
      "CF-Connecting-IP": ip,
      ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** The offers calls the platform has had from this account so far. */
async function offersCalls(email: string): Promise<number> {
  const res = await fetch(`${platformUrl}/__control/calls?${new URLSearchParams({ account: email })}`);
  const { calls } = (await res.json()) as { calls: Record<string, number> };
  return Object.entries(calls)
    .filter(([name]) => name.endsWith("/GetOffersForProviderPost"))
    .reduce((sum, [, n]) => sum + n, 0);
}

test("a searching driver's account gets “Rate exceeded”: the dashboard says when searching resumes, on a phone, in English and Spanish", async () => {
  const phone = newPhone();
  const email = `lim.${phone.e164.slice(2)}@example.com`;

  // A confirmed, signed-in driver.
  const registered = await call("/api/auth/register", {
    body: { phoneNumber: phone.e164, password: PASSWORD, name: "Lena Limit", app: "flex", language: "en" },
  });
  assert.equal(registered.status, 201, registered.text);
  const confirmed = await call("/api/auth/confirm", {
    body: { phoneNumber: phone.e164, app: "flex", code: await codeTextedTo(owner.idToken, phone.e164), password: PASSWORD },
  });
  assert.equal(confirmed.status, 200, confirmed.text);
  const signedIn = await call("/api/auth/sign-in", { body: { phoneNumber: phone.e164, app: "flex", password: PASSWORD } });
  assert.equal(signedIn.status, 200, signedIn.text);
  const tokens = (signedIn.body as { tokens: Tokens }).tokens;
  assert.ok(tokens?.idToken, `no tokens: ${signedIn.text}`);
  const token = tokens.idToken;

  // Connected on the platform's own sign-in page, which lands on its /ap/maplanding with a code.
  const attempt = await call("/api/driver/connection/sign-in", { method: "POST", token });
  assert.equal(attempt.status, 201, attempt.text);
  const { attemptId, signInUrl } = attempt.body as { attemptId: string; signInUrl: string };
  const signIn = await newPage(browser);
  await signIn.goto(signInUrl);
  await signIn.getByLabel("Email").fill(email);
  await signIn.getByLabel("Password").fill("platform-secret");
  await signIn.getByRole("button", { name: "Sign in" }).click();
  await signIn.waitForURL((url) => url.pathname.endsWith("/ap/maplanding"), { timeout: 15_000 });
  const landed = await call("/api/driver/connection/landing", { token, body: { attemptId, landingUrl: signIn.url() } });
  assert.equal(landed.status, 200, landed.text);
  await signIn.context().close();

  // Filters: the Chicago station, every day open all day (so the test runs at any hour); paid up; on.
  assert.equal((await call("/api/driver/stations", { token })).status, 200);
  const allDay = [{ start: "00:00", end: "00:00" }];
  const filters = await call("/api/driver/filters", {
    method: "PUT",
    token,
    body: {
      stations: [{ id: CHICAGO }],
      minPayCents: 5000,
      minHourlyCents: 0,
      arrivalBufferMinutes: 30,
      minDurationMinutes: 0,
      maxDurationMinutes: 0,
      dailyCapMinutes: 0,
      schedule: Object.fromEntries(["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, allDay])),
    },
  });
  assert.equal(filters.status, 200, filters.text);
  grantService(phone.e164);
  const on = await call("/api/driver/engine", { token, body: { on: true } });
  assert.equal(on.status, 200, on.text);

  // The dashboard, on a phone: searching.
  const page = await newPage(browser, { width: 390, height: 844 });
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && !/status of 4\d\d/.test(m.text()) && errors.push(m.text()));
  await storeSession(page, tokens);
  await page.goto("/flex/dashboard");
  await page.getByText(/Searching 1 station until/).waitFor({ timeout: 30_000 });

  // The platform's next answer to this account's offers call is its 400 "Rate exceeded" (the fake's control API).
  const fault = await fetch(`${platformUrl}/__control/limits`, {
    method: "POST",
    body: JSON.stringify({ account: email, faults: [{ kind: "429", on: "offers" }] }),
  });
  assert.equal(fault.status, 200, await fault.text());
  const limited = page.getByText(/^The platform is limiting your account; searching resumes at \d{1,2}:\d{2}\s[AP]M\.$/);
  await limited.waitFor({ timeout: 30_000 });

  // The time said is the lockout's end in the station's time, as the engine answers it.
  const engine = (await call("/api/driver/engine", { token })).body.engine as { state: string; until: number; since: number; timeZone: string };
  assert.equal(engine.state, "rate_limited");
  assert.equal(engine.timeZone, "America/Chicago");
  const resumes = new Intl.DateTimeFormat("en-US", { timeZone: engine.timeZone, hour: "numeric", minute: "2-digit" }).format(engine.until);
  assert.equal(await limited.textContent(), `The platform is limiting your account; searching resumes at ${resumes}.`);
  assert.ok(engine.until - engine.since >= 25 * 60_000, `a lockout of ${engine.until - engine.since} ms`);
  // Politely, with what it means, and nothing shown as an error; still on; as wide as the phone.
  const notice = page.locator(".engine-notices [role=status]");
  await notice.getByText("Your paid service time keeps running meanwhile.", { exact: false }).waitFor();
  assert.equal(await page.getByRole("alert").count(), 0);
  assert.equal(await page.getByRole("switch").getAttribute("aria-checked"), "true");
  assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 390), "the dashboard is wider than the phone");

  // The lockout holds: no offers call reaches the platform while it lasts.
  const before = await offersCalls(email);
  await page.waitForTimeout(6000);
  assert.equal(await offersCalls(email), before, "the engine called the platform during the lockout");

  // On a desktop too (where the top bar has the language toggle), in Spanish.
  await page.setViewportSize({ width: 1280, height: 800 });
  await page.getByRole("button", { name: /Español/ }).click();
  const resumesEs = new Intl.DateTimeFormat("es-US", { timeZone: engine.timeZone, hour: "numeric", minute: "2-digit" }).format(engine.until);
  await page.getByText(`La plataforma está limitando tu cuenta; a las ${resumesEs} se reanuda la búsqueda.`).waitFor();

  // Off again, so the engine stops for the rest of the run.
  const off = await call("/api/driver/engine", { token, body: { on: false } });
  assert.equal(off.status, 200, off.text);
  await page.context().close();
  assert.deepEqual(errors, []);
});
