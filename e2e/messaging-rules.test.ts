/**
 * The messaging rules in the browser (docs/messaging-rules.md): a marketing campaign created at
 * 22:00 Eastern reaches its Pacific recipient at once and waits, in the queue, until 8:00 for its
 * Eastern one, as the campaign page shows.
 *
 * "22:00 Eastern" whenever the run happens: e2e/run.ts stands the rules' clock (and only it:
 * src/worker/compliance/clock.ts, refused in production) at 22:00 in New York today, and the
 * browser runs in New York's zone, so the page's times read as an Eastern admin sees them. The
 * recipients register through the API with the marketing consent box ticked, as drivers would.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser } from "playwright-core";
import { REGISTRATION_CONSENT } from "../src/shared/consent-texts.ts";
import { baseUrl, launch, storeSession } from "./browser.ts";
import { signInOwner, type Tokens } from "./owner.ts";

type OutboxPage = { total: number; rows: { to: string; body: string }[] };

let browser: Browser;
let tokens: Tokens;
before(async () => {
  browser = await launch();
  tokens = await signInOwner();
});
after(async () => {
  await browser?.close();
});

const suffix = String(Date.now() % 10_000).padStart(4, "0");
const pacific = `+1415555${suffix}`;
const eastern = `+1212555${suffix}`;

async function registerWithConsent(phone: string) {
  const res = await fetch(`${baseUrl}/api/auth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${Number(suffix) % 250}` },
    body: JSON.stringify({
      phoneNumber: phone,
      password: "Str0ng!pass",
      name: `Rules ${phone.slice(2, 5)}`,
      app: "flex",
      language: "en",
      marketingConsent: { version: REGISTRATION_CONSENT.version },
    }),
  });
  assert.equal(res.status, 201, `register ${phone}: ${await res.text()}`);
  // The tick allows marketing once the registrant proves the phone with the code and the registration password.
  let code: string | undefined;
  for (let i = 0; i < 50 && !code; i++) {
    code = /\b(\d{6})\b/.exec((await outboxFor(phone)).rows[0]?.body ?? "")?.[1];
    if (!code) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.ok(code, `no code texted to ${phone}`);
  const confirmed = await fetch(`${baseUrl}/api/auth/confirm`, {
    method: "POST",
    headers: { "Content-Type": "application/json", "CF-Connecting-IP": `203.0.113.${Number(suffix) % 250}` },
    body: JSON.stringify({ phoneNumber: phone, app: "flex", code, password: "Str0ng!pass" }),
  });
  assert.equal(confirmed.status, 200, `confirm ${phone}: ${await confirmed.text()}`);
}

async function outboxFor(phone: string): Promise<OutboxPage> {
  const res = await fetch(`${baseUrl}/api/admin/outbox?to=${encodeURIComponent(phone)}&channel=sms&page=1&pageSize=100`, {
    headers: { Authorization: `Bearer ${tokens.idToken}` },
  });
  assert.equal(res.status, 200);
  return (await res.json()) as OutboxPage;
}

test("a marketing campaign created at 22:00 Eastern reaches Pacific recipients now and Eastern ones at 8:00, as the campaign page shows", async () => {
  await registerWithConsent(pacific);
  await registerWithConsent(eastern);
  const consent = await fetch(`${baseUrl}/api/admin/consent/${encodeURIComponent(eastern)}`, { headers: { Authorization: `Bearer ${tokens.idToken}` } });
  assert.equal(((await consent.json()) as { state: { basis: string } }).state.basis, "express");

  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: baseUrl, timezoneId: "America/New_York" });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await storeSession(page, tokens);
  await page.goto("/admin/tools");

  await page.getByRole("textbox", { name: "Phone numbers" }).fill(`${pacific}\n${eastern}`);
  await page.getByText("Valid numbers: 2").waitFor();
  await page.getByRole("radio", { name: "Marketing: offers, news, invitations to join" }).check();
  await page.getByText("“Reply STOP to opt out” is added at the end and counted in the limit.").waitFor();
  const marker = `Rules ${Date.now()}`;
  await page.getByRole("textbox", { name: "Message" }).fill(`New blocks tonight (${marker})`);
  await page.getByRole("button", { name: "Send (2)" }).click();
  await page.getByRole("dialog", { name: "Send this message to 2 people?" }).getByRole("button", { name: "Send to 2 people" }).click();
  // A send goes on to its campaign's page.
  await page.waitForURL(/\/admin\/campaigns\/\d+$/);

  // The Pacific recipient (19:00 in San Francisco) is sent at once; the Eastern one waits for 08:00.
  const note = page.getByText(/1 deferred to their recipients' allowed hours, until \d\d\/\d\d\/\d\d 08:00\./);
  await note.waitFor({ timeout: 30_000 });
  const summary = page.locator(".campaign-summary");
  await summary.getByText("Marketing: offers, news, invitations to join").waitFor();
  await summary.locator(".badge", { hasText: "Sending" }).waitFor();
  const ledger = page.getByRole("table", { name: "Recipients" });
  const easternRow = ledger.locator("tbody tr", { hasText: `(212) 555-${suffix}` });
  await easternRow.getByText("Deferred").waitFor();
  await easternRow.getByText(/Waits until \d\d\/\d\d\/\d\d 08:00/).waitFor();
  const pacificRow = ledger.locator("tbody tr", { hasText: `(415) 555-${suffix}` });
  await pacificRow.getByText(/^(Sent|Delivered)$/).waitFor({ timeout: 30_000 });

  // The provider (the embedded outbox) has the Pacific message, with its opt-out line, and nothing for the East.
  const sentWest = (await outboxFor(pacific)).rows.filter((r) => r.body.includes(marker));
  assert.deepEqual(
    sentWest.map((r) => r.body),
    [`New blocks tonight (${marker})\nReply STOP to opt out`],
  );
  assert.equal((await outboxFor(eastern)).rows.filter((r) => r.body.includes(marker)).length, 0, "nothing reaches New York at 22:00");

  // The campaign list shows it still running (its last message waits in the queue).
  await page.goto("/admin/campaigns");
  await page.getByRole("table", { name: "Campaigns" }).locator("tbody tr").first().getByText("Sending").waitFor();
  assert.deepEqual(errors, []);
  await context.close();
});
