import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { REGISTRATION_CONSENT } from "../../../shared/consent-texts";
import { setLanguage } from "../../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession } from "../../lib/session";
import { apiServer } from "../../test/api-server";
import { stubApi } from "../../test/render";
import ConfirmAccountPage from "./ConfirmAccountPage";
import ForgotPasswordPage from "./ForgotPasswordPage";
import LoginPage from "./LoginPage";
import { rememberSignIn } from "./pending-sign-in";
import RegisterPage from "./RegisterPage";

type Reply = { status?: number; body?: unknown };

const error = (status: number, code: string, details?: unknown): Reply => ({ status, body: { error: { code, message: "x", details } } });
const tokens = { idToken: "header.eyJzdWIiOiI3IiwiZXhwIjo0MDAwMDAwMDAwfQ.sig", refreshToken: "r1", expiresIn: 3600 };

function renderScreen(path: string, session: Partial<SessionValue> = {}, state?: unknown) {
  const value = { ...signedOutSession, signIn: vi.fn(), ...session };
  const router = createMemoryRouter(
    [
      { path: "/login", Component: LoginPage },
      { path: "/register", Component: RegisterPage },
      { path: "/confirm-account", Component: ConfirmAccountPage },
      { path: "/forgot-password", Component: ForgotPasswordPage },
    ],
    { initialEntries: [{ pathname: path, state }] },
  );
  render(
    <StaticSessionProvider value={value}>
      <RouterProvider router={router} />
    </StaticSessionProvider>,
  );
  return { value, router };
}

/** Where the screen navigated to (a path other than `from`), and with which state. */
async function wentTo(router: ReturnType<typeof renderScreen>["router"], from: string) {
  await waitFor(() => expect(router.state.location.pathname).not.toBe(from));
  return { path: router.state.location.pathname, state: router.state.location.state as Record<string, unknown> };
}

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

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

describe("login", () => {
  async function fill(user: ReturnType<typeof userEvent.setup>, phone = "305 555 0123", password = "Str0ng!pass") {
    await user.type(await screen.findByLabelText(/Phone number|Número de teléfono/), phone);
    await user.type(screen.getByLabelText(/^(Password|Contraseña)$/), password);
  }

  it("signs in with phone, password and app (Flex by default)", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ "/api/auth/sign-in": { body: { tokens } } });
    const { value } = renderScreen("/login");
    expect(await screen.findByRole("radio", { name: "Flex" })).toBeChecked();
    await fill(user);
    await user.keyboard("{Enter}");
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls[0]!.body).toEqual({ phoneNumber: "+13055550123", app: "flex", password: "Str0ng!pass" });
  });

  it("says phone number or password incorrect on a 401, in both languages", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/sign-in": error(401, "unauthorized") });
    renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Phone number or password incorrect");
    await setLanguage("es");
    expect(await screen.findByRole("alert")).toHaveTextContent("Número de teléfono o contraseña incorrectos");
  });

  it("words rate limits, server faults and a lost connection", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/sign-in": [error(429, "rate_limited"), error(500, "internal")] });
    renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Wait a few minutes and try again.");
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("An unexpected error occurred. Please try again later");
    apiServer.use(http.post("/api/auth/sign-in", () => HttpResponse.error()));
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Network error: check your connection and try again.");
  });

  it("answers a TOTP challenge, then signs in", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/auth/sign-in": { body: { challenge: "SOFTWARE_TOKEN_MFA", session: "challenge-1" } },
      "/api/auth/respond": [
        error(400, "bad_request", { reason: "mismatch", attemptsLeft: 4 }),
        error(400, "bad_request", { reason: "used" }),
        { body: { tokens } },
      ],
    });
    const { value } = renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("heading", { name: "Two-step verification" })).toBeInTheDocument();
    const code = screen.getByLabelText("6-digit code");
    expect(code).toHaveFocus();
    await user.type(code, "000 000");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("The code is incorrect or has expired.");
    await user.type(screen.getByLabelText("6-digit code"), "111111");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("This code was already used.");
    await user.type(screen.getByLabelText("6-digit code"), "123456");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls.filter((c) => c.path === "/api/auth/respond").map((c) => c.body)).toEqual([
      { challenge: "SOFTWARE_TOKEN_MFA", session: "challenge-1", code: "000000" },
      { challenge: "SOFTWARE_TOKEN_MFA", session: "challenge-1", code: "111111" },
      { challenge: "SOFTWARE_TOKEN_MFA", session: "challenge-1", code: "123456" },
    ]);
  });

  it("says a timed-out challenge is over, and starting over goes back to the sign-in form", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/sign-in": { body: { challenge: "SMS_MFA", session: "s9" } }, "/api/auth/respond": error(401, "unauthorized", { reason: "expired" }) });
    renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByText("We sent a 6-digit code to •••0123.")).toBeInTheDocument();
    await user.type(screen.getByLabelText("6-digit code"), "123456");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("This sign-in has expired. Start over.");
    await user.click(screen.getByRole("button", { name: "Start over" }));
    expect(await screen.findByRole("button", { name: "Sign in" })).toBeInTheDocument();
  });

  it("shows MFA_SETUP as a QR code of the otpauth URI with the key to type instead", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/auth/sign-in": {
        body: {
          challenge: "MFA_SETUP",
          session: "s",
          parameters: { secret: "JBSWY3DPEHPK3PXP", otpauthUri: "otpauth://totp/Blockpilot:%2B13055550123?secret=JBSWY3DPEHPK3PXP&issuer=Blockpilot" },
        },
      },
    });
    renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await screen.findByRole("heading", { name: "Set up your authenticator" })).toBeInTheDocument();
    const qr = await screen.findByRole("img", { name: "QR code to add Blockpilot to your authenticator app" });
    expect(qr.getAttribute("src")).toMatch(/^data:image\/svg\+xml/);
    expect(screen.getByText("JBSW Y3DP EHPK 3PXP")).toBeInTheDocument();
  });

  it("asks for a new password when required, checking both entries match", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ "/api/auth/sign-in": { body: { challenge: "NEW_PASSWORD_REQUIRED", session: "s2" } }, "/api/auth/respond": { body: { tokens } } });
    const { value } = renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    await user.type(await screen.findByLabelText("New password"), "N3w!password");
    await user.type(screen.getByLabelText("Confirm password"), "N3w!passwor");
    await user.click(screen.getByRole("button", { name: "Save password" }));
    expect(screen.getByLabelText("Confirm password")).toHaveAccessibleDescription("Passwords don't match");
    await user.type(screen.getByLabelText("Confirm password"), "d");
    await user.click(screen.getByRole("button", { name: "Save password" }));
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls.at(-1)!.body).toEqual({ challenge: "NEW_PASSWORD_REQUIRED", session: "s2", newPassword: "N3w!password" });
  });

  it("signs in with an SMS code instead of the password", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/auth/sign-in": { body: { challenge: "CUSTOM_CHALLENGE", session: "sms-1" } },
      "/api/auth/respond": { body: { tokens } },
    });
    const { value } = renderScreen("/login");
    await user.click(await screen.findByRole("button", { name: "Sign in with a code by SMS instead" }));
    expect(screen.queryByLabelText("Password")).toBeNull();
    await user.type(screen.getByLabelText("Phone number"), "3055550123");
    await user.click(screen.getByRole("button", { name: "Text me a code" }));
    expect(await screen.findByText("We sent a 6-digit code to •••0123.")).toBeInTheDocument();
    await user.type(screen.getByLabelText("6-digit code"), "654321");
    await user.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls[0]!.body).toEqual({ phoneNumber: "+13055550123", app: "flex", method: "sms" });
    expect(calls[1]!.body).toEqual({ challenge: "CUSTOM_CHALLENGE", session: "sms-1", code: "654321" });
  });

  it("sends an unconfirmed account to confirm it: a new code, then the confirm screen signs in with this password", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/auth/sign-in": error(403, "forbidden", { reason: "unconfirmed" }),
      "/api/auth/resend-code": { body: { codeDelivery: {} } },
      "/api/auth/confirm": { body: { confirmed: true, tokens } },
    });
    const { router, value } = renderScreen("/login");
    await fill(user);
    await user.click(screen.getByRole("button", { name: "Sign in" }));
    expect(await wentTo(router, "/login")).toEqual({ path: "/confirm-account", state: { phoneNumber: "+13055550123", app: "flex", reason: "unverified" } });
    expect(await screen.findByText("Confirm account to continue")).toBeInTheDocument();
    await user.type(screen.getByLabelText("6-digit code"), "111222");
    await user.click(screen.getByRole("button", { name: "Confirm account" }));
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls.map((c) => c.path)).toEqual(["/api/auth/sign-in", "/api/auth/resend-code", "/api/auth/confirm"]);
    expect(calls[2]!.body).toEqual({ phoneNumber: "+13055550123", app: "flex", code: "111222", password: "Str0ng!pass" });
  });

  it("links to forgot password and to registering", async () => {
    renderScreen("/login");
    expect(await screen.findByRole("link", { name: "Forgot your password?" })).toHaveAttribute("href", "/forgot-password");
    expect(screen.getByRole("link", { name: "Create an account" })).toHaveAttribute("href", "/register");
  });
});

describe("confirm account", () => {
  it("confirms with the password kept from registering, which signs the new driver in", async () => {
    const user = userEvent.setup();
    rememberSignIn("+13055550123", "flex", "Str0ng!pass");
    const calls = stubApi({ "/api/auth/confirm": { body: { confirmed: true, tokens } } });
    const { value } = renderScreen("/confirm-account", {}, { phoneNumber: "+13055550123", app: "flex", reason: "registered" });
    expect(await screen.findByText("We sent a 6-digit code to +1 (305) 555-0123. Enter it to confirm your account.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: /Send a new code in \d+ s/ })).toBeDisabled();
    await user.type(screen.getByLabelText("6-digit code"), "111222");
    await user.click(screen.getByRole("button", { name: "Confirm account" }));
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls.map((c) => [c.path, c.body])).toEqual([
      ["/api/auth/confirm", { phoneNumber: "+13055550123", app: "flex", code: "111222", password: "Str0ng!pass" }],
    ]);
  });

  it("without the kept password, asks for a new password after the code, then signs in", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/auth/confirm": { body: { confirmed: true, challenge: "NEW_PASSWORD_REQUIRED", session: "np-1" } },
      "/api/auth/respond": { body: { tokens } },
    });
    const { value } = renderScreen("/confirm-account", {}, { phoneNumber: "+13055550123", app: "flex" });
    await user.type(await screen.findByLabelText("6-digit code"), "111222");
    await user.click(screen.getByRole("button", { name: "Confirm account" }));
    expect(await screen.findByRole("heading", { name: "Choose a new password" })).toBeInTheDocument();
    await user.type(screen.getByLabelText("New password"), "N3w!password");
    await user.type(screen.getByLabelText("Confirm password"), "N3w!password");
    await user.keyboard("{Enter}");
    await waitFor(() => expect(value.signIn).toHaveBeenCalledWith(tokens));
    expect(calls.map((c) => [c.path, c.body])).toEqual([
      ["/api/auth/confirm", { phoneNumber: "+13055550123", app: "flex", code: "111222" }],
      ["/api/auth/respond", { challenge: "NEW_PASSWORD_REQUIRED", session: "np-1", newPassword: "N3w!password" }],
    ]);
  });

  it("says it couldn't confirm a wrong code, in both languages", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/confirm": error(400, "bad_request", { reason: "mismatch", attemptsLeft: 4 }) });
    renderScreen("/confirm-account", {}, { phoneNumber: "+13055550123", app: "flex" });
    await user.type(await screen.findByLabelText("6-digit code"), "999999");
    await user.click(screen.getByRole("button", { name: "Confirm account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't confirm account");
    expect(screen.getByLabelText("6-digit code")).toHaveAccessibleDescription("The code is incorrect or has expired.");
    await setLanguage("es");
    expect(await screen.findByRole("alert")).toHaveTextContent("No se pudo confirmar la cuenta");
  });

  it("asks for the phone when none was handed over, and resends a code", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ "/api/auth/resend-code": [error(500, "internal"), { body: { codeDelivery: {} } }] });
    renderScreen("/confirm-account");
    await user.click(await screen.findByRole("button", { name: "Send a new code" }));
    expect(screen.getByLabelText("Phone number")).toHaveAccessibleDescription("Required");
    await user.type(screen.getByLabelText("Phone number"), "+1 305 555 0123");
    await user.click(screen.getByRole("button", { name: "Send a new code" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("An unexpected error occurred. Please try again later");
    await user.click(screen.getByRole("button", { name: "Send a new code" }));
    await waitFor(() => expect(screen.getByRole("button", { name: /Send a new code in \d+ s/ })).toBeDisabled());
    expect(calls.at(-1)).toEqual({ method: "POST", path: "/api/auth/resend-code", body: { phoneNumber: "+13055550123", app: "flex" } });
  });

  it("says 'error sending confirmation code' when the resend is refused", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/resend-code": error(400, "bad_request") });
    renderScreen("/confirm-account", {}, { phoneNumber: "+13055550123", app: "flex" });
    await user.click(await screen.findByRole("button", { name: "Send a new code" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Error sending confirmation code");
  });

  it("sends a person whose account was confirmed already to sign in, with a confirmation", async () => {
    const user = userEvent.setup();
    stubApi({ "/api/auth/confirm": error(409, "conflict") });
    const { router } = renderScreen("/confirm-account", {}, { phoneNumber: "+13055550188", app: "spark" });
    await user.type(await screen.findByLabelText("6-digit code"), "123123");
    await user.click(screen.getByRole("button", { name: "Confirm account" }));
    expect(await wentTo(router, "/confirm-account")).toEqual({ path: "/login", state: { phoneNumber: "+13055550188", app: "spark", notice: "confirmed" } });
  });
});

describe("forgot password", () => {
  it("requests a code, then resets with the code and a new password, and sends the person to sign in", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/auth/forgot-password": { body: { codeDelivery: {} } },
      "/api/auth/reset-password": [error(400, "bad_request", { reason: "expired" }), { body: { reset: true } }],
    });
    const { router } = renderScreen("/forgot-password");
    await user.type(await screen.findByLabelText("Phone number"), "305-555-0123");
    await user.click(screen.getByRole("button", { name: "Send code" }));
    expect(await screen.findByText(/If \+1 \(305\) 555-0123 has an account/)).toBeInTheDocument();
    await user.type(screen.getByLabelText("6-digit code"), "123456");
    await user.type(screen.getByLabelText("New password"), "N3w!password");
    await user.type(screen.getByLabelText("Confirm password"), "N3w!password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't reset the password");
    expect(screen.getByLabelText("6-digit code")).toHaveAccessibleDescription("This code has expired. Send a new one.");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await wentTo(router, "/forgot-password")).toEqual({ path: "/login", state: { phoneNumber: "+13055550123", app: "flex", notice: "passwordReset" } });
    expect(await screen.findByText("Your password was changed. Sign in with the new one.")).toBeInTheDocument();
    expect(screen.getByLabelText("Phone number")).toHaveValue("+1 (305) 555-0123");
    expect(calls.at(-1)!.body).toEqual({ phoneNumber: "+13055550123", app: "flex", code: "123456", newPassword: "N3w!password" });
  });

  it("validates the phone in Spanish", async () => {
    await setLanguage("es");
    const user = userEvent.setup();
    stubApi({});
    renderScreen("/forgot-password");
    await user.type(await screen.findByLabelText("Número de teléfono"), "123");
    await user.click(screen.getByRole("button", { name: "Enviar código" }));
    expect(screen.getByLabelText("Número de teléfono")).toHaveAccessibleDescription("Ingresa un número de teléfono de EE. UU. o Canadá");
  });
});
