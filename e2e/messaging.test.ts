/**
 * Bulk messaging end to end: the demo owner filters Flex drivers, deselects two, sends an SMS and
 * watches the campaign complete in its ledger, while the embedded provider's outbox receives
 * exactly N − 2 new messages.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { baseUrl, launch, newPage, storeSession } from "./browser.ts";
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

async function get<T>(path: string, token: string): Promise<T> {
  const res = await fetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  assert.equal(res.status, 200, `GET ${path} answered ${res.status}`);
  return (await res.json()) as T;
}

async function openSignedIn(tokens: Tokens, path: string): Promise<Page> {
  const page = await newPage(browser);
  await storeSession(page, tokens);
  await page.goto(path);
  return page;
}

test("the owner filters Flex drivers, deselects two, sends an SMS and sees it complete; the outbox holds N − 2 new messages", async () => {
  const outboxBefore = await get<OutboxPage>("/api/admin/outbox?page=1&pageSize=20", tokens.idToken);

  const page = await openSignedIn(tokens, "/admin/notifications");
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // An API refusal is printed whole, so a failure in CI says what the server answered.
  page.on("response", async (res) => {
    if (res.status() >= 400 && new URL(res.url()).pathname.startsWith("/api/"))
      console.log(`  ${res.request().method()} ${new URL(res.url()).pathname} → ${res.status()}: ${await res.text().catch(() => "(no body)")}`);
  });
  const audiencePageSizes: number[] = [];
  page.on("request", (req) => {
    const url = new URL(req.url());
    if (url.pathname === "/api/admin/audience") audiencePageSizes.push(Number(url.searchParams.get("pageSize")));
  });

  const panel = page.getByRole("region", { name: "Send SMS (all users)" });
  await panel.waitFor();
  assert.equal(await panel.getByLabel("Flex users").isChecked(), true, "Flex is the default app");
  // Narrow to one region and good standing so the test sends to a small, known audience.
  await panel.getByRole("group", { name: "Amazon regions" }).getByLabel("Miami", { exact: true }).check();
  await panel.getByLabel("Good standing").selectOption("yes");
  const marker = `E2E ${Date.now()}`;
  await panel.getByRole("textbox", { name: "Message" }).fill(`Hello from Blockpilot (${marker})`);
  // A service notice: no consent needed and no quiet hours (e2e/messaging-rules.test.ts covers marketing).
  await panel.getByRole("radio", { name: "Service notice" }).check();
  await panel.getByRole("button", { name: "Review" }).click();

  const summary = panel.getByText(/This message will be sent to \d+ Flex users/);
  await summary.waitFor();
  const n = Number((await summary.textContent())!.match(/sent to (\d+)/)![1]);
  assert.ok(n >= 3, `the filtered audience should have a few drivers, got ${n}`);

  const rows = panel.getByRole("table").locator("tbody tr");
  await rows.first().waitFor();
  const deselected: string[] = [];
  for (const i of [0, 1]) {
    const box = rows.nth(i).getByRole("checkbox");
    deselected.push((await box.getAttribute("aria-label"))!.replace(/^Select /, ""));
    await box.uncheck();
  }
  await panel.getByText(`This message will be sent to ${n - 2} Flex users`).waitFor();

  await panel.getByRole("button", { name: "Send" }).click();
  // The confirm is the app's own dialog: what goes out, to whom, and the exact count.
  const confirm = page.getByRole("dialog", { name: `Send this message to ${n - 2} people?` });
  await confirm.getByText(`${n - 2} drivers matching the filters, less those deselected`).waitFor();
  // … and the filters that chose them.
  await confirm.getByText("Amazon regions: Miami").waitFor();
  await confirm.getByText("Good standing: Yes").waitFor();
  await confirm.getByRole("button", { name: `Send to ${n - 2} people` }).click();
  // The server's own answer (who waits for their hours or is skipped may follow).
  await page.getByText(new RegExp(`^Message sent successfully to ${n - 2} users\\.`)).waitFor();
  // On to the campaign's page.
  await page.waitForURL(/\/admin\/campaigns\/\d+$/);
  await page.getByRole("heading", { name: /Campaign #\d+/ }).waitFor();
  await page.locator(".campaign-summary .badge", { hasText: "Done" }).waitFor({ timeout: 60_000 });
  const progress = page.locator(".campaign-summary").getByRole("progressbar");
  assert.equal(await progress.getAttribute("aria-valuenow"), "100");
  const ledger = page.getByRole("table", { name: "Recipients" });
  await ledger
    .getByRole("cell", { name: /^\+1 \(\d{3}\) \d{3}-\d{4}$/ })
    .first()
    .waitFor();
  assert.equal(await ledger.locator("tbody tr").count(), Math.min(n - 2, 20), "the ledger's first page lists the recipients");
  assert.equal(await ledger.getByRole("cell", { name: /^(Pending|Sending)$/ }).count(), 0, "no message is left pending");
  for (const phone of deselected) {
    const shown = `+1 (${phone.slice(2, 5)}) ${phone.slice(5, 8)}-${phone.slice(8)}`;
    assert.equal(await ledger.getByRole("cell", { name: shown, exact: true }).count(), 0, `${phone} is not in the ledger`);
  }

  const outboxAfter = await get<OutboxPage>("/api/admin/outbox?page=1&pageSize=100", tokens.idToken);
  assert.equal(outboxAfter.total - outboxBefore.total, n - 2, "exactly N − 2 new messages in the outbox");
  assert.equal(outboxAfter.rows.filter((r) => r.body.includes(marker)).length, n - 2);
  for (const phone of deselected) {
    const own = await get<OutboxPage>(`/api/admin/outbox?to=${encodeURIComponent(phone)}&page=1&pageSize=100`, tokens.idToken);
    assert.equal(own.rows.filter((r) => r.body.includes(marker)).length, 0, `${phone} was deselected`);
  }

  assert.ok(audiencePageSizes.length > 0 && audiencePageSizes.every((s) => s <= 100), "the review only ever asks for one page");
  assert.deepEqual(errors, []);
});

test("the campaigns list shows the send with its progress, and Tools lists bad numbers", async () => {
  const page = await openSignedIn(tokens, "/admin/campaigns");
  const table = page.getByRole("table", { name: "Campaigns" });
  await table.locator("tbody tr").first().waitFor();
  assert.ok((await table.getByRole("progressbar").count()) >= 1);

  await page.goto("/admin/tools");
  await page.getByRole("textbox", { name: "Phone numbers" }).fill("(305) 555-0100\n3055550100\n555-0100");
  await page.getByText("Valid numbers: 1 · duplicates removed: 1").waitFor();
  await page.getByRole("alert").getByText("555-0100").waitFor();
});

test("in Spanish, the review finds García by 'garcia' and a driver by the number as the table shows it, pages as 'Página N de M', and the confirm can be cancelled", async () => {
  const page = await newPage(browser);
  await storeSession(page, tokens, "es");
  await page.goto("/admin/notifications");
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));

  const panel = page.getByRole("region", { name: "Enviar SMS (todos los usuarios)" });
  await panel.getByRole("textbox", { name: "Mensaje" }).fill("Hola");
  await panel.getByRole("radio", { name: "Aviso de servicio" }).check();
  await panel.getByRole("button", { name: "Revisar" }).click();
  await panel.getByText(/^Página 1 de \d+$/).waitFor();

  const search = panel.getByRole("searchbox", { name: "Buscar usuario..." });
  const rows = panel.getByRole("table").locator("tbody tr");
  await search.fill("garcia");
  // The unfiltered page also shows a count and may start with a García: wait for the rows without
  // one to go (the search is debounced), then check what is left.
  await rows
    .filter({ hasNotText: /garc[ií]a/i })
    .first()
    .waitFor({ state: "detached" });
  await panel.getByText(/^\d+ resultados?$/).waitFor();
  await rows
    .first()
    .getByText(/García/)
    .waitFor();
  assert.equal(await rows.filter({ hasNotText: /garc[ií]a/i }).count(), 0, "every row found by 'garcia' holds García");

  await search.fill("+1 (305) 555-0102");
  await panel.getByText("1 resultado", { exact: true }).waitFor();
  await rows.filter({ hasText: "Diego Driver" }).waitFor();

  await panel.getByRole("button", { name: "Enviar", exact: true }).click();
  const confirm = page.getByRole("dialog", { name: /^¿Enviar este mensaje a \d+ personas\?$/ });
  await confirm.getByText("App: Flex").waitFor();
  await confirm.getByRole("button", { name: "Cancelar" }).click();
  await confirm.waitFor({ state: "hidden" });
  assert.deepEqual(errors, []);
});
