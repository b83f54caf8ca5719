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
