/**
 * The profile's notifications end to end, in Chromium against the built app: the section in English
 * and Spanish; a new driver's defaults (SMS, no device yet); turning push on for this device, which
 * sends the browser's subscription to the server (the API then counts one device, and the default
 * becomes push); a choice saved; and the device's subscription gone from the server when it is
 * turned off and when the driver signs out. Chromium's own push service is out of reach here, so an
 * init script stands in for PushManager's subscribe and getSubscription with a subscription whose
 * endpoint and keys the test makes; the permission is granted to the page's origin.
 */
import assert from "node:assert/strict";
import { createECDH, randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { baseUrl, launch, newPage, newPhone, storeSession } from "./browser.ts";
import { codeTextedTo } from "./drivers.ts";
import { signInOwner, type Tokens } from "./owner.ts";

const PASSWORD = "N0tify!e2e";
const ip = `203.0.113.${150 + Math.floor(Math.random() * 50)}`;

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
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, text };
}

/** A new driver, registered and confirmed through the API; `signIn` gives a fresh session each time. */
async function newDriver(language: "en" | "es" = "en") {
  const phone = newPhone();
  const registered = await call("/api/auth/register", { body: { phoneNumber: phone.e164, password: PASSWORD, name: "Nia Notify", app: "flex", language } });
  assert.equal(registered.status, 201, registered.text);
  const confirmed = await call("/api/auth/confirm", {
    body: { phoneNumber: phone.e164, app: "flex", code: await codeTextedTo(owner.idToken, phone.e164), password: PASSWORD },
  });
  assert.equal(confirmed.status, 200, confirmed.text);
  const signIn = async (): Promise<Tokens> => {
    const res = await call("/api/auth/sign-in", { body: { phoneNumber: phone.e164, app: "flex", password: PASSWORD } });
    assert.equal(res.status, 200, res.text);
    return (res.body as { tokens: Tokens }).tokens;
  };
  return { phone, signIn };
}

type Settings = { devices: number; channels: Record<string, string | null>; effective: Record<string, string> };
async function notificationSettings(token: string): Promise<Settings> {
  const res = await call("/api/driver/notifications", { token });
  assert.equal(res.status, 200, res.text);
  return res.body as Settings;
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && !/status of 4\d\d/.test(m.text()) && errors.push(m.text()));
  return errors;
}

/** A browser subscription as a push service would give one: a real P-256 public key and a 16-byte secret, base64url. */
function aSubscription() {
  const ecdh = createECDH("prime256v1");
  return {
    endpoint: `https://push.example.test/e2e/${randomBytes(8).toString("hex")}`,
    keys: { p256dh: ecdh.generateKeys().toString("base64url"), auth: randomBytes(16).toString("base64url") },
  };
}

/**
 * PushManager's subscribe and getSubscription, answered in the page with `subscription`
 * (Chromium's push service is unreachable here). What is subscribed is kept in sessionStorage, so
 * it outlives a reload of the tab as a browser's own subscription would, and unsubscribing ends it.
 */
async function standInForPushService(page: Page, subscription: ReturnType<typeof aSubscription>) {
  await page.context().grantPermissions(["notifications"], { origin: baseUrl });
  await page.addInitScript(({ endpoint, keys }) => {
    const KEY = "e2e.pushSubscription";
    const made = (applicationServerKey: number[]) => ({
      endpoint,
      expirationTime: null,
      options: { userVisibleOnly: true, applicationServerKey: new Uint8Array(applicationServerKey).buffer },
      toJSON: () => ({ endpoint, expirationTime: null, keys }),
      getKey: () => null,
      unsubscribe: async () => {
        sessionStorage.removeItem(KEY);
        return true;
      },
    });
    PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
      const key = [...new Uint8Array(options?.applicationServerKey as Uint8Array)];
      sessionStorage.setItem(KEY, JSON.stringify(key));
      return made(key) as unknown as PushSubscription;
    };
    PushManager.prototype.getSubscription = async function getSubscription() {
      const stored = sessionStorage.getItem(KEY);
      return stored ? (made(JSON.parse(stored) as number[]) as unknown as PushSubscription) : null;
    };
  }, subscription);
}

/** Whether the page's browser still holds a push subscription (the stand-in's record of one). */
const browserSubscribed = (page: Page) => page.evaluate(() => sessionStorage.getItem("e2e.pushSubscription") !== null);

test("the profile's notifications section reads in English and in Spanish", async () => {
  const driver = await newDriver();
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await storeSession(page, await driver.signIn());
  await page.goto("/profile");
  await page.getByRole("heading", { name: "Notifications", exact: true }).waitFor();
  await page.getByText("How we tell you when a block is won, when searching stops and when your service is about to end").waitFor();
  await page
    .getByRole("button", { name: /Español/ })
    .first()
    .click();
  await page.getByRole("heading", { name: "Notificaciones", exact: true }).waitFor();
  await page.getByText("Cómo te avisamos cuando ganas un bloque").waitFor();
  assert.deepEqual(
    errors.filter((e) => !/\/api\/driver\/(notifications|push-subscription)/.test(e)),
    [],
  );
});

test("turning push on for this device sends its subscription to the server; off and sign-out take it away", async () => {
  const driver = await newDriver();
  const tokens = await driver.signIn();
  const subscription = aSubscription();
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await standInForPushService(page, subscription);
  await storeSession(page, tokens);
  // A driver's page first: the SPA registers its service worker there, and the registration stays.
  await page.goto("/flex/login");
  const registered = await page.evaluate(() =>
    Promise.race([navigator.serviceWorker.ready.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 15_000))]),
  );
  assert.ok(registered, "no service worker became active on /flex/login");
  await page.goto("/profile");
  const section = page.locator(".profile-section", { has: page.getByRole("heading", { name: "Notifications", exact: true }) });

  // A new driver: no device, every event by SMS by default.
  const blockWon = page.getByLabel("A block is won");
  await blockWon.waitFor();
  assert.equal(await blockWon.locator("option:checked").textContent(), "SMS (default)");
  await page.getByText("This device doesn't get notifications.").waitFor();

  await page.getByRole("button", { name: "Get notifications on this device" }).click();
  await page.getByText("This device gets notifications.").waitFor();
  await page.getByText("Notifications are on for this device.").waitFor();
  assert.equal((await notificationSettings(tokens.idToken)).devices, 1);
  // A device now: the default is push.
  await page.getByRole("option", { name: "Push (default)" }).first().waitFor({ state: "attached" });
  assert.equal(await blockWon.locator("option:checked").textContent(), "Push (default)");

  // A choice, saved; the rest stay on the default.
  await page.getByLabel("Searching stops").selectOption("sms");
  await section.getByRole("button", { name: "Save", exact: true }).click();
  await page.getByText("Notification settings saved.").waitFor();
  const saved = await notificationSettings(tokens.idToken);
  assert.deepEqual(saved.channels, { blockWon: null, searchStopped: "sms", serviceEnding: null });
  assert.deepEqual(saved.effective, { blockWon: "push", searchStopped: "sms", serviceEnding: "push" });

  // A reload finds the subscription, and sends it again (the server still counts one device).
  await page.reload();
  await page.getByText("This device gets notifications.").waitFor();
  assert.equal((await notificationSettings(tokens.idToken)).devices, 1);

  // In Spanish.
  await page
    .getByRole("button", { name: /Español/ })
    .first()
    .click();
  await page.getByText("Este dispositivo recibe notificaciones.").waitFor();
  assert.equal(await page.getByLabel("Ganas un bloque").locator("option:checked").textContent(), "Push (predeterminado)");
  await page
    .getByRole("button", { name: /English/ })
    .first()
    .click();

  // Off on this device: the server's row goes.
  await page.getByRole("button", { name: "Turn off on this device" }).click();
  await page.getByText("This device doesn't get notifications.").waitFor();
  assert.equal((await notificationSettings(tokens.idToken)).devices, 0);
  assert.equal(await browserSubscribed(page), false);

  // On again, then signing out takes it away with the session.
  await page.getByRole("button", { name: "Get notifications on this device" }).click();
  await page.getByText("This device gets notifications.").waitFor();
  assert.equal((await notificationSettings(tokens.idToken)).devices, 1);
  assert.ok(await browserSubscribed(page));
  const sessions = page.locator(".profile-section", { has: page.getByRole("heading", { name: "Sessions" }) });
  await sessions.getByRole("button", { name: "Sign out", exact: true }).click();
  await page.waitForURL((url) => url.pathname === "/", { timeout: 15_000 });
  assert.equal((await notificationSettings((await driver.signIn()).idToken)).devices, 0);
  assert.equal(await browserSubscribed(page), false, "signing out left the browser subscribed");
  assert.deepEqual(errors, []);
});
