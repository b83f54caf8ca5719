/**
 * The live dashboard end to end, in Chromium against the built app and the fake delivery platform
 * (started by e2e/run.ts): a connected, searching driver's dashboard opens its socket (the
 * assets' CSP `connect-src 'self'` lets it reach ws: on the same host), and a block the engine wins
 * arrives over it while the page asks for neither /api/driver/engine nor /api/driver/offers; with
 * WebSocket made to throw, the same dashboard still shows the next block, by polling. Getting there
 * (registering, connecting, filters) is done through the API and the platform's own sign-in page:
 * the screens of those steps are e2e/driver.test.ts's.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { baseUrl, launch, newPage, newPhone, storeSession } from "./browser.ts";
import { CHICAGO, codeTextedTo, grantService, platformUrl } from "./drivers.ts";
import { signInOwner, type Tokens } from "./owner.ts";

const HOUR = 3_600_000;
const PASSWORD = "L1ve!dash-e2e";
const ip = `203.0.113.${100 + Math.floor(Math.random() * 50)}`;

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
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": ip, ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}) },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  }).catch((err: unknown) => {
    throw new Error(`${path}: ${err instanceof Error ? `${err.message} (${String(err.cause)})` : String(err)}`);
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** A confirmed, signed-in Flex driver, connected at the fake platform, with the Chicago station all day, paid up, the system on. */
async function searchingDriver(name: string): Promise<Tokens> {
  const phone = newPhone();
  const email = `live.${phone.e164.slice(2)}@example.com`;
  const registered = await call("/api/auth/register", { body: { phoneNumber: phone.e164, password: PASSWORD, name, app: "flex", language: "en" } });
  assert.equal(registered.status, 201, registered.text);
  const code = await codeTextedTo(owner.idToken, phone.e164);
  const confirmed = await call("/api/auth/confirm", { body: { phoneNumber: phone.e164, app: "flex", code, password: PASSWORD } });
  assert.equal(confirmed.status, 200, confirmed.text);
  const signedIn = await call("/api/auth/sign-in", { body: { phoneNumber: phone.e164, app: "flex", password: PASSWORD } });
  assert.equal(signedIn.status, 200, signedIn.text);
  const tokens = (signedIn.body as { tokens: Tokens }).tokens;
  const token = tokens.idToken;

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

  assert.equal((await call("/api/driver/stations", { token })).status, 200);
  const allDay = [{ start: "00:00", end: "00:00" }];
  const filters = await call("/api/driver/filters", {
    method: "PUT",
    token,
    body: {
      stations: [{ id: CHICAGO }],
      minPayCents: 0,
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
  // grantService blocks this process for seconds: the keep-alive connections the server closed
  // meanwhile are let go before the next request, which would otherwise go out on one of them.
  await new Promise((r) => setTimeout(r, 500));
  const on = await call("/api/driver/engine", { token, body: { on: true } });
  assert.equal(on.status, 200, on.text);
  return tokens;
}

/** A block at the Chicago station that starts `hoursAhead` from now, with its own pay (how the test finds its row). */
async function offerBlock(hoursAhead: number, payCents: number) {
  const startsAt = Math.ceil((Date.now() + hoursAhead * HOUR) / HOUR) * HOUR;
  const res = await fetch(`${platformUrl}/__control/offers`, {
    method: "POST",
    body: JSON.stringify({ offers: [{ app: "flex", serviceAreaId: CHICAGO, startsAt, endsAt: startsAt + 2 * HOUR, payCents, expiresInMs: 120_000 }] }),
  });
  assert.equal(res.status, 200);
}

/** The page's requests to the dashboard's two polled reads, from now on. */
function pollsOf(page: Page): string[] {
  const polls: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path === "/api/driver/engine" || path === "/api/driver/offers") polls.push(`${r.method()} ${path}`);
  });
  return polls;
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && !/status of 4\d\d/.test(m.text()) && errors.push(m.text()));
  return errors;
}

const money = (cents: number) => `$${(cents / 100).toFixed(2).replace(/\.00$/, "")}`;

test("a won block arrives on the dashboard over its socket, and nothing polls meanwhile", async () => {
  const tokens = await searchingDriver("Liv Live");
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await storeSession(page, tokens);
  const opened = page.waitForEvent("websocket", { predicate: (ws) => new URL(ws.url()).pathname === "/api/driver/live", timeout: 30_000 });
  const response = await page.goto("/flex/dashboard");
  // The page is served under the assets' CSP, whose connect-src names no ws: source: 'self' covers it.
  const csp = response?.headers()["content-security-policy"] ?? "";
  assert.match(csp, /connect-src 'self'/);
  assert.doesNotMatch(csp, /wss?:/);
  await page.getByText(/Searching 1 station until/).waitFor({ timeout: 30_000 });
  const socket = await opened;
  assert.ok(!socket.url().includes(tokens.idToken), "the ID token is in the socket's address");
  // The opening's one read of the offers (what came before it opened) has gone out.
  await page.waitForTimeout(1500);

  const polls = pollsOf(page);
  const frames: number[] = [];
  socket.on("framereceived", () => frames.push(Date.now()));
  const pay = 6100 + Math.floor(Math.random() * 800);
  await offerBlock(28, pay);
  const row = page.locator(".offers-table tr[data-status=won]").filter({ hasText: money(pay) });
  await row.waitFor({ timeout: 30_000 });
  assert.ok(frames.length > 0, "no message came over the socket");
  // Longer than the 3 s polling would take, twice over: still nothing polled.
  await page.waitForTimeout(7000);
  assert.deepEqual(polls, [], `the dashboard polled while its socket was open: ${polls.join(", ")}`);
  assert.equal(await page.getByRole("alert").count(), 0);

  assert.equal((await call("/api/driver/engine", { token: tokens.idToken, body: { on: false } })).status, 200);
  await page.context().close();
  assert.deepEqual(errors, []);
});

test("with WebSocket blocked the dashboard still shows a won block, by polling, and says nothing of it", async () => {
  const tokens = await searchingDriver("Polly Poll");
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await page.addInitScript(() => {
    // A browser (or a network in between) where no WebSocket can be made.
    Object.defineProperty(window, "WebSocket", {
      value: class {
        constructor() {
          throw new Error("WebSocket blocked");
        }
      },
    });
  });
  await storeSession(page, tokens);
  const polls = pollsOf(page);
  await page.goto("/flex/dashboard");
  await page.getByText(/Searching 1 station until/).waitFor({ timeout: 30_000 });

  const pay = 6900 + Math.floor(Math.random() * 800);
  await offerBlock(30, pay);
  await page
    .locator(".offers-table tr[data-status=won]")
    .filter({ hasText: money(pay) })
    .waitFor({ timeout: 30_000 });
  assert.ok(polls.filter((p) => p.endsWith("/api/driver/offers")).length >= 2, `the offers were not polled: ${polls.join(", ")}`);
  assert.equal(await page.getByRole("alert").count(), 0);

  assert.equal((await call("/api/driver/engine", { token: tokens.idToken, body: { on: false } })).status, 200);
  await page.context().close();
  assert.deepEqual(errors, []);
});
