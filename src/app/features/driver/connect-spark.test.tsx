import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import type { User } from "../../lib/session";
import { mockApi, renderScreen } from "../../test/admin-harness";
import { driver, resetEachTest } from "../../test/driver-screens";
import ApprovalPage from "./ApprovalPage";
import CodePage from "./CodePage";
import ConnectPage from "./ConnectPage";

/** Spark keeps the modelled email-and-password sign-in and its code and approval steps (Flex's is in connect.test.tsx). */
const sparkDriver = { ...driver, app: "spark" } as Partial<User>;

resetEachTest();

const notConnected = { connected: false, accountName: null, connectedAt: null, disconnectedAt: null, disconnectReason: null, pending: null };

describe("connecting a Spark account", () => {
  it("says when the platform refuses the password, and shows the banner after a refused refresh", async () => {
    mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: { ...notConnected, disconnectReason: "refused" } }) },
      {
        method: "POST",
        path: "/api/driver/connection",
        reply: () => ({
          status: 422,
          body: { error: { code: "unprocessable", message: "Platform email or password incorrect", details: { reason: "refused" } } },
        }),
      },
    ]);
    renderScreen(<ConnectPage />, { user: sparkDriver, path: "/flex/login" });
    expect(await screen.findByText(/Spark ended the connection to your account/)).toBeInTheDocument();
    await userEvent.type(screen.getByLabelText("Spark email"), "dana@example.com");
    await userEvent.type(screen.getByLabelText("Spark password"), "nope");
    await userEvent.click(screen.getByRole("button", { name: "Connect account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Email or password incorrect");
  });

  it("the code page shows a wrong code on the field, and a right one moves on to the filters", async () => {
    let tries = 0;
    mockApi([
      {
        path: "/api/driver/connection",
        reply: () => ({
          body: { ...notConnected, pending: { attemptId: "B".repeat(24), kind: "code", destination: "d•••@x.com", email: "d@x.com", expiresAt: 0 } },
        }),
      },
      {
        method: "POST",
        path: "/api/driver/connection/code",
        reply: () =>
          tries++ === 0
            ? { status: 422, body: { error: { code: "unprocessable", message: "The code is not correct", details: { reason: "refused" } } } }
            : { body: { status: "connected" } },
      },
    ]);
    const router = renderScreen(<CodePage />, { user: sparkDriver, path: "/flex/otp" });
    expect(await screen.findByText(/sent a verification code to d•••@x.com/)).toBeInTheDocument();
    const field = screen.getByLabelText("Verification code");
    await userEvent.type(field, "111111");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByText("The code is not correct")).toBeInTheDocument();
    await userEvent.clear(field);
    await userEvent.type(field, "222222");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
  });

  const tooMany = (retryAfterSeconds: number) => ({
    status: 429,
    body: { error: { code: "rate_limited", message: "Too many attempts. Try again later", details: { reason: "too_many_attempts", retryAfterSeconds } } },
  });

  it("a refused connection (429) says how long to wait, in English and Spanish", async () => {
    mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      { method: "POST", path: "/api/driver/connection", reply: () => tooMany(86_350) },
    ]);
    renderScreen(<ConnectPage />, { user: sparkDriver, path: "/flex/login" });
    await userEvent.type(await screen.findByLabelText("Spark email"), "dana@example.com");
    await userEvent.type(screen.getByLabelText("Spark password"), "secret");
    await userEvent.click(screen.getByRole("button", { name: "Connect account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 24 hours.");
    await act(() => setLanguage("es"));
    await userEvent.click(screen.getByRole("button", { name: "Conectar cuenta" }));
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 24 horas."));
  });

  it("the code page says how long to wait after a 429", async () => {
    mockApi([
      {
        path: "/api/driver/connection",
        reply: () => ({
          body: { ...notConnected, pending: { attemptId: "B".repeat(24), kind: "code", destination: "d•••@x.com", email: "d@x.com", expiresAt: 0 } },
        }),
      },
      { method: "POST", path: "/api/driver/connection/code", reply: () => tooMany(61) },
    ]);
    renderScreen(<CodePage />, { user: sparkDriver, path: "/flex/otp" });
    await userEvent.type(await screen.findByLabelText("Verification code"), "111111");
    await userEvent.click(screen.getByRole("button", { name: "Verify" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 2 minutes.");
  });

  it("the approval page, told to wait (429), says how long and asks again only once the wait is over", async () => {
    let asked = 0;
    const api = mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      { method: "POST", path: "/api/driver/connection/approval", reply: () => (asked++ === 0 ? tooMany(20) : { body: { status: "connected" } }) },
    ]);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const router = renderScreen(<ApprovalPage />, { user: sparkDriver, path: "/flex/confirm" });
      await router.navigate("/flex/confirm", { state: { attemptId: "C".repeat(24) } });
      expect(await screen.findByText("Too many attempts. Try again in 20 seconds.")).toBeInTheDocument();
      await vi.advanceTimersByTimeAsync(15_000);
      expect(api.to("/api/driver/connection/approval", "POST")).toHaveLength(1);
      await vi.advanceTimersByTimeAsync(6_000);
      await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
      expect(api.to("/api/driver/connection/approval", "POST")).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it("the approval page waits, then moves on once approved; Cancel ends the attempt", async () => {
    let asked = 0;
    const api = mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      { method: "POST", path: "/api/driver/connection/approval", reply: () => ({ body: asked++ < 1 ? { status: "pending" } : { status: "connected" } }) },
    ]);
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const router = renderScreen(<ApprovalPage />, { user: sparkDriver, path: "/flex/confirm" });
      await router.navigate("/flex/confirm", { state: { attemptId: "C".repeat(24) } });
      expect(await screen.findByText("Waiting for your approval…")).toBeInTheDocument();
      await vi.advanceTimersByTimeAsync(3500);
      await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
      expect(api.to("/api/driver/connection/approval", "POST").length).toBeGreaterThanOrEqual(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
