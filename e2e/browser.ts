import { type Browser, chromium, type Page } from "playwright-core";

export const baseUrl = process.env.E2E_BASE_URL ?? "http://127.0.0.1:8788";

/** Debian's Chromium, headless, with the flags this closed network needs. */
export function launch(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
    ],
  });
}

/** A fresh context (no stored language, no session) and page. */
export async function newPage(browser: Browser, viewport = { width: 1280, height: 800 }): Promise<Page> {
  const context = await browser.newContext({ viewport, baseURL: baseUrl });
  return context.newPage();
}

/**
 * Stores a session (and a language) in the page's origin before the app first runs there: the
 * values are written on a JSON answer of the API, where no script of the app runs. Written on `/`
 * instead, they raced the pre-rendered landing page, which hydrates after its first paint: when
 * they landed first, it hydrated signed in (or in Spanish) against its signed-out English HTML and
 * threw React's hydration error #418 into the test's page errors (seen once on a busy CI run).
 */
export async function storeSession(page: Page, tokens: { idToken: string; refreshToken: string }, language?: "en" | "es"): Promise<void> {
  await page.goto("/api/status/health");
  await page.evaluate(
    ([session, lang]) => {
      localStorage.setItem("bp.session", session);
      if (lang) localStorage.setItem("language", lang);
    },
    [JSON.stringify({ idToken: tokens.idToken, refreshToken: tokens.refreshToken }), language ?? ""] as const,
  );
}

/**
 * A fresh US number per run (area 786), so reruns never collide. The exchange is 2xx–9xx but never
 * an N11 service code (211, 311 … 911), which the phone check rightly refuses.
 */
export function newPhone(): { e164: string; typed: string } {
  let exchange = 200 + Math.floor(Math.random() * 800);
  while (exchange % 100 === 11) exchange = 200 + Math.floor(Math.random() * 800);
  const line = String(Math.floor(Math.random() * 10_000)).padStart(4, "0");
  return { e164: `+1786${exchange}${line}`, typed: `(786) ${exchange}-${line}` };
}
