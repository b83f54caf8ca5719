/**
 * Payments end to end on the embedded provider: the demo driver invites a friend by SMS; the
 * friend opens the texted link, registers, confirms, pays on the local checkout (a declined card
 * first, then 4242 4242 4242 4242) and sees the new expiration; the inviter's service grows by the
 * free week and the invitation says so.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import AxeBuilder from "@axe-core/playwright";
import type { Browser, Page } from "playwright-core";
import { DEMO } from "../scripts/seed.ts";
import { baseUrl, launch, newPage, newPhone } from "./browser.ts";
import { signInOwner, type Tokens } from "./owner.ts";

type OutboxPage = { rows: { to: string; body: string; createdAt: number }[] };
const DAY = 86_400_000;

let browser: Browser;
let owner: Tokens;
before(async () => {
  browser = await launch();
  owner = await signInOwner();
});
after(async () => {
  await browser?.close();
});

/** The newest text to `phone` after `since` that matches `pattern` (texts leave in the background: poll). */
async function textTo(phone: string, since: number, pattern: RegExp): Promise<string> {
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${baseUrl}/api/admin/outbox?${new URLSearchParams({ to: phone, page: "1", pageSize: "20" })}`, {
      headers: { Authorization: `Bearer ${owner.idToken}` },
    });
    assert.equal(res.status, 200);
    const found = ((await res.json()) as OutboxPage).rows.find((row) => row.createdAt >= since && pattern.test(row.body));
    if (found) return found.body;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no text matching ${pattern} reached ${phone}`);
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // A declined card answers 422, which the browser logs as a failed resource; the page says why.
  page.on("console", (m) => m.type() === "error" && !/status of 422/.test(m.text()) && errors.push(m.text()));
  return errors;
}

const ddmmyy = (ms: number) => {
  const d = new Date(ms);
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${pad(d.getDate())}/${pad(d.getMonth() + 1)}/${pad(d.getFullYear() % 100)}`;
};

async function expirationShown(page: Page): Promise<string> {
  await page.goto("/payment");
  const text = await page.getByTestId("current-expiration").innerText();
  const match = /(\d{2}\/\d{2}\/\d{2})/.exec(text);
  assert.ok(match, `no date in "${text}"`);
  return match[1]!;
}

async function signIn(page: Page, phone: string, password: string) {
  await page.goto("/login");
  await page.getByLabel("Phone number").fill(phone);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.waitForURL((url) => url.pathname !== "/login");
}

test("an invited friend registers from the texted link and pays on the local checkout; the inviter earns the free week", async () => {
  const inviter = await newPage(browser);
  const inviterErrors = watchErrors(inviter);
  await signIn(inviter, DEMO.driver.phone, DEMO.driver.password);
  const before = await expirationShown(inviter);

  // The inviter texts a friend from /flex/invite/<phone> (the number prefilled).
  const friendPhone = newPhone();
  const invitedAt = Date.now() - 1000;
  await inviter.goto(`/flex/invite/${encodeURIComponent(friendPhone.e164)}`);
  await inviter.getByRole("heading", { name: "Invite friends" }).waitFor();
  assert.match(await inviter.getByLabel("Your friend's phone number").inputValue(), /\(786\)/);
  await inviter.getByRole("button", { name: "Send invitation" }).click();
  await inviter.getByText(`Invitation to`).first().waitFor();
  await inviter.getByRole("cell", { name: "Invited", exact: true }).waitFor();
  // In the inviter's language, whichever the demo data gave them.
  const sms = await textTo(friendPhone.e164, invitedAt, /register\?ref=/);
  const link = /(https?:\/\/\S+\/register\?ref=\S+)/.exec(sms)?.[1];
  assert.ok(link, `no link in "${sms}"`);

  // The friend follows the link: the code is filled in; they register and confirm.
  const friend = await newPage(browser);
  const friendErrors = watchErrors(friend);
  await friend.goto(new URL(link).pathname + new URL(link).search);
  await friend.getByRole("heading", { name: "Create your account" }).waitFor();
  await friend.getByLabel("Full name").fill("Fran Friend");
  await friend.getByLabel("Phone number").fill(friendPhone.typed);
  await friend.getByLabel("Password", { exact: true }).fill("Fr1end!pays");
  await friend.getByLabel("Confirm password").fill("Fr1end!pays");
  const registeredAt = Date.now() - 1000;
  await friend.getByRole("button", { name: "Create account" }).click();
  await friend.waitForURL((url) => url.pathname === "/confirm-account");
  const code = /\b(\d{6})\b/.exec(await textTo(friendPhone.e164, registeredAt, /\b\d{6}\b/))![1]!;
  await friend.getByLabel("6-digit code").fill(code);
  await friend.getByRole("button", { name: "Confirm account" }).click();
  await friend.waitForURL((url) => url.pathname === "/flex/login");
  await inviter.reload();
  await inviter.getByRole("cell", { name: "Registered", exact: true }).waitFor();

  // The friend pays for a week: the plans say what each would give.
  await friend.goto("/payment?utm_source=e2e");
  await friend.getByText("You have no service time yet.").waitFor();
  const until = ddmmyy(Date.now() + 7 * DAY);
  await friend.getByText(`Service until ${until}`).first().waitFor();
  await friend.getByRole("button", { name: /^Pay \$39\.99 for 7 days$/ }).click();
  await friend.waitForURL((url) => url.pathname.startsWith("/local-stripe/checkout/"));
  await friend.getByRole("heading", { name: "Pay with card" }).waitFor();
  assert.equal(await friend.getByTestId("checkout-amount").innerText(), "$39.99");

  // A declined card first: the page says so and the checkout stays open.
  await friend.getByLabel("Card number").fill("4000 0000 0000 0002");
  await friend.getByLabel("Expiration (MM / YY)").fill("12 / 40");
  await friend.getByLabel("CVC").fill("123");
  await friend.getByRole("button", { name: "Pay $39.99" }).click();
  await friend.getByRole("alert").getByText("Your card was declined.").waitFor();

  await friend.getByLabel("Card number").fill("4242 4242 4242 4242");
  await friend.getByRole("button", { name: "Pay $39.99" }).click();
  await friend.waitForURL((url) => url.pathname === "/payment" && url.searchParams.has("payment"));
  // The query string the friend came with is kept.
  assert.equal(new URL(friend.url()).searchParams.get("utm_source"), "e2e");
  await friend.getByText("Payment successful.").waitFor();
  await friend.getByText(`7 days were added; your service runs until ${until}.`).waitFor();
  assert.equal(await friend.getByTestId("current-expiration").innerText(), `Your service runs until ${until}.`);
  await friend.getByRole("cell", { name: "Successful" }).waitFor();

  // The inviter: a free week, once, and the invitation says so.
  await inviter.goto("/flex/invite");
  await inviter.getByRole("cell", { name: "Free week earned", exact: true }).waitFor();
  assert.equal(await inviter.getByTestId("free-weeks").innerText(), "1");
  const [d, m, y] = before.split("/").map(Number);
  const expected = ddmmyy(new Date(2000 + y!, m! - 1, d!).getTime() + 7 * DAY);
  assert.equal(await expirationShown(inviter), expected);
  await textTo(DEMO.driver.phone, registeredAt, /free week|semana gratis/);

  assert.deepEqual(inviterErrors, []);
  assert.deepEqual(friendErrors, []);
});

test("Spanish: the local checkout declines a card without funds in the driver's language", async () => {
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await signIn(page, DEMO.driver.phone, DEMO.driver.password);
  await page.evaluate(() => localStorage.setItem("language", "es"));
  await page.goto("/payment");
  await page.getByRole("heading", { name: "Elige un plan" }).waitFor();
  await page.getByRole("button", { name: /^Pagar .* por 14 días$/ }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/local-stripe/checkout/"));
  await page.getByLabel("Número de tarjeta").fill("4000 0000 0000 9995");
  await page.getByLabel("Vencimiento (MM / AA)").fill("12 / 40");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: /^Pagar / }).click();
  await page.getByRole("alert").getByText("Tu tarjeta no tiene fondos suficientes.").waitFor();
  // Back to the app without paying: the payment is shown as failed, from our own record.
  await page.getByRole("button", { name: "Volver" }).click();
  await page.waitForURL((url) => url.pathname === "/payment" && url.searchParams.get("canceled") === "1");
  await page.getByText("El pago falló.").waitFor();
  await page.getByText("Saliste del pago sin pagar.").waitFor();
  assert.deepEqual(errors, []);
});

test("the demo reseller sets up payouts, pays a client's plan, and earns the commission", async () => {
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await signIn(page, DEMO.driver.phone, DEMO.driver.password);
  await page.goto("/flex/reseller");
  await page.getByRole("heading", { name: "Your referral code" }).waitFor();
  assert.equal(await page.getByLabel("Referral code", { exact: true }).inputValue(), "DIEGO10");
  await page.getByRole("heading", { name: "Your clients" }).waitFor();

  // Payout setup on the local stand-in for Stripe's onboarding.
  await page.getByRole("button", { name: "Set up payouts" }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/local-stripe/onboarding/"));
  await page.getByLabel("Legal name").fill("Diego Driver");
  await page.getByRole("button", { name: "Agree and submit" }).click();
  await page.waitForURL((url) => url.pathname === "/flex/reseller" && url.searchParams.get("onboarding") === "return");
  await page.getByText("Payouts enabled").waitFor();

  // Pay the first client's week.
  const firstClient = page.getByRole("table", { name: "Your clients" }).getByRole("row").nth(1);
  const clientName = await firstClient.getByRole("cell").first().innerText();
  await firstClient.getByRole("button", { name: /Pay plan/ }).click();
  const dialog = page.getByRole("dialog", { name: `Pay a plan for ${clientName}` });
  await dialog.getByRole("button", { name: /^Pay \$39\.99 for 7 days$/ }).click();
  await page.waitForURL((url) => url.pathname.startsWith("/local-stripe/checkout/"));
  await page.getByLabel("Card number").fill("4242 4242 4242 4242");
  await page.getByLabel("Expiration (MM / YY)").fill("12 / 40");
  await page.getByLabel("CVC").fill("123");
  await page.getByRole("button", { name: "Pay $39.99" }).click();
  await page.waitForURL((url) => url.pathname === "/flex/reseller" && url.searchParams.has("payment"));
  await page.getByText("Payment successful.").waitFor();

  // 20 % of $39.99, transferred to the payout account once the payment settled.
  const commissions = page.getByRole("table", { name: "Commissions" });
  for (let i = 0; i < 20; i++) {
    await commissions.getByRole("row").nth(1).waitFor();
    if ((await commissions.getByRole("cell", { name: "Paid out" }).count()) > 0) break;
    await page.waitForTimeout(500);
    await page.reload();
  }
  const row = commissions.getByRole("row").filter({ hasText: clientName }).first();
  await row.getByRole("cell", { name: "Paid out" }).waitFor();
  await row.getByRole("cell", { name: "$7.99" }).waitFor();
  assert.deepEqual(errors, []);
});

test("the money screens have no serious or critical accessibility violations (axe), on a phone too", async () => {
  for (const viewport of [
    { width: 1280, height: 800 },
    { width: 390, height: 844 },
  ]) {
    const page = await newPage(browser, viewport);
    await signIn(page, DEMO.driver.phone, DEMO.driver.password);
    const token = await page.evaluate(() => (JSON.parse(localStorage.getItem("bp.session") ?? "{}") as { idToken?: string }).idToken);
    const opened = await fetch(`${baseUrl}/api/payments/checkout`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
      body: JSON.stringify({ planId: 1, idempotencyKey: crypto.randomUUID() }),
    });
    const checkoutPath = new URL(((await opened.json()) as { url: string }).url).pathname;
    for (const [path, heading] of [
      ["/payment", "Choose a plan"],
      ["/flex/invite", "Invite friends"],
      ["/flex/reseller", "Your clients"],
      [checkoutPath, "Pay with card"],
    ] as const) {
      await page.goto(path);
      await page.getByRole("heading", { name: heading }).waitFor();
      await page
        .getByRole("status")
        .filter({ hasText: "Loading" })
        .first()
        .waitFor({ state: "detached" })
        .catch(() => {});
      // As in accessibility.test.ts: axe.run in the page, violations only.
      const results = await new AxeBuilder({ page })
        .options({ resultTypes: ["violations"] })
        .setLegacyMode()
        .analyze();
      const bad = results.violations.filter((v) => v.impact === "serious" || v.impact === "critical");
      assert.deepEqual(
        bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`),
        [],
        `${path} at ${viewport.width} px`,
      );
    }
    await page.context().close();
  }
});
