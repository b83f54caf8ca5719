/**
 * `npm run bench:size`: the JavaScript a visit downloads, as the browser fetches it. The production
 * build runs under the local runtime; Debian's Chromium (headless) opens each page signed out in a
 * fresh profile, and every JavaScript file it fetches until the network has been idle for a while
 * (QUIET_MS: no request open, none started) is counted at its gzip size (level 9, as the assets
 * would be served compressed). Also the gzip size of the Worker bundle. The landing page (/) and
 * the Worker have budgets (docs/architecture.md, budgets); the run exits non-zero when one is
 * exceeded (also in the short run of `npm test`: sizes do not depend on the machine).
 *
 * The service worker's own fetches (its script, its precache) are the visit's too: requests are
 * taken from the whole browser context, where Chromium reports the worker's beside the page's, and
 * a file either fetched counts once. Only the driver's pages register the worker
 * (docs/installable-app.md): the run checks that no public page installs one (and fails if one
 * does), and prints what the dashboard's worker fetched.
 *
 *   --short        only the landing page (bench/short.ts)
 *   --skip-build   reuse the last private build copy (or the one --build-dir names)
 *   --build-dir D  a build copy made by someone else (bench/short.ts builds once for all benches)
 *   --port N       the first port to try for the Worker (default 8797; the first free one is taken)
 *   --files        list each page's files with their sizes
 *   --dashboard    also the driver dashboard (/flex/dashboard) signed in as the seeded driver it
 *                  shows as it is (the one bench/lighthouse.ts measures): a first load, no budget
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import type { BrowserContext, Page } from "playwright-core";
import { launch } from "../e2e/browser.ts";
import { DEMO, dashboardDriverPhone } from "../scripts/seed.ts";
import { benchOptions, flag, freshState, prepareBuild, startWorker } from "./harness.ts";

const BUDGET_LANDING = 150 * 1024;
const BUDGET_WORKER = 1024 * 1024;
/** The network counts as idle once nothing has been open or started for this long. */
const QUIET_MS = 3000;
/** A page that never goes quiet is measured at this point (and says so). */
const LIMIT_MS = 30_000;

const PAGES: { path: string; budget?: number; driver?: boolean }[] = [{ path: "/", budget: BUDGET_LANDING }, { path: "/login" }, { path: "/faqs" }];
const DASHBOARD: (typeof PAGES)[number] = { path: "/flex/dashboard", driver: true };

const options = await benchOptions(8797);
const DIR = prepareBuild(options, ".wrangler/bench-size-build");
const STATE = `.wrangler/bench-size-state${options.short ? "-short" : ""}`;

const gz = (bytes: Buffer) => gzipSync(bytes, { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

type Fetched = { file: string; gzip: number };
/** What the service worker fetched: every file, and the JavaScript among them. */
type WorkerFetches = { all: Fetched[]; javascript: Fetched[] };

const isJavascript = (path: string) => path.endsWith(".js") || path.endsWith(".mjs");
/** A file fetched twice (a preload, then the import; the page, then the worker's precache) is one download in a warm cache: counted once. */
const once = (files: Fetched[]) => [...new Map(files.map((f) => [f.file, f])).values()];

/**
 * Loads `url` and collects every JavaScript response, the page's and its service worker's, until
 * the network has been quiet for QUIET_MS.
 */
async function javascriptOf(
  context: BrowserContext,
  page: Page,
  url: string,
): Promise<{ files: Fetched[]; byPage: Fetched[]; quiet: boolean; worker: WorkerFetches }> {
  const open = new Set<unknown>();
  let lastActivity = Date.now();
  const bodies: Promise<(Fetched & { byWorker: boolean }) | null>[] = [];
  context.on("request", (request) => {
    open.add(request);
    lastActivity = Date.now();
  });
  const settle = (request: unknown) => {
    open.delete(request);
    lastActivity = Date.now();
  };
  context.on("requestfailed", settle);
  context.on("requestfinished", (request) => {
    settle(request);
    const path = new URL(request.url()).pathname;
    const byWorker = request.serviceWorker() !== null;
    if (!byWorker && !isJavascript(path)) return;
    bodies.push(
      request
        .response()
        .then((response) => response?.body())
        .then((body) => (body ? { file: path, gzip: gz(body), byWorker } : null))
        .catch(() => null),
    );
  });
  const started = Date.now();
  await page.goto(url, { waitUntil: "load" });
  let quiet = false;
  while (Date.now() - started < LIMIT_MS) {
    if (open.size === 0 && Date.now() - lastActivity >= QUIET_MS) {
      quiet = true;
      break;
    }
    await page.waitForTimeout(100);
  }
  const fetched = (await Promise.all(bodies)).filter((f) => f !== null);
  const strip = ({ file, gzip }: Fetched) => ({ file, gzip });
  const byWorker = once(fetched.filter((f) => f.byWorker).map(strip));
  return {
    files: once(fetched.filter((f) => isJavascript(f.file)).map(strip)),
    byPage: once(fetched.filter((f) => !f.byWorker && isJavascript(f.file)).map(strip)),
    quiet,
    worker: { all: byWorker, javascript: byWorker.filter((f) => isJavascript(f.file)) },
  };
}

/** The service workers installed for the page's origin once its network went quiet. */
const installedWorkers = (page: Page) =>
  page.evaluate(async () => (await navigator.serviceWorker.getRegistrations()).map((r) => (r.active ?? r.waiting ?? r.installing)?.scriptURL ?? r.scope));

freshState(STATE);
const port = options.port;
const worker = await startWorker({ dir: DIR, port, state: STATE });
const browser = await launch();
type Row = { what: string; bytes: number; files: number; budget?: number; note: string; list: Fetched[] };
const rows: Row[] = [];
/** Per page: the service workers installed, and what they fetched. */
const workers: { path: string; driver: boolean; scripts: string[]; byPage: Fetched[]; fetched: WorkerFetches }[] = [];
try {
  const pages = [...(options.short ? PAGES.slice(0, 1) : PAGES), ...(flag("dashboard") ? [DASHBOARD] : [])];
  for (const { path, budget, driver } of pages) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    if (driver) {
      // The session the SPA keeps (src/app/lib/session-tokens.ts), stored before the page loads.
      const res = await fetch(`${worker.url}/api/auth/sign-in`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ phoneNumber: dashboardDriverPhone(), app: "flex", password: DEMO.driver.password }),
      });
      const { tokens } = (await res.json()) as { tokens?: unknown };
      if (!tokens) throw new Error(`the dashboard's driver could not sign in (${res.status})`);
      await page.goto(`${worker.url}/api/status/health`);
      await page.evaluate((stored) => localStorage.setItem("bp.session", JSON.stringify(stored)), tokens);
    }
    const { files, byPage, quiet, worker: fetchedByWorker } = await javascriptOf(context, page, `${worker.url}${path}`);
    const shownAt = new URL(page.url()).pathname;
    workers.push({
      path,
      driver: Boolean(driver),
      scripts: (await installedWorkers(page)).map((url) => new URL(url).pathname),
      byPage,
      fetched: fetchedByWorker,
    });
    await context.close();
    if (shownAt !== path) throw new Error(`${path} was shown at ${shownAt}`);
    rows.push({
      what: `${path} ${driver ? "signed in" : "signed out"}: JS fetched until idle, the service worker's included (gzip)`,
      bytes: files.reduce((sum, f) => sum + f.gzip, 0),
      files: files.length,
      budget,
      note: quiet ? "" : ` (not idle after ${LIMIT_MS / 1000} s)`,
      list: files,
    });
  }
} finally {
  await browser.close();
  worker.stop();
}

const workerDir = readdirSync(DIR)
  .map((d) => join(DIR, d))
  .find((d) => d !== join(DIR, "client") && statSync(d).isDirectory())!;
const workerBytes = readdirSync(workerDir, { recursive: true })
  .map(String)
  .filter((f) => /\.(m?js|wasm)$/.test(f))
  .reduce((sum, f) => sum + gz(readFileSync(join(workerDir, f))), 0);
rows.push({ what: "Worker bundle (gzip)", bytes: workerBytes, files: 0, budget: BUDGET_WORKER, note: "", list: [] });

console.log("| what | size | files | budget | within |\n|---|---|---|---|---|");
for (const r of rows) {
  const within = r.budget === undefined ? "–" : r.bytes <= r.budget ? "yes" : "NO";
  console.log(`| ${r.what}${r.note} | ${kb(r.bytes)} | ${r.files || "–"} | ${r.budget === undefined ? "–" : `≤ ${kb(r.budget)}`} | ${within} |`);
}
const total = (files: Fetched[]) => kb(files.reduce((sum, f) => sum + f.gzip, 0));
console.log("\n| page | service worker installed | JS the page itself fetched (gzip) | the worker's fetches until idle (gzip) |\n|---|---|---|---|");
for (const w of workers) {
  const fetches = w.fetched.all.length
    ? `${total(w.fetched.all)} in ${w.fetched.all.length} files (JavaScript ${total(w.fetched.javascript)} in ${w.fetched.javascript.length})`
    : "none";
  console.log(
    `| ${w.path} ${w.driver ? "signed in" : "signed out"} | ${w.scripts.join(", ") || "none"} | ${total(w.byPage)} in ${w.byPage.length} files | ${fetches} |`,
  );
}
// Only the driver's pages register the worker; a public page that installs one fails the run.
const publicWithWorker = workers.filter((w) => !w.driver && (w.scripts.length > 0 || w.fetched.all.length > 0));
for (const w of publicWithWorker)
  console.error(`${w.path} installed a service worker (${w.scripts.join(", ") || "its fetches seen"}): only the driver's pages may`);
if (flag("files"))
  for (const r of rows.filter((row) => row.list.length)) {
    console.log(`\n${r.what}:`);
    for (const f of [...r.list].sort((a, b) => b.gzip - a.gzip)) console.log(`  ${kb(f.gzip).padStart(9)}  ${f.file}`);
  }
if (rows.some((r) => r.budget !== undefined && r.bytes > r.budget) || publicWithWorker.length > 0) process.exit(1);
