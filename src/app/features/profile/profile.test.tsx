import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import i18n, { setLanguage } from "../../i18n";
import type { SessionValue } from "../../lib/session";
import { aDriver, renderRoutes, signedIn, stubApi } from "../../test/render";
import ProfileEditPage from "./ProfileEditPage";
import ProfilePage from "./ProfilePage";
import ProfilePasswordPage from "./ProfilePasswordPage";

const dana = aDriver({
  email: "dana@example.com",
  expirationDateTimestamp: 1_800_000_000_000,
  expirationDate: "15/01/27",
  accountConnected: false,
  setupComplete: false,
  referral: "MIAMI10",
  status: "stop",
});

function renderAt(path: string, session: Partial<SessionValue> = {}, toaster = false) {
  const value = signedIn(dana, { setUser: vi.fn(), signOut: vi.fn(async () => {}), ...session });
  const router = renderRoutes(
    [
      { path: "/profile", Component: ProfilePage },
      { path: "/profile/edit", Component: ProfileEditPage },
      { path: "/profile/password", Component: ProfilePasswordPage },
    ],
    { path, session: value, toaster },
  );
  return { router, value };
}

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("profile", () => {
  it("shows the user, with links to edit it and to change the password", async () => {
    renderAt("/profile");
    expect(await screen.findByRole("heading", { name: "My profile" })).toBeInTheDocument();
    for (const text of ["Dana Driver", "+1 (305) 555-0123", "dana@example.com", "Flex", "15/01/27", "MIAMI10"])
      expect(screen.getByText(text)).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Edit profile" })).toHaveAttribute("href", "/profile/edit");
    expect(screen.getByRole("link", { name: "Change password" })).toHaveAttribute("href", "/profile/password");
  });

  it("signs out here or everywhere", async () => {
    const user = userEvent.setup();
    const { value } = renderAt("/profile");
    await user.click(await screen.findByRole("button", { name: "Sign out everywhere" }));
    expect(value.signOut).toHaveBeenCalledWith({ global: true });
  });

  it("reads in Spanish", async () => {
    await setLanguage("es");
    renderAt("/profile", { user: { ...dana, expirationDate: null, email: null } });
    expect(await screen.findByRole("heading", { name: "Mi perfil" })).toBeInTheDocument();
    expect(screen.getByText("Ninguna")).toBeInTheDocument();
    expect(screen.getByText("Sin definir")).toBeInTheDocument();
  });
});

describe("the delivery account on the profile", () => {
  const connection = (accountName: string | null) => ({
    body: { connected: true, accountName, connectedAt: 1, disconnectedAt: null, disconnectReason: null, pending: null },
  });

  it("names the connected account by the platform's name for it, in both languages", async () => {
    stubApi({ "/api/driver/connection": connection("Dana D.") });
    renderAt("/profile");
    expect(await screen.findByText("Connected as Dana D.")).toBeInTheDocument();
    await setLanguage("es");
    expect(await screen.findByText("Conectada como Dana D.")).toBeInTheDocument();
  });

  it("says connected when the platform gave no name", async () => {
    stubApi({ "/api/driver/connection": connection(null) });
    renderAt("/profile");
    expect(await screen.findByText("Connected")).toBeInTheDocument();
  });
});

describe("profile edit", () => {
  it("saves name, email and language with PATCH /api/auth/me and switches the interface language", async () => {
    const user = userEvent.setup();
    const saved = { ...dana, name: "Dana D.", language: "es" as const };
    const calls = stubApi({ "/api/auth/me": [{ body: { Item: saved } }] });
    const { router, value } = renderAt("/profile/edit");
    const name = await screen.findByLabelText("Full name");
    await user.clear(name);
    await user.type(name, "Dana D.");
    await user.selectOptions(screen.getByLabelText("Language"), "es");
    await user.click(screen.getByRole("button", { name: "Save" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/profile"));
    expect(calls[0]).toEqual({ method: "PATCH", path: "/api/auth/me", body: { name: "Dana D.", email: "dana@example.com", language: "es" } });
    expect(value.setUser).toHaveBeenCalledWith(saved);
    expect(i18n.language).toBe("es");
  });

  it("validates in both languages and words a failed save", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/auth/me": [
        { status: 500, body: { error: { code: "internal", message: "x" } } },
        { status: 400, body: { error: { code: "bad_request", message: "x" } } },
      ],
    });
    renderAt("/profile/edit");
    await user.clear(await screen.findByLabelText("Full name"));
    const email = screen.getByLabelText("Email (optional)");
    await user.clear(email);
    await user.type(email, "not-an-email");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(screen.getByRole("alert")).toHaveTextContent("Input required fields before continuing");
    expect(screen.getByLabelText("Email (optional)")).toHaveAccessibleDescription("Enter a valid email");
    await setLanguage("es");
    expect(await screen.findByRole("alert")).toHaveTextContent("Completa los campos obligatorios antes de continuar");
    expect(screen.getByLabelText("Correo electrónico (opcional)")).toHaveAccessibleDescription("Ingresa un correo electrónico válido");
    await setLanguage("en");
    await user.type(screen.getByLabelText("Full name"), "Dana");
    await user.clear(screen.getByLabelText("Email (optional)"));
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("An unexpected error occurred. Please try again later");
    await user.click(screen.getByRole("button", { name: "Save" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Couldn't save your profile");
  });
});

describe("change password", () => {
  it("changes the password and returns to the profile", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ "/api/auth/change-password": [{ body: {} }] });
    const { router } = renderAt("/profile/password");
    await user.type(await screen.findByLabelText("Current password"), "0ld!Password");
    await user.type(screen.getByLabelText("New password"), "N3w!Password");
    await user.type(screen.getByLabelText("Confirm password"), "N3w!Password");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/profile"));
    expect(calls[0]!.body).toEqual({ currentPassword: "0ld!Password", newPassword: "N3w!Password" });
  });

  it("says when the current password is wrong or the new ones don't match", async () => {
    const user = userEvent.setup();
    stubApi({
      "/api/auth/change-password": [
        { status: 400, body: { error: { code: "bad_request", message: "Current password is incorrect", details: { reason: "wrong_password" } } } },
      ],
    });
    renderAt("/profile/password");
    await user.type(await screen.findByLabelText("Current password"), "wrong");
    await user.type(screen.getByLabelText("New password"), "N3w!Password");
    await user.type(screen.getByLabelText("Confirm password"), "N3w!Passwor");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(screen.getByLabelText("Confirm password")).toHaveAccessibleDescription("Passwords don't match");
    await user.type(screen.getByLabelText("Confirm password"), "d");
    await user.click(screen.getByRole("button", { name: "Change password" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("The current password is incorrect");
    await setLanguage("es");
    expect(await screen.findByRole("alert")).toHaveTextContent("La contraseña actual es incorrecta");
  });
});

describe("deleting the account", () => {
  function renderProfileWithHome(session: Partial<SessionValue> = {}) {
    const value = signedIn(dana, { setUser: vi.fn(), signOut: vi.fn(async () => {}), ...session });
    const router = renderRoutes(
      [
        { path: "/", Component: () => <p>Home</p> },
        { path: "/profile", Component: ProfilePage },
      ],
      { path: "/profile", session: value },
    );
    return { router, value };
  }

  it("says what goes and what stays, asks the password and the typed word, then signs out", async () => {
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/account/delete/start": [{ body: { method: "password" } }],
      "/api/account/delete": [{ body: { erased: true, alreadyErased: false } }],
    });
    const { router, value } = renderProfileWithHome();
    expect(await screen.findByRole("heading", { name: "Delete my account" })).toBeInTheDocument();
    expect(screen.getByText(/What the law makes us keep/)).toBeInTheDocument();
    await user.click(screen.getByRole("button", { name: "Delete my account…" }));
    await user.type(await screen.findByLabelText("Your password"), "Driver#2026!");
    await user.type(screen.getByLabelText("Type DELETE to confirm"), "delete it");
    await user.click(screen.getByRole("button", { name: "Delete my account permanently" }));
    expect(await screen.findByText("Type the word shown, exactly")).toBeInTheDocument();
    expect(calls.filter((c) => c.path === "/api/account/delete")).toEqual([]);

    await user.clear(screen.getByLabelText("Type DELETE to confirm"));
    await user.type(screen.getByLabelText("Type DELETE to confirm"), "DELETE");
    await user.click(screen.getByRole("button", { name: "Delete my account permanently" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/"));
    expect(calls.find((c) => c.path === "/api/account/delete")).toEqual({
      method: "POST",
      path: "/api/account/delete",
      body: { password: "Driver#2026!", confirmation: "DELETE" },
    });
    expect(value.signOut).toHaveBeenCalled();
  });

  it("in Spanish, with a texted code for an account without a password, and words a wrong code", async () => {
    await setLanguage("es");
    const user = userEvent.setup();
    const calls = stubApi({
      "/api/account/delete/start": [{ body: { method: "code", destination: "***-***-0123" } }],
      "/api/account/delete": [
        { status: 400, body: { error: { code: "bad_request", message: "Incorrect code", details: { reason: "mismatch", attemptsLeft: 4 } } } },
      ],
    });
    const { value } = renderProfileWithHome();
    await user.click(await screen.findByRole("button", { name: "Eliminar mi cuenta…" }));
    expect(await screen.findByText("Enviamos un código a ***-***-0123.")).toBeInTheDocument();
    await user.type(screen.getByLabelText("Código del mensaje de texto"), "123456");
    await user.type(screen.getByLabelText("Escribe ELIMINAR para confirmar"), "eliminar");
    await user.click(screen.getByRole("button", { name: "Eliminar mi cuenta para siempre" }));
    await waitFor(() => expect(calls.find((c) => c.path === "/api/account/delete")?.body).toEqual({ code: "123456", confirmation: "eliminar" }));
    expect(await screen.findAllByText(i18n.t("auth:errors.codeIncorrect"))).not.toHaveLength(0);
    expect(value.signOut).not.toHaveBeenCalled();
  });

  it("downloads my data as one JSON file", async () => {
    const user = userEvent.setup();
    const calls = stubApi({ "/api/account/export": [{ body: { format: "blockpilot-account-export/1", profile: { name: "Dana Driver" } } }] });
    const created = vi.fn((_blob: Blob) => "blob:export");
    // jsdom has no object URLs; this file's environment is its own.
    Object.assign(URL, { createObjectURL: created, revokeObjectURL: vi.fn() });
    const click = vi.spyOn(HTMLAnchorElement.prototype, "click").mockImplementation(() => {});
    renderAt("/profile");
    await user.click(await screen.findByRole("button", { name: "Download my data" }));
    await waitFor(() => expect(click).toHaveBeenCalled());
    expect(calls.map((c) => c.path)).toContain("/api/account/export");
    const anchor = click.mock.instances[0] as unknown as HTMLAnchorElement;
    expect(anchor.download).toBe("blockpilot-data.json");
    expect(JSON.parse(await created.mock.calls[0]![0].text())).toMatchObject({ profile: { name: "Dana Driver" } });
  });

  it("says a download refused for too many attempts (429) as such, in English and Spanish", async () => {
    const limited = {
      status: 429,
      body: {
        error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds: 3000 } },
      },
    };
    stubApi({ "/api/account/export": [limited, limited] });
    renderAt("/profile", {}, true);
    await userEvent.click(await screen.findByRole("button", { name: "Download my data" }));
    expect(await screen.findByText("Too many attempts. Wait a few minutes and try again.")).toBeInTheDocument();
    await setLanguage("es");
    await userEvent.click(await screen.findByRole("button", { name: i18n.t("auth:profile.data.download") }));
    expect(await screen.findByText("Demasiados intentos. Espera unos minutos e inténtalo de nuevo.")).toBeInTheDocument();
  });

  it("is not offered to administrators", async () => {
    renderAt("/profile", { user: { ...dana, isAdmin: true } });
    expect(await screen.findByRole("heading", { name: "Your data" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Delete my account" })).not.toBeInTheDocument();
  });
});
