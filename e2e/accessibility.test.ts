/**
 * axe-core on every route of the SPA (read from its route table, e2e/route-table.ts), signed out,
 * as the demo driver and as the demo owner, in English and in Spanish: no serious or critical
 * violation anywhere, and every page with its own document.title. A route that redirects (a
 * signed-out visitor on /admin) is checked where it lands, once.
 */

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";
import type AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { DEMO } from "../scripts/seed.ts";
import { baseUrl, launch, newPage } from "./browser.ts";
import { signInOwner, type Tokens } from "./owner.ts";
import { loadRoutePaths } from "./route-table.ts";

const TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"];
const BLOCKING = new Set(["serious", "critical"]);

/** axe-core as @axe-core/playwright injects it: its own dependency, so the same version. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.resolve("@axe-core/playwright")).resolve("axe-core/axe.min.js"), "utf8");

/**
 * What AxeBuilder's legacy mode does (`withTags(TAGS).setLegacyMode().analyze()`): axe.run in the
 * page, with axe in every frame it can test and messages kept to the page's own origin; only with
 * axe injected once per page instead of three times per check. AxeBuilder injects it into the
 * page, then into every frame again: the page a second time, and the chat widget's frame, another
 * origin, which legacy mode never tests (axe there answers no message from the page; the page's
 * axe gives up on it after its 500 ms ping, as before). Its injections were about a third of the
 * walk's axe time.
 */
async function runAxe(page: Page): Promise<Awaited<ReturnType<AxeBuilder["analyze"]>>> {
  const origin = new URL(page.url()).origin;
  for (const frame of page.frames()) {
    const url = URL.parse(frame.url());
    if (frame !== page.mainFrame() && url?.protocol.startsWith("http") && url.origin !== origin) continue;
    if (await frame.evaluate(() => "axe" in window)) continue;
    await frame.evaluate(`${AXE_SOURCE}
;axe.configure({ allowedOrigins: ["<same_origin>"], branding: { application: "playwright" } });`);
  }
  // Only violations in full: axe then trims its passes and incomplete results to one node each (about 10 % less time here).
  return page.evaluate(
    (options) => (window as unknown as { axe: { run: (context: Document, options: object) => Promise<never> } }).axe.run(document, options),
    { runOnly: { type: "tag", values: TAGS }, resultTypes: ["violations"] },
  );
}

let browser: Browser;
let paths: string[];
before(async () => {
  [browser, paths] = await Promise.all([launch(), loadRoutePaths()]);
});
after(async () => {
  await browser?.close();
});

async function driverTokens(): Promise<Tokens> {
  const res = await fetch(`${baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumber: DEMO.driver.phone, app: "flex", password: DEMO.driver.password }),
  });
  const answer = (await res.json()) as { tokens?: Tokens };
  assert.ok(answer.tokens, `the demo driver could not sign in (${res.status})`);
  return answer.tokens;
}

/** Waits until the page has settled: the splash and loading views gone, the page's heading shown. */
async function settle(page: Page) {
  // No wait for network quiet: live pages poll, so it never comes and cost 2 s a page.
  await page
    .waitForFunction(() => !document.querySelector(".splash, .status-view-loading, .landing-signin-waiting"), null, { timeout: 10_000 })
    .catch(() => {});
  // A page that never shows a heading is still checked (axe's page-has-heading-one reports it).
  await page
    .locator("h1")
    .first()
    .waitFor({ timeout: 10_000 })
    .catch(() => console.log(`  no h1 on ${new URL(page.url()).pathname}`));
}

type Finding = { session: string; lang: string; url: string; rule: string; impact: string; nodes: number; help: string; where: string[] };
const summary: { session: string; lang: string; pages: number; serious: number; critical: number; other: number }[] = [];
/** Moderate and minor findings, by impact, rule and session: nodes, summed over pages and languages. */
const minor = new Map<string, number>();
/** How long each page took to load and settle, and axe to check it: where this file's minutes go. */
const timings: { where: string; load: number; axe: number }[] = [];

/**
 * Pages checked at once, each session's routes in both languages shared among them: most of a
 * check is waiting (for the page to load and settle, for a CPU), so one after another left the
 * machine idle. E2E_AXE_PAGES sets another number.
 */
const PAGES = Number(process.env.E2E_AXE_PAGES ?? 4);

for (const [session, tokens] of [
  ["signed out", async () => null],
  ["driver", driverTokens],
  ["admin", signInOwner],
] as const) {
  test(`axe: every route ${session}, in English and Spanish — 0 serious or critical`, { timeout: 15 * 60_000 }, async () => {
    const stored = await tokens();
    const findings: Finding[] = [];
    const walks = (["en", "es"] as const).map((lang) => ({ lang, seen: new Set<string>(), other: 0 }));
    // Every route in both languages, in route order; a worker takes the next one when done.
    const jobs = paths.flatMap((path) => walks.map((walk) => ({ walk, path })));
    let next = 0;
    let failed = false;
    const worker = async () => {
      // A page per language, made when first needed: the language and the session are in its storage from the start.
      const pages = new Map<string, Page>();
      const pageFor = async (lang: "en" | "es") => {
        let page = pages.get(lang);
        if (!page) {
          page = await newPage(browser);
          await page.addInitScript(
            ({ lang, stored }) => {
              localStorage.setItem("language", lang);
              if (stored) localStorage.setItem("bp.session", JSON.stringify(stored));
            },
            { lang, stored },
          );
          pages.set(lang, page);
        }
        return page;
      };
      try {
        while (!failed && next < jobs.length) {
          const { walk, path } = jobs[next++]!;
          const { lang, seen } = walk;
          const page = await pageFor(lang);
          const started = Date.now();
          await page.goto(path);
          await settle(page);
          const settledAt = Date.now();
          const landed = new URL(page.url()).pathname;
          // Checked where it lands, once: several routes land on the same page (a signed-out visitor's /admin/*).
          if (seen.has(landed)) continue;
          seen.add(landed);
          const title = await page.title();
          assert.notEqual(title, "Blockpilot", `${landed} (${session}, ${lang}) has no page title of its own`);
          assert.equal(await page.getAttribute("html", "lang"), lang, `${landed} is not marked as ${lang}`);
          // Legacy mode (runAxe): axe.run in the page itself. AxeBuilder's default runs axe.runPartial in every
          // frame, then opens a blank page, injects axe again and finishes there, for every check.
          const result = await runAxe(page);
          timings.push({ where: `${session} ${lang} ${landed}`, load: settledAt - started, axe: Date.now() - settledAt });
          for (const v of result.violations) {
            if (BLOCKING.has(v.impact ?? ""))
              findings.push({
                session,
                lang,
                url: landed,
                rule: v.id,
                impact: v.impact!,
                nodes: v.nodes.length,
                help: v.help,
                // Which elements, and axe's own account of each (colours and ratio for a contrast finding), so a finding in CI can be traced.
                where: v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}: ${n.failureSummary?.replace(/\s+/g, " ") ?? ""} ${n.html.slice(0, 200)}`),
              });
            else {
              walk.other++;
              const key = `${v.impact ?? "?"} ${v.id} (${session})`;
              minor.set(key, (minor.get(key) ?? 0) + v.nodes.length);
            }
          }
        }
      } catch (err) {
        failed = true;
        throw err;
      } finally {
        for (const page of pages.values()) await page.context().close();
      }
    };
    await Promise.all(Array.from({ length: PAGES }, worker));
    for (const { lang, seen, other } of walks) {
      const mine = findings.filter((f) => f.lang === lang);
      summary.push({
        session,
        lang,
        pages: seen.size,
        serious: mine.filter((f) => f.impact === "serious").length,
        critical: mine.filter((f) => f.impact === "critical").length,
        other,
      });
    }
    for (const f of findings) {
      console.log(`  ${f.impact}: ${f.rule} on ${f.url} (${f.session}, ${f.lang}, ${f.nodes} nodes) — ${f.help}`);
      for (const w of f.where) console.log(`    ${w}`);
    }
    assert.deepEqual(findings, [], "serious or critical accessibility violations");
  });
}

test("axe summary", () => {
  console.log("\n| session | language | pages checked | serious | critical | moderate/minor |\n|---|---|---|---|---|---|");
  const order = (row: (typeof summary)[number]) => `${["signed out", "driver", "admin"].indexOf(row.session)}${row.lang}`;
  for (const row of summary.sort((a, b) => order(a).localeCompare(order(b))))
    console.log(`| ${row.session} | ${row.lang} | ${row.pages} | ${row.serious} | ${row.critical} | ${row.other} |`);
  if (minor.size > 0) console.log(`\nModerate and minor (nodes): ${[...minor].map(([k, n]) => `${k}: ${n}`).join("; ")}`);
  const sum = (key: "load" | "axe") => timings.reduce((total, t) => total + t[key], 0) / 1000;
  console.log(`\n${timings.length} checks: loading and settling ${sum("load").toFixed(0)} s, axe ${sum("axe").toFixed(0)} s; the slowest:`);
  for (const t of [...timings].sort((a, b) => b.load + b.axe - (a.load + a.axe)).slice(0, 8)) console.log(`  ${t.where}: load ${t.load} ms, axe ${t.axe} ms`);
});
