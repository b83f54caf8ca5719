import { screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { http } from "msw";
import { describe, expect, it } from "vitest";
import { REGISTRATION_CONSENT } from "../../../shared/consent-texts";
import { setLanguage } from "../../i18n";
import { apiServer } from "../../test/api-server";
import { error, renderScreen, resetEachTest, wentTo } from "../../test/auth-screens";
import { stubApi } from "../../test/render";

resetEachTest();

describe("register: validation in both languages", () => {
  it("asks for the required fields before anything is sent (English)", async () => {
    const user = userEvent.setup();
    const calls = stubApi({});
    renderScreen("/register");
    await user.click(await screen.findByRole("button", { name: "Create account" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Input required fields before continuing");
    expect(screen.getByLabelText("Full name")).toHaveAccessibleDescription("Required");
    expect(screen.getByLabelText("Full name")).toHaveFocus();
    expect(calls).toHaveLength(0);
  });

  it("shows the shared schemas' messages per field, and passwords that don't match (English)", async () => {
    const user = userEvent.setup();
    stubApi({});
    renderScreen("/register");
    await user.type(await screen.findByLabelText("Full name"), "Dana Driver");
    await user.type(screen.getByLabelText("Phone number"), "555-0100");
    await user.type(screen.getByLabelText("Email (optional)"), "dana@nowhere");
    await user.type(screen.getByLabelText("Password"), "short");
    await user.type(screen.getByLabelText("Confirm password"), "other");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(screen.getByLabelText("Phone number")).toHaveAccessibleDescription(/Enter a US or Canada phone number/);
    expect(screen.getByLabelText("Email (optional)")).toHaveAccessibleDescription("Enter a valid email");
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription(/At least 8 characters/);
    expect(screen.getByLabelText("Confirm password")).toHaveAccessibleDescription("Passwords don't match");
    // Fixing a field clears its message as you type.
    await user.clear(screen.getByLabelText("Password"));
    await user.type(screen.getByLabelText("Password"), "longenough1!");
    expect(screen.getByLabelText("Password")).toHaveAccessibleDescription(/Include an uppercase letter/);
  });

  it("says the same in Spanish", async () => {
    await setLanguage("es");
    const user = userEvent.setup();
    stubApi({});
    renderScreen("/register");
    await user.click(await screen.findByRole("button", { name: "Crear cuenta" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Completa los campos obligatorios antes de continuar");
    expect(screen.getByLabelText("Nombre completo")).toHaveAccessibleDescription("Obligatorio");
    await user.type(screen.getByLabelText("Número de teléfono"), "12");
    await user.type(screen.getByLabelText("Contraseña"), "abc");
    await user.type(screen.getByLabelText("Confirmar contraseña"), "abd");
    expect(screen.getByLabelText("Número de teléfono")).toHaveAccessibleDescription(/Ingresa un número de teléfono de EE. UU. o Canadá/);
    expect(screen.getByLabelText("Contraseña")).toHaveAccessibleDescription(/Al menos 8 caracteres/);
    expect(screen.getByLabelText("Confirmar contraseña")).toHaveAccessibleDescription("Las contraseñas no coinciden");
  });

  it("registers with the E.164 phone and the current language, then goes to /confirm-account", async () => {
    await setLanguage("es");
    const user = userEvent.setup();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const calls = stubApi({ "/api/auth/register": { status: 201, body: { codeDelivery: { destination: "+1***0123" } } } });
    // The registration waits for release(), then goes on to the stub's answer.
    apiServer.use(http.post("/api/auth/register", () => held));
    const { router } = renderScreen("/register");
    await user.click(await screen.findByRole("radio", { name: "Spark" }));
    await user.type(screen.getByLabelText("Nombre completo"), "  Dana Driver ");
    await user.type(screen.getByLabelText("Número de teléfono"), "(305) 555-0123");
    await user.type(screen.getByLabelText("Contraseña"), "Str0ng!pass");
    await user.type(screen.getByLabelText("Confirmar contraseña"), "Str0ng!pass");
    await user.type(screen.getByLabelText("Código de referido (opcional)"), "MIAMI10");
    await user.click(screen.getByRole("button", { name: "Crear cuenta" }));
    expect(await screen.findByRole("button", { name: "Creando cuenta…" })).toBeDisabled();
    release();
    const target = await wentTo(router, "/register");
    expect(target).toEqual({ path: "/confirm-account", state: { phoneNumber: "+13055550123", app: "spark", reason: "registered" } });
    expect(calls[0]).toEqual({
      method: "POST",
      path: "/api/auth/register",
      body: { name: "Dana Driver", phoneNumber: "+13055550123", password: "Str0ng!pass", app: "spark", referralCode: "MIAMI10", language: "es" },
    });
  });

  it("offers the marketing consent unticked, shows its exact wording, and records the version only when ticked", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ "/api/auth/register": { status: 201, body: { codeDelivery: { destination: "+1***0123" } } } });
    const { router } = renderScreen("/register");
    const box = await screen.findByRole("checkbox", { name: REGISTRATION_CONSENT.en });
    expect(box).not.toBeChecked();
    await user.type(screen.getByLabelText("Full name"), "Dana Driver");
    await user.type(screen.getByLabelText("Phone number"), "(305) 555-0123");
    await user.type(screen.getByLabelText("Password"), "Str0ng!pass");
    await user.type(screen.getByLabelText("Confirm password"), "Str0ng!pass");
    await user.click(box);
    await user.click(screen.getByRole("button", { name: "Create account" }));
    await wentTo(router, "/register");
    expect(calls[0]!.body).toMatchObject({ marketingConsent: { version: REGISTRATION_CONSENT.version }, language: "en" });
  });

  it("says an account with this phone number already exists (409), in both languages", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/register": error(409, "conflict", "An account with this phone number already exists") });
    renderScreen("/register");
    await user.type(await screen.findByLabelText("Full name"), "Dana");
    await user.type(screen.getByLabelText("Phone number"), "3055550123");
    await user.type(screen.getByLabelText("Password"), "Str0ng!pass");
    await user.type(screen.getByLabelText("Confirm password"), "Str0ng!pass");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("An account with this phone number already exists");
    await setLanguage("es");
    expect(await screen.findByRole("alert")).toHaveTextContent("Ya existe una cuenta con este número de teléfono");
  });

  it("says it couldn't create the account, and names an unknown referral code", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/register": error(422, "unprocessable", { field: "referralCode" }) });
    renderScreen("/register");
    await user.type(await screen.findByLabelText("Full name"), "Dana");
    await user.type(screen.getByLabelText("Phone number"), "3055550123");
    await user.type(screen.getByLabelText("Password"), "Str0ng!pass");
    await user.type(screen.getByLabelText("Confirm password"), "Str0ng!pass");
    await user.type(screen.getByLabelText("Referral code (optional)"), "NOPE");
    await user.click(screen.getByRole("button", { name: "Create account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't create account");
    expect(screen.getByLabelText("Referral code (optional)")).toHaveAccessibleDescription("Referral code not found. Check it or leave it empty.");
  });
});
