/**
 * The installable app (docs/installable-app.md): the web app manifest and its icons, the service
 * worker on the driver's pages only, what it caches, the dashboard offline, and a push shown as a
 * notification. The new-version prompt is tested in the app project (src/app/layouts/GeneralLayout.test.tsx):
 * a second build to wait behind this one is more than an e2e run makes.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { after, before, test } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import type { Manifest } from "vite";
import { DEMO, dashboardDriverPhone } from "../scripts/seed.ts";
import { baseUrl, launch, storeSession } from "./browser.ts";

/** The build the run serves (e2e/run.ts copies it here). */
const BUILD = ".wrangler/e2e-build/client";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

type Tokens = { idToken: string; refreshToken: string };
async function driverTokens(): Promise<Tokens> {
  const res = await fetch(`${baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumber: dashboardDriverPhone(), app: "flex", password: DEMO.driver.password }),
  });
  const answer = (await res.json()) as { tokens?: Tokens };
  assert.ok(answer.tokens, `the dashboard's driver could not sign in (${res.status})`);
  return answer.tokens;
}

/** A PNG's width and height, from its IHDR chunk. */
function pngSize(bytes: Buffer): string {
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG", "a PNG file");
  return `${bytes.readUInt32BE(16)}x${bytes.readUInt32BE(20)}`;
}

/** The driver's dashboard in a fresh context with a stored session, its service worker installed and active. */
async function dashboardWithWorker(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ baseURL: baseUrl, viewport: { width: 1280, height: 800 } });
  const page = await context.newPage();
  await storeSession(page, await driverTokens());
  await page.goto("/flex/dashboard");
  await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
  const scope = await page.evaluate(async () => {
    const ready = await Promise.race([navigator.serviceWorker.ready, new Promise<null>((resolve) => setTimeout(() => resolve(null), 20_000))]);
    return ready && { scope: ready.scope, script: ready.active?.scriptURL ?? null };
  });
  assert.deepEqual(scope, { scope: `${baseUrl}/`, script: `${baseUrl}/sw.js` }, "the dashboard registers /sw.js for the whole origin");
  return { context, page };
}

/** Every URL in the page's Cache Storage, by cache. */
function cachedUrls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
    return urls;
  });
}

test("the web app manifest parses, says what the installed app is, and its icons are PNGs of their sizes", async () => {
  const html = await (await fetch(`${baseUrl}/`)).text();
  assert.match(html, /<link rel="manifest" href="\/manifest\.webmanifest">/, "the pages link the manifest");
  const res = await fetch(`${baseUrl}/manifest.webmanifest`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^application\/manifest\+json/);
  const manifest = (await res.json()) as {
    name: string;
    short_name: string;
    start_url: string;
    scope: string;
    display: string;
    theme_color: string;
    background_color: string;
    icons: { src: string; sizes: string; type: string; purpose?: string }[];
  };
  assert.equal(manifest.name, "Blockpilot");
  assert.ok(manifest.short_name.length > 0 && manifest.short_name.length <= 12, "a short name a launcher shows whole");
  assert.equal(manifest.start_url, "/flex/dashboard");
  assert.equal(manifest.scope, "/");
  assert.equal(manifest.display, "standalone");
  // --color-brand-700 and --color-bg (src/app/styles/tokens.css).
  assert.equal(manifest.theme_color, "#0f766e");
  assert.equal(manifest.background_color, "#f8fafc");
  const bySize = (sizes: string, purpose: string) =>
    manifest.icons.find((icon) => icon.sizes === sizes && (icon.purpose ?? "any").split(" ").includes(purpose));
  assert.ok(bySize("192x192", "any"), "a 192 px icon");
  assert.ok(bySize("512x512", "any"), "a 512 px icon");
  assert.ok(bySize("512x512", "maskable"), "a maskable icon");
  for (const icon of [...manifest.icons, { src: "/icons/badge-72.png", sizes: "72x72", type: "image/png" }]) {
    const image = await fetch(`${baseUrl}${icon.src}`);
    assert.equal(image.status, 200, icon.src);
    assert.equal(image.headers.get("content-type"), icon.type, icon.src);
    assert.equal(pngSize(Buffer.from(await image.arrayBuffer())), icon.sizes, `${icon.src} is ${icon.sizes}`);
  }
});

test("the service worker is served uncached, and the pages' policy allows it and the manifest from our origin only", async () => {
  const sw = await fetch(`${baseUrl}/sw.js`);
  assert.equal(sw.status, 200);
  assert.match(sw.headers.get("content-type") ?? "", /javascript/);
  assert.equal(sw.headers.get("cache-control"), "no-cache");
  const csp = (await fetch(`${baseUrl}/flex/dashboard`)).headers.get("content-security-policy") ?? "";
  assert.match(csp, /(^|; )worker-src 'self'(;|$)/);
  assert.match(csp, /(^|; )manifest-src 'self'(;|$)/);
});

test("the landing page registers no service worker, even once loaded and idle", async () => {
  const context = await browser.newContext({ baseURL: baseUrl });
  const page = await context.newPage();
  const asked: string[] = [];
  page.on("request", (request) => {
    if (new URL(request.url()).pathname === "/sw.js") asked.push(request.url());
  });
  await page.goto("/", { waitUntil: "load" });
  await page.getByRole("heading", { name: "Better blocks, without the refresh" }).waitFor();
  // Past the load event and a few idle periods: when the driver's pages register theirs.
  await page.waitForTimeout(3000);
  assert.equal(await page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).length), 0);
  assert.deepEqual(asked, [], "/sw.js is never fetched");
  await context.close();
});

test("the dashboard registers the service worker, which controls the page after a reload and precaches the shell, never the console or /api", async () => {
  const { context, page } = await dashboardWithWorker();
  try {
    // A first visit is not taken over mid-way: the worker controls the pages loaded after it.
    assert.equal(await page.evaluate(() => navigator.serviceWorker.controller), null);
    await page.reload();
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor();
    assert.equal(await page.evaluate(() => navigator.serviceWorker.controller?.scriptURL), `${baseUrl}/sw.js`);

    const cached = (await cachedUrls(page)).map((url) => new URL(url));
    const paths = new Set(cached.map((url) => url.pathname));
    assert.ok(paths.has("/") && paths.has("/flex/dashboard"), "the shell and the dashboard's page are precached");
    const build = JSON.parse(readFileSync(`${BUILD}/.vite/manifest.json`, "utf8")) as Manifest;
    const entry = Object.values(build).find((chunk) => chunk.isEntry)!;
    assert.ok(paths.has(`/${entry.file}`), "the entry chunk is precached");
    assert.ok(paths.has(`/${build["src/app/features/driver/DashboardPage.tsx"]!.file}`), "the dashboard's chunk is precached");
    const consoleFiles = Object.entries(build)
      .filter(([source]) => source.startsWith("src/app/features/admin/"))
      .map(([, chunk]) => `/${chunk.file}`);
    assert.ok(consoleFiles.length > 5, "the build has console chunks to leave out");
    assert.deepEqual(
      consoleFiles.filter((file) => paths.has(file)),
      [],
      "no console chunk is cached",
    );
    assert.ok(!paths.has("/faqs") && !paths.has("/login"), "the other public pages are not precached");
    // The dashboard has read the user, its offers and the engine by now: none of it is kept.
    assert.deepEqual(
      cached.filter((url) => url.pathname === "/api" || url.pathname.startsWith("/api/")).map((url) => url.pathname),
      [],
      "no /api answer in the caches",
    );
  } finally {
    await context.close();
  }
});

test("offline, reloading the dashboard shows the app's shell with the offline notice, and back online the dashboard returns", async () => {
  const { context, page } = await dashboardWithWorker();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  try {
    await context.setOffline(true);
    await page.reload();
    await page.getByText("You're offline.").waitFor();
    await page.getByRole("heading", { level: 1, name: "Your account loads once you are back online" }).waitFor();
    assert.equal(await page.getByRole("banner").count(), 1, "inside the app's frame");
    assert.equal(await page.getByRole("heading", { name: "Couldn't load user" }).count(), 0, "not as a failure");
    assert.deepEqual(errors, []);
    await context.setOffline(false);
    await page.getByRole("heading", { level: 1, name: "Dashboard" }).waitFor({ timeout: 20_000 });
    assert.equal(await page.getByText("You're offline.").count(), 0);
  } finally {
    await context.close();
  }
});

test("a push is shown as a notification with its title, body, tag and link; one that does not parse shows nothing", async () => {
  const { context, page } = await dashboardWithWorker();
  try {
    await context.grantPermissions(["notifications"], { origin: baseUrl });
    const cdp = await context.newCDPSession(page);
    const registrationId = new Promise<string>((resolve) =>
      cdp.on("ServiceWorker.workerRegistrationUpdated", ({ registrations }) => {
        const ours = registrations.find((r) => r.scopeURL === `${baseUrl}/` && !r.isDeleted);
        if (ours) resolve(ours.registrationId);
      }),
    );
    await cdp.send("ServiceWorker.enable");
    const id = await registrationId;
    const deliver = (data: string) => cdp.send("ServiceWorker.deliverPushMessage", { origin: baseUrl, registrationId: id, data });
    await deliver("not json");
    await deliver(JSON.stringify({ event: "blockWon", title: "x", body: "y", url: "https://evil.example/", tag: "t" }));
    const payload = { event: "blockWon", title: "Block won", body: "Chicago, 10:00–14:00, $92", url: "/flex/calendar", tag: "block-42" };
    await deliver(JSON.stringify(payload));
    const shown = await page.evaluate(async () => {
      const registration = await navigator.serviceWorker.ready;
      for (let i = 0; i < 50; i++) {
        const list = await registration.getNotifications();
        if (list.length > 0)
          return list.map((n) => ({
            title: n.title,
            body: n.body,
            tag: n.tag,
            data: n.data as unknown,
            icon: n.icon,
            badge: (n as Notification & { badge?: string }).badge,
          }));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      return [];
    });
    assert.deepEqual(shown, [
      {
        title: payload.title,
        body: payload.body,
        tag: payload.tag,
        data: { url: "/flex/calendar" },
        icon: `${baseUrl}/icons/icon-192.png`,
        badge: `${baseUrl}/icons/badge-72.png`,
      },
    ]);
  } finally {
    await context.close();
  }
});
