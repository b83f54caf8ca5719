import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { HttpResponse, http } from "msw";
import { describe, expect, it } from "vitest";
import { setLanguage } from "../../i18n";
import { apiServer } from "../../test/api-server";
import { error, renderScreen, resetEachTest, tokens, wentTo } from "../../test/auth-screens";
import { stubApi } from "../../test/render";

resetEachTest();

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
