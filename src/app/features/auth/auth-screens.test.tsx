import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it } from "vitest";
import { setLanguage } from "../../i18n";
import { error, renderScreen, resetEachTest, tokens, wentTo } from "../../test/auth-screens";
import { stubApi } from "../../test/render";
import { rememberSignIn } from "./pending-sign-in";

resetEachTest();

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
