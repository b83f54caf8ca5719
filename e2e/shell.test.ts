import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { baseUrl, launch, newPage } from "./browser.ts";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("the landing page loads, switches to Español and back, and keeps the choice", async () => {
  const page = await newPage(browser);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  const response = await page.goto("/");
  // The SPA runs under the strict CSP of scripts/asset-headers.ts; console errors below would show a violation.
  assert.match(response?.headers()["content-security-policy"] ?? "", /script-src 'self'/);
  await page.getByRole("heading", { name: "Better blocks, without the refresh" }).waitFor();
  await page.getByRole("button", { name: /Español/ }).click();
  await page.getByRole("heading", { name: "Mejores bloques, sin refrescar" }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("language")), "es");
  await page.reload();
  await page.getByRole("heading", { name: "Mejores bloques, sin refrescar" }).waitFor();
  await page.getByRole("button", { name: /English/ }).click();
  await page.getByRole("heading", { name: "Better blocks, without the refresh" }).waitFor();
  assert.equal(await page.evaluate(() => localStorage.getItem("language")), "en");
  assert.deepEqual(errors, [], "no script or CSP errors in the console");
});

test("the public pages come pre-rendered, and hydrate without a mismatch or an error", async () => {
  for (const [path, heading] of [
    ["/", "Better blocks, without the refresh"],
    ["/faqs", "Frequently asked questions"],
    ["/login", "Sign in"],
  ] as const) {
    // The HTML alone, before any script: the page is there, inert until the app takes it over.
    const html = await (await fetch(`${baseUrl}${path}`)).text();
    assert.match(html, new RegExp(`<div id="root" inert>[\\s\\S]*${heading}</h1>`), `${path} is pre-rendered`);
    const page = await newPage(browser);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
    await page.goto(path);
    await page.getByRole("heading", { level: 1, name: heading }).waitFor();
    await page.waitForFunction(() => !document.getElementById("root")?.hasAttribute("inert") && !document.getElementById("splash"));
    // Hydrated, not replaced: the heading React found in the HTML is the one it now owns.
    assert.equal(await page.evaluate(() => Object.keys(document.querySelector("h1") ?? {}).some((key) => key.startsWith("__reactFiber"))), true);
    assert.deepEqual(errors, [], `${path}: no hydration mismatch or other error in the console`);
    await page.close();
  }
});

test("a pre-rendered page fetches its scripts only after its first paint; a page the app renders fetches none of the landing page's", async () => {
  for (const path of ["/", "/faqs", "/login"]) {
    const page = await newPage(browser);
    await page.goto(path);
    await page.waitForFunction(() => !document.getElementById("root")?.hasAttribute("inert"));
    const { paint, scripts } = await page.evaluate(() => ({
      paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
      scripts: performance
        .getEntriesByType("resource")
        .filter((e) => e.name.endsWith(".js"))
        .map((e) => e.startTime),
    }));
    assert.ok(scripts.length > 0 && paint > 0, `${path}: scripts and a first paint`);
    assert.ok(Math.min(...scripts) >= paint, `${path}: the first script started at ${Math.min(...scripts)} ms, the first paint was at ${paint} ms`);
    await page.close();
  }
  // Another address is served index.html (the landing page's HTML) and rendered by the app from the
  // splash: it fetches the app's code at once, and not the modules of the landing page it is not showing.
  const landingModules = ((await (await fetch(`${baseUrl}/`)).text()).match(/data-modules="([^"]*)"/)?.[1] ?? "").split(" ").filter(Boolean);
  assert.ok(
    landingModules.some((file) => file.includes("LandingSections")),
    "the landing page names the modules of its sections",
  );
  assert.ok(!landingModules.some((file) => file.includes("LoginPage")), "the sign-in form is not among them: it loads on intent");
  const page = await newPage(browser);
  await page.goto("/no-such-page");
  await page.getByRole("heading", { name: /not found/i }).waitFor();
  const fetched = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => new URL(e.name).pathname));
  assert.deepEqual(
    landingModules.filter((file) => file.includes("LandingSections") && fetched.includes(file)),
    [],
    "the landing page's sections are not fetched for a page without them",
  );
  await page.close();
});

test("the landing page's sign-in form loads on the visitor's first intent, a link to /login standing in until then", async () => {
  const page = await newPage(browser);
  await page.goto("/");
  await page.waitForFunction(() => !document.getElementById("root")?.hasAttribute("inert"));
  const signIn = page.locator(".landing-signin");
  await signIn.getByRole("link", { name: "Sign in" }).waitFor();
  await page.waitForTimeout(1500);
  const fetchedLogin = () => page.evaluate(() => performance.getEntriesByType("resource").some((e) => e.name.includes("LoginPage")));
  assert.equal(await fetchedLogin(), false, "nothing of the form is fetched while the visitor does nothing");
  await page.mouse.move(200, 200);
  await signIn.getByLabel("Phone number").waitFor();
  assert.equal(await fetchedLogin(), true);
  await page.close();
});

test("a pre-rendered page with a stored language or at another address starts from the splash, not the English page", async () => {
  const page = await newPage(browser);
  await page.goto("/faqs");
  await page.evaluate(() => localStorage.setItem("language", "es"));
  await page.goto("/faqs");
  await page.getByRole("heading", { level: 1, name: "Preguntas frecuentes" }).waitFor();
  assert.equal(await page.getByRole("heading", { name: "Frequently asked questions" }).count(), 0);
  assert.equal(await page.title(), "Preguntas frecuentes · Blockpilot");
  await page.close();
});

test("the dashboard's page is pre-rendered for a visit with a stored session; signed out, it starts from the splash and sends the visitor to /", async () => {
  const html = await (await fetch(`${baseUrl}/flex/dashboard`)).text();
  assert.match(html, /data-prerendered="\/flex\/dashboard" data-prerendered-session="stored"/);
  assert.match(html, /<div id="root" inert>[\s\S]*<h1>Dashboard<\/h1><div class="status-view status-view-loading" role="status">/);
  const page = await newPage(browser);
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => m.type() === "error" && errors.push(m.text()));
  // What index.html's inline script chose, read once the HTML is parsed (the app's first render then clears it).
  await page.addInitScript(() =>
    document.addEventListener("DOMContentLoaded", () => {
      sessionStorage.setItem("renderedByApp", String(document.documentElement.classList.contains("render-client")));
    }),
  );
  await page.goto("/flex/dashboard");
  await page.waitForURL((url) => url.pathname === "/");
  await page.getByRole("heading", { level: 1, name: "Better blocks, without the refresh" }).waitFor();
  assert.equal(await page.evaluate(() => sessionStorage.getItem("renderedByApp")), "true", "rendered by the app, not shown as pre-rendered");
  assert.deepEqual(errors, []);
  await page.close();
});

test("an unknown route shows 'page not found' inside the frame, with Go back to /", async () => {
  const page = await newPage(browser);
  await page.goto("/no/such/page");
  await page.getByRole("heading", { name: "page not found" }).waitFor();
  assert.equal(await page.getByRole("banner").count(), 1, "the top bar stays");
  assert.equal(await page.title(), "page not found · Blockpilot");
  await page.getByRole("link", { name: "Go back" }).click();
  await page.waitForURL((url) => url.pathname === "/");
  await page.getByRole("heading", { name: "Better blocks, without the refresh" }).waitFor();
});

test("a loading view shows, and its spinner turns, from its first second on: a shorter wait draws nothing", async () => {
  const page = await newPage(browser);
  await page.goto("/no/such/page");
  await page.getByRole("heading", { name: "page not found" }).waitFor();
  // The app's own style sheets on a loading view as StatusView writes it.
  const view = await page.evaluate(() => {
    const box = Object.assign(document.createElement("div"), { className: "status-view status-view-loading", role: "status" });
    box.innerHTML = '<span class="spinner" aria-hidden="true"></span><p class="status-view-message">Loading…</p>';
    document.querySelector("main")?.append(box);
    const [spinner, words] = [box.children[0] as HTMLElement, box.children[1] as HTMLElement];
    const delays = (el: Element) => el.getAnimations().map((a) => `${a instanceof CSSAnimation ? a.animationName : "?"}@${a.effect?.getTiming().delay}`);
    return {
      spinner: delays(spinner).sort(),
      words: delays(words),
      hidden: [getComputedStyle(spinner).visibility, getComputedStyle(words).visibility],
      height: box.getBoundingClientRect().height,
    };
  });
  assert.deepEqual(view.spinner, ["appear-late@1000", "spin@1000"]);
  assert.deepEqual(view.words, ["appear-late@1000"]);
  assert.deepEqual(view.hidden, ["hidden", "hidden"], "shown before its first second");
  assert.ok(view.height > 40, "its place is kept meanwhile");
  await page.waitForFunction(() => getComputedStyle(document.querySelector(".status-view-loading .spinner")!).visibility === "visible", null, {
    timeout: 3000,
  });
});

test("an unknown /api path answers the JSON error envelope, not the SPA", async () => {
  const page = await newPage(browser);
  const res = await page.request.get("/api/nope");
  assert.equal(res.status(), 404);
  assert.equal((await res.json()).error.code, "not_found");
});

test("on a phone-sized screen the top bar collapses into a panel", async () => {
  const page = await newPage(browser, { width: 390, height: 800 });
  await page.goto("/faqs");
  await page.getByRole("heading", { name: "Frequently asked questions" }).waitFor();
  const topBar = page.getByRole("banner");
  const heightBefore = (await topBar.boundingBox())?.height;
  assert.equal(await topBar.getByRole("link", { name: "FAQs" }).isVisible(), false);
  await page.getByRole("button", { name: "Open menu" }).click();
  assert.equal(await topBar.getByRole("link", { name: "FAQs" }).isVisible(), true);
  // The panel drops over the page: the bar keeps its height.
  assert.equal((await topBar.boundingBox())?.height, heightBefore);
  await page.keyboard.press("Escape");
  assert.equal(await topBar.getByRole("link", { name: "FAQs" }).isVisible(), false);
  assert.equal(await page.getByRole("button", { name: "Open menu" }).evaluate((el) => el === document.activeElement), true);
});
