/**
 * The support chat widget under the app's Content-Security-Policy: the policy lists exactly the
 * widget's origin (no wildcard, no bare scheme), the widget's script, call and frame all load and
 * it receives the signed-in driver's identity, and a script from any other origin is refused.
 * The widget is the stand-in of e2e/fake-chat-widget.ts, which e2e/run.ts builds the app against.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { DEMO } from "../scripts/seed.ts";
import { baseUrl, launch, newPage } from "./browser.ts";

const chatUrl = process.env.E2E_CHAT_WIDGET_URL ?? "";
const chatOrigin = chatUrl ? new URL(chatUrl).origin : "";

let browser: Browser;
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

test("the assets' policy lists exactly the chat widget's origin", async () => {
  assert.ok(chatOrigin, "E2E_CHAT_WIDGET_URL is set by e2e/run.ts");
  const csp = (await fetch(`${baseUrl}/login`)).headers.get("content-security-policy") ?? "";
  const directives = Object.fromEntries(
    csp.split(";").map((d) => {
      const [name, ...sources] = d.trim().split(/\s+/);
      return [name, sources];
    }),
  );
  // Besides the widget, scripts are our own files and the page's inline boot script, allowed by its hash.
  const html = await (await fetch(`${baseUrl}/login`)).text();
  const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!).filter((code) => code.trim() !== "");
  const hashes = inline.map((code) => `'sha256-${createHash("sha256").update(code).digest("base64")}'`);
  assert.deepEqual(directives["script-src"], ["'self'", ...hashes, chatOrigin]);
  assert.deepEqual(directives["connect-src"], ["'self'", chatOrigin]);
  assert.deepEqual(directives["frame-src"], [chatOrigin]);
  assert.doesNotMatch(csp, /\*|\s(https?|wss?):(\s|;|$)/, "no wildcard and no whole scheme");
});

test("the widget loads, gets the driver's identity, and nothing from another origin runs", async () => {
  const signIn = await fetch(`${baseUrl}/api/auth/sign-in`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumber: DEMO.driver.phone, app: "flex", password: DEMO.driver.password }),
  });
  const { tokens } = (await signIn.json()) as { tokens: { idToken: string; refreshToken: string } };
  assert.ok(tokens, `the demo driver signs in (${signIn.status})`);

  const identity = await (await fetch(`${baseUrl}/api/flex/v1/user/chat`, { headers: { Authorization: `Bearer ${tokens.idToken}` } })).json();
  assert.equal((identity as { scriptUrl?: string }).scriptUrl, chatUrl, "the Worker hands out the widget the build was made for");
  const page = await newPage(browser);
  const consoleLines: string[] = [];
  page.on("console", (m) => consoleLines.push(`${m.type()}: ${m.text()}`));
  page.on("pageerror", (e) => consoleLines.push(`pageerror: ${e.message}`));
  await page.addInitScript((session) => {
    localStorage.setItem("bp.session", JSON.stringify(session));
    const violations: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = violations;
    document.addEventListener("securitypolicyviolation", (e) => violations.push(`${e.violatedDirective} ${e.blockedURI}`));
  }, tokens);
  await page.goto("/profile");

  type Call = [string, ...unknown[]];
  const calls = () => page.evaluate(() => (window as unknown as { __chatCalls?: Call[] }).__chatCalls ?? []);
  await page
    .waitForFunction(
      () => {
        const names = ((window as unknown as { __chatCalls?: [string][] }).__chatCalls ?? []).map((c) => c[0]);
        return ["setUser", "ping", "frame"].every((name) => names.includes(name));
      },
      undefined,
      { timeout: 15_000 },
    )
    .catch(() => undefined);
  const seen = await calls();
  const setUser = seen.find((c) => c[0] === "setUser");
  assert.ok(setUser, `the widget was handed the identity: ${JSON.stringify(seen)} at ${page.url()}; console: ${consoleLines.join(" | ")}`);
  assert.equal(setUser[1], DEMO.driver.phone);
  assert.match(String((setUser[2] as { identifier_hash?: string }).identifier_hash), /^[0-9a-f]{64}$/);
  assert.ok(
    seen.some((c) => c[0] === "ping" && c[1] === true),
    "the widget's call to its origin went through",
  );
  assert.ok(
    seen.some((c) => c[0] === "frame"),
    "the widget's frame loaded",
  );

  // Another origin (the same server under another name) is not in the policy.
  const other = chatUrl.replace("127.0.0.1", "localhost");
  const loaded = await page.evaluate(
    (src) =>
      new Promise<boolean>((resolve) => {
        const script = document.createElement("script");
        script.src = src;
        script.onload = () => resolve(true);
        script.onerror = () => resolve(false);
        document.body.appendChild(script);
      }),
    other,
  );
  assert.equal(loaded, false);
  const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
  assert.ok(
    violations.some((v) => v.startsWith("script-src") && v.includes("localhost")),
    JSON.stringify(violations),
  );
  assert.deepEqual(
    violations.filter((v) => v.includes(chatOrigin)),
    [],
    "nothing of the widget's own origin was refused",
  );
});
