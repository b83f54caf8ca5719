/**
 * Identity end to end: a new driver registers, reads the code from the embedded SMS outbox,
 * confirms, signs out and back in (password, then an SMS code); the demo owner signs in with TOTP
 * and lands on /admin; and the driver's flow once more in Spanish.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import type { Browser, Page } from "playwright-core";
import { DEMO } from "../scripts/seed.ts";
import { baseUrl, launch, newPage, newPhone } from "./browser.ts";
import { freshTotp, signInOwner, type Tokens } from "./owner.ts";

type OutboxPage = { total: number; rows: { to: string; body: string; createdAt: number }[] };

async function post<T>(path: string, body: unknown): Promise<{ status: number; data: T }> {
  const res = await fetch(`${baseUrl}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, data: (await res.json()) as T };
}

let browser: Browser;
let owner: Tokens;
before(async () => {
  browser = await launch();
  owner = await signInOwner();
});
after(async () => {
  await browser?.close();
});

/** The newest code texted to `phone` after `since` (the SMS leaves in the background: poll). */
async function codeSentTo(phone: string, since: number): Promise<string> {
  for (let i = 0; i < 60; i++) {
    const res = await fetch(`${baseUrl}/api/admin/outbox?${new URLSearchParams({ to: phone, page: "1", pageSize: "20" })}`, {
      headers: { Authorization: `Bearer ${owner.idToken}` },
    });
    assert.equal(res.status, 200, `GET /api/admin/outbox answered ${res.status}`);
    const newest = ((await res.json()) as OutboxPage).rows.find((row) => row.createdAt >= since);
    const code = newest && /\b(\d{6})\b/.exec(newest.body)?.[1];
    if (code) return code;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no code reached ${phone}`);
}

function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  // Refused calls (a wrong password answers 401) log a resource error the test expects.
  page.on("console", (m) => m.type() === "error" && !/status of 40[01]/.test(m.text()) && errors.push(m.text()));
  return errors;
}

const path = (page: Page, pathname: string) => page.waitForURL((url) => url.pathname === pathname);

async function storedSession(page: Page): Promise<unknown> {
  return page.evaluate(() => JSON.parse(localStorage.getItem("bp.session") ?? "null") as unknown);
}

test("a new driver registers, confirms with the texted code, signs out and back in", async () => {
  const page = await newPage(browser);
  const errors = watchErrors(page);
  const phone = newPhone();
  const password = "Driv3r!e2e";

  await page.goto("/");
  await page.getByRole("main").getByRole("link", { name: "Create account" }).first().click();
  await page.getByRole("heading", { name: "Create your account" }).waitFor();
  // The browser refuses nothing the server would accept, and says what is wrong in place.
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByText("Input required fields before continuing").waitFor();
  await page.getByLabel("Full name").fill("Erin Endtoend");
  await page.getByLabel("Phone number").fill(phone.typed);
  await page.getByLabel("Email (optional)").fill("erin@example.com");
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByLabel("Confirm password").fill(`${password}x`);
  await page.getByRole("button", { name: "Create account" }).click();
  await page.getByText("Passwords don't match").waitFor();
  await page.getByLabel("Confirm password").fill(password);
  const registeredAt = Date.now() - 1000;
  await page.getByRole("button", { name: "Create account" }).click();

  await path(page, "/confirm-account");
  await page.getByText(`We sent a 6-digit code to +1 ${phone.typed}`).waitFor();
  const code = await codeSentTo(phone.e164, registeredAt);
  await page.getByLabel("6-digit code").fill(code);
  await page.getByRole("button", { name: "Confirm account" }).click();

  // Confirmed and signed in at once; no account connected yet, so the routing sends the driver to connect one.
  await path(page, "/flex/login");
  await page.getByRole("heading", { name: "Connect your account" }).waitFor();
  const stored = (await storedSession(page)) as Record<string, string>;
  assert.deepEqual(Object.keys(stored).sort(), ["idToken", "refreshToken"]);

  // The top bar's user menu: My profile, then Sign out.
  await page.getByRole("button", { name: "Erin Endtoend" }).click();
  await page.getByRole("menuitem", { name: "My profile" }).click();
  await path(page, "/profile");
  await page.getByText(`+1 ${phone.typed}`).waitFor();
  await page.getByRole("button", { name: "Erin Endtoend" }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await path(page, "/");
  assert.equal(await storedSession(page), null);

  // Back in with the password (a wrong one first).
  await page.getByRole("link", { name: "Sign in" }).first().click();
  await page.getByRole("heading", { name: "Sign in" }).waitFor();
  await page.getByLabel("Phone number").fill(phone.typed);
  await page.getByLabel("Password", { exact: true }).fill("Wrong!pass1");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("alert").getByText("Phone number or password incorrect").waitFor();
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await path(page, "/flex/login");

  // And once more with a texted code instead of the password.
  await page.getByRole("button", { name: "Erin Endtoend" }).click();
  await page.getByRole("menuitem", { name: "Sign out" }).click();
  await path(page, "/");
  await page.goto("/login");
  await page.getByRole("button", { name: "Sign in with a code by SMS instead" }).click();
  await page.getByLabel("Phone number").fill(phone.e164);
  const askedAt = Date.now() - 1000;
  await page.getByRole("button", { name: "Text me a code" }).click();
  await page.getByRole("heading", { name: "Enter your code" }).waitFor();
  const signInCode = await codeSentTo(phone.e164, askedAt);
  assert.notEqual(signInCode, code);
  await page.getByLabel("6-digit code").fill(signInCode);
  await page.getByRole("button", { name: "Verify" }).click();
  await path(page, "/flex/login");

  assert.deepEqual(errors, []);
});

test("the demo owner signs in with a TOTP code and lands on /admin", async () => {
  const page = await newPage(browser);
  const errors = watchErrors(page);
  await page.goto("/login");
  await page.getByLabel("Phone number").fill(DEMO.owner.phone);
  await page.getByLabel("Password", { exact: true }).fill(DEMO.owner.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await page.getByRole("heading", { name: "Two-step verification" }).waitFor();
  await page.getByLabel("6-digit code").fill(await freshTotp());
  await page.getByRole("button", { name: "Verify" }).click();
  await path(page, "/admin");
  await page.getByRole("button", { name: DEMO.owner.name }).waitFor();
  // An administrator's session refreshes like any other.
  const before = (await storedSession(page)) as Tokens;
  const refreshed = await post<{ tokens: Tokens }>("/api/auth/refresh", { refreshToken: before.refreshToken });
  assert.equal(refreshed.status, 200);
  assert.deepEqual(errors, []);
});

test("the same flow in Spanish: register, confirm, sign out, sign back in", async () => {
  const page = await newPage(browser, { width: 390, height: 800 });
  const errors = watchErrors(page);
  const phone = newPhone();
  const password = "Conduct0r!es";

  await page.goto("/");
  await page.getByRole("button", { name: "Open menu" }).click();
  await page.getByRole("button", { name: /Español/ }).click();
  await page.getByRole("main").getByRole("link", { name: "Crear cuenta" }).first().click();
  await page.getByRole("heading", { name: "Crea tu cuenta" }).waitFor();
  await page.getByLabel("Nombre completo").fill("Eva Española");
  await page.getByLabel("Número de teléfono").fill(phone.typed);
  await page.getByLabel("Contraseña", { exact: true }).fill("corta");
  await page.getByLabel("Confirmar contraseña").fill("corta");
  await page.getByRole("button", { name: "Crear cuenta" }).click();
  await page.getByText("Al menos 8 caracteres", { exact: true }).waitFor();
  await page.getByLabel("Contraseña", { exact: true }).fill(password);
  await page.getByLabel("Confirmar contraseña").fill(password);
  const registeredAt = Date.now() - 1000;
  await page.getByRole("button", { name: "Crear cuenta" }).click();

  await path(page, "/confirm-account");
  await page.getByText("Enviamos un código de 6 dígitos").waitFor();
  const code = await codeSentTo(phone.e164, registeredAt);
  await page.getByLabel("Código de 6 dígitos").fill(code === "000000" ? "111111" : "000000");
  await page.getByRole("button", { name: "Confirmar cuenta" }).click();
  await page.getByRole("alert").getByText("No se pudo confirmar la cuenta").waitFor();
  await page.getByLabel("Código de 6 dígitos").fill(code);
  await page.getByRole("button", { name: "Confirmar cuenta" }).click();
  await path(page, "/flex/login");
  await page.getByRole("heading", { name: "Conecta tu cuenta" }).waitFor();

  // On a phone-sized screen the top bar's panel shows the name and Sign out.
  await page.getByRole("button", { name: "Abrir menú" }).click();
  await page.locator(".topbar-panel-name", { hasText: "Eva Española" }).waitFor();
  await page.getByRole("banner").getByRole("button", { name: "Cerrar sesión" }).click();
  await path(page, "/");

  await page.goto("/login");
  await page.getByRole("heading", { name: "Iniciar sesión" }).waitFor();
  await page.getByLabel("Número de teléfono").fill(phone.typed);
  await page.getByLabel("Contraseña", { exact: true }).fill("Incorrecta!1");
  await page.getByRole("button", { name: "Iniciar sesión", exact: true }).click();
  await page.getByRole("alert").getByText("Número de teléfono o contraseña incorrectos").waitFor();
  await page.getByLabel("Contraseña", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Iniciar sesión", exact: true }).click();
  await path(page, "/flex/login");
  assert.deepEqual(errors, []);
});
