/** The sign-in screens' tests: the four screens on a router, signed out, and the answers they are given. */
import { render, waitFor } from "@testing-library/react";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterEach, beforeEach, expect, vi } from "vitest";
import ConfirmAccountPage from "../features/auth/ConfirmAccountPage";
import ForgotPasswordPage from "../features/auth/ForgotPasswordPage";
import LoginPage from "../features/auth/LoginPage";
import RegisterPage from "../features/auth/RegisterPage";
import { setLanguage } from "../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession } from "../lib/session";

type Reply = { status?: number; body?: unknown };

export const error = (status: number, code: string, details?: unknown): Reply => ({ status, body: { error: { code, message: "x", details } } });
export const tokens = { idToken: "header.eyJzdWIiOiI3IiwiZXhwIjo0MDAwMDAwMDAwfQ.sig", refreshToken: "r1", expiresIn: 3600 };

export function renderScreen(path: string, session: Partial<SessionValue> = {}, state?: unknown) {
  const value: SessionValue = { ...signedOutSession, signIn: vi.fn(), ...session };
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
export async function wentTo(router: ReturnType<typeof renderScreen>["router"], from: string) {
  await waitFor(() => expect(router.state.location.pathname).not.toBe(from));
  return { path: router.state.location.pathname, state: router.state.location.state as Record<string, unknown> };
}

/** Each test starts in English, and leaves no stub, mock or localStorage entry behind. */
export function resetEachTest() {
  beforeEach(() => setLanguage("en"));
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    localStorage.clear();
  });
}
