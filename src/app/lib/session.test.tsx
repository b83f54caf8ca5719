import { act, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { SWRConfig } from "swr";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import i18n, { LANGUAGE_STORAGE_KEY, setLanguage } from "../i18n";
import { ENDPOINT, installPushBrowser, uninstallPushBrowser } from "../test/push-browser";
import { api, unwrap } from "./api-client";
import { cacheConfig } from "./live-session/cache-config";
import { SessionProvider, type User, useSession } from "./session";
import { REFRESH_LEAD_MS, refreshDelay, SESSION_STORAGE_KEY } from "./session-tokens";

const MINUTE = 60_000;

function b64url(value: unknown) {
  return btoa(JSON.stringify(value)).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");
}
/** An ID token as the SPA sees it: only the claims matter here (the server verifies signatures). */
function idToken(expiresInMs: number, sub = "7", from = Date.now()) {
  const exp = Math.floor((from + expiresInMs) / 1000);
  return `${b64url({ alg: "ES256", typ: "id+jwt" })}.${b64url({ sub, exp, phone_number: "+13055550123", phone_number_verified: true, app: "flex", is_admin: false })}.sig`;
}

const user: Partial<User> = { id: 7, name: "Dana Driver", phoneNumber: "+13055550123", expirationDateTimestamp: null, phoneNumberVerified: true };

type Call = { method: string; path: string; body: unknown; auth: string | null };
/** A stubbed API: records every call; `answers` decides each reply by path. */
function stubApi(answers: Record<string, (call: Call) => { status?: number; body?: unknown }>) {
  const calls: Call[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (path: string, init: RequestInit = {}) => {
      const headers = new Headers(init.headers);
      const call = { method: init.method ?? "GET", path, body: init.body ? JSON.parse(init.body as string) : undefined, auth: headers.get("Authorization") };
      calls.push(call);
      const answer = answers[path]?.(call) ?? { status: 404, body: { error: { code: "not_found", message: "Not found" } } };
      return new Response(JSON.stringify(answer.body ?? {}), { status: answer.status ?? 200, headers: { "Content-Type": "application/json" } });
    }),
  );
  return calls;
}

function Probe() {
  const s = useSession();
  return (
    <>
      <output data-testid="state">
        {JSON.stringify({
          loading: s.loading,
          user: s.user?.name ?? null,
          userLoading: s.userLoading,
          signedIn: s.session !== null,
          expiresToday: s.expiresToday,
          error: s.error?.message ?? null,
        })}
      </output>
      <button type="button" onClick={() => void s.signOut()}>
        sign out
      </button>
      <button type="button" onClick={() => s.dismissExpiryNotice()}>
        dismiss
      </button>
      <button type="button" onClick={() => void s.reloadUser()}>
        reload
      </button>
      <button type="button" disabled={s.loading} onClick={() => s.signIn({ idToken: idToken(60 * MINUTE), refreshToken: "refresh-in" })}>
        sign in
      </button>
    </>
  );
}

function state() {
  return JSON.parse(screen.getByTestId("state").textContent ?? "{}") as {
    loading: boolean;
    user: string | null;
    userLoading: boolean;
    signedIn: boolean;
    expiresToday: boolean;
    error: string | null;
  };
}

function renderSession(onSignOut = vi.fn()) {
  render(
    // A cache per test, so no test sees another's user.
    <SWRConfig value={{ provider: () => new Map() }}>
      <SessionProvider onSignOut={onSignOut}>
        <Probe />
      </SessionProvider>
    </SWRConfig>,
  );
  return onSignOut;
}

function store(idTokenValue: string, refreshToken = "refresh-1") {
  localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken: idTokenValue, refreshToken }));
}

beforeEach(() => localStorage.clear());
afterEach(() => {
  vi.useRealTimers();
  uninstallPushBrowser();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
  localStorage.clear();
});

describe("session state", () => {
  it("is signed out at once when nothing is stored (the public pages need not wait for the session's code)", async () => {
    stubApi({});
    renderSession();
    expect(state()).toMatchObject({ loading: false, signedIn: false, user: null, userLoading: false });
    await act(() => new Promise((resolve) => setTimeout(resolve, 50)));
    expect(state()).toMatchObject({ loading: false, signedIn: false, user: null, userLoading: false });
  });

  it("starts loading when a session is stored, until the live session has read it", async () => {
    store(idToken(60 * MINUTE));
    stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }) });
    renderSession();
    expect(state()).toMatchObject({ loading: true, signedIn: false });
    await waitFor(() => expect(state()).toMatchObject({ loading: false, signedIn: true }));
  });

  it("keeps a sign-in made before the live session's code arrived, waiting for it, then signs in as usual", async () => {
    stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }) });
    renderSession();
    // Synchronously after the first render: the live session's chunk has not arrived yet.
    act(() => screen.getByRole("button", { name: "sign in" }).click());
    expect(state()).toMatchObject({ loading: true, signedIn: false });
    await waitFor(() => expect(state()).toMatchObject({ loading: false, signedIn: true, user: "Dana Driver" }));
    expect(JSON.parse(localStorage.getItem(SESSION_STORAGE_KEY)!)).toEqual({ idToken: expect.any(String), refreshToken: "refresh-in" });
  });

  it("loads the user from GET /api/flex/v1/user with the stored ID token; userLoading meanwhile", async () => {
    const token = idToken(60 * MINUTE);
    store(token);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const calls = stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }) });
    const fetchMock = vi.mocked(fetch);
    const original = fetchMock.getMockImplementation()!;
    fetchMock.mockImplementation(async (...args) => {
      await gate;
      return original(...args);
    });
    renderSession();
    await waitFor(() => expect(state()).toMatchObject({ loading: false, signedIn: true, userLoading: true, user: null }));
    release();
    await waitFor(() => expect(state()).toMatchObject({ user: "Dana Driver", userLoading: false }));
    expect(calls.find((c) => c.path === "/api/flex/v1/user")?.auth).toBe(`Bearer ${token}`);
  });
});

describe("token refresh", () => {
  it("refreshes an expired ID token before the call, and the call carries the new one", async () => {
    store(idToken(-5 * MINUTE), "refresh-old");
    const fresh = idToken(60 * MINUTE);
    const calls = stubApi({
      "/api/auth/refresh": () => ({ body: { tokens: { idToken: fresh, refreshToken: "refresh-new", expiresIn: 3600 } } }),
      "/api/flex/v1/user": () => ({ body: { Item: user } }),
    });
    renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    const refresh = calls.filter((c) => c.path === "/api/auth/refresh");
    expect(refresh).toHaveLength(1);
    expect(refresh[0]!.body).toEqual({ refreshToken: "refresh-old" });
    expect(refresh[0]!.auth).toBeNull();
    expect(calls.indexOf(refresh[0]!)).toBeLessThan(calls.findIndex((c) => c.path === "/api/flex/v1/user"));
    expect(calls.find((c) => c.path === "/api/flex/v1/user")!.auth).toBe(`Bearer ${fresh}`);
    // Stored under the agreed key and shape, rotated.
    expect(JSON.parse(localStorage.getItem("bp.session")!)).toEqual({ idToken: fresh, refreshToken: "refresh-new" });
  });

  it("refreshes before any other API call made with an expired token, once for concurrent calls", async () => {
    store(idToken(60 * MINUTE));
    let fresh = "";
    const calls = stubApi({
      "/api/flex/v1/user": () => ({ body: { Item: user } }),
      "/api/auth/refresh": () => {
        fresh = idToken(60 * MINUTE);
        return { body: { tokens: { idToken: fresh, refreshToken: "refresh-2" } } };
      },
      "/api/status/health": () => ({ body: { status: "ok" } }),
    });
    renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    // The token expires while the app is open (the clock jumps past it; timers stay real).
    vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 61 * MINUTE);
    await Promise.all([unwrap(api.status.health.$get()), unwrap(api.status.health.$get())]);
    const refreshes = calls.filter((c) => c.path === "/api/auth/refresh");
    expect(refreshes).toHaveLength(1);
    expect(calls.indexOf(refreshes[0]!)).toBeLessThan(calls.findIndex((c) => c.path === "/api/status/health"));
    expect(calls.filter((c) => c.path === "/api/status/health").map((c) => c.auth)).toEqual([`Bearer ${fresh}`, `Bearer ${fresh}`]);
  });

  it("schedules the refresh ten minutes before expiry", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    store(idToken(30 * MINUTE));
    const calls = stubApi({
      "/api/flex/v1/user": () => ({ body: { Item: user } }),
      "/api/auth/refresh": () => ({ body: { tokens: { idToken: idToken(60 * MINUTE), refreshToken: "refresh-2" } } }),
    });
    renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    await act(() => vi.advanceTimersByTimeAsync(19 * MINUTE));
    expect(calls.filter((c) => c.path === "/api/auth/refresh")).toHaveLength(0);
    await act(() => vi.advanceTimersByTimeAsync(1 * MINUTE + 1000));
    await waitFor(() => expect(calls.filter((c) => c.path === "/api/auth/refresh")).toHaveLength(1));
    expect(JSON.parse(localStorage.getItem(SESSION_STORAGE_KEY)!).refreshToken).toBe("refresh-2");
  });

  it("refreshes at once when already past that point", async () => {
    store(idToken(5 * MINUTE));
    const calls = stubApi({
      "/api/flex/v1/user": () => ({ body: { Item: user } }),
      "/api/auth/refresh": () => ({ body: { tokens: { idToken: idToken(60 * MINUTE), refreshToken: "refresh-2" } } }),
    });
    renderSession();
    await waitFor(() => expect(calls.filter((c) => c.path === "/api/auth/refresh")).toHaveLength(1));
  });

  it("computes the delay from exp: 10 minutes before, never negative", () => {
    // A fixed instant on a whole second: the token's exp (in seconds) is exact, whatever the clock says.
    const now = Date.UTC(2031, 0, 6, 12);
    expect(REFRESH_LEAD_MS).toBe(10 * MINUTE);
    expect(refreshDelay(idToken(60 * MINUTE, "7", now), now)).toBe(50 * MINUTE);
    expect(refreshDelay(idToken(10 * MINUTE + 1000, "7", now), now)).toBe(1000);
    expect(refreshDelay(idToken(3 * MINUTE, "7", now), now)).toBe(0);
    expect(refreshDelay(idToken(-3 * MINUTE, "7", now), now)).toBe(0);
  });

  it("logs a failed refresh and goes on: the call is still made and the session kept", async () => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    const old = idToken(-1 * MINUTE);
    store(old, "refresh-old");
    const calls = stubApi({
      // A 500 is not retried (a 502–504 would be, for up to 300000 ms: lib/identity-retry.ts).
      "/api/auth/refresh": () => ({ status: 500, body: { error: { code: "internal", message: "Down" } } }),
      "/api/flex/v1/user": () => ({ body: { Item: user } }),
    });
    renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    expect(logged).toHaveBeenCalledWith("Session refresh failed", expect.objectContaining({ status: 500 }));
    expect(calls.find((c) => c.path === "/api/flex/v1/user")!.auth).toBe(`Bearer ${old}`);
    expect(state()).toMatchObject({ signedIn: true, loading: false, error: null });
    expect(JSON.parse(localStorage.getItem(SESSION_STORAGE_KEY)!).refreshToken).toBe("refresh-old");
  });

  it("ends the session when the server refuses both the token and a refresh", async () => {
    vi.spyOn(console, "error").mockImplementation(() => {});
    store(idToken(60 * MINUTE));
    stubApi({
      "/api/flex/v1/user": () => ({ status: 401, body: { error: { code: "unauthorized", message: "Invalid token" } } }),
      "/api/auth/refresh": () => ({ status: 401, body: { error: { code: "unauthorized", message: "Revoked" } } }),
    });
    renderSession();
    // Ended, not still starting (which is signed out and loading).
    await waitFor(() => expect(state()).toMatchObject({ signedIn: false, loading: false }));
    expect(localStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
  });
});

describe("sign-out and the expiry flag", () => {
  it("revokes the refresh token, clears the state and storage, and leaves for /", async () => {
    const ui = userEvent.setup();
    store(idToken(60 * MINUTE), "refresh-1");
    const calls = stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }), "/api/auth/sign-out": () => ({ body: { signedOut: true } }) });
    const onSignOut = renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    await ui.click(screen.getByRole("button", { name: "sign out" }));
    await waitFor(() => expect(state()).toMatchObject({ signedIn: false, user: null }));
    expect(calls.find((c) => c.path === "/api/auth/sign-out")!.body).toEqual({ refreshToken: "refresh-1" });
    expect(localStorage.getItem(SESSION_STORAGE_KEY)).toBeNull();
    expect(onSignOut).toHaveBeenCalledTimes(1);
  });

  it("sends this device's push endpoint with the sign-out and ends the browser's subscription", async () => {
    const ui = userEvent.setup();
    const browser = installPushBrowser({ permission: "granted", subscribed: true });
    const subscription = browser.current()!;
    store(idToken(60 * MINUTE), "refresh-1");
    const calls = stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }), "/api/auth/sign-out": () => ({ body: { signedOut: true } }) });
    renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    await ui.click(screen.getByRole("button", { name: "sign out" }));
    await waitFor(() => expect(state().signedIn).toBe(false));
    expect(calls.find((c) => c.path === "/api/auth/sign-out")!.body).toEqual({ refreshToken: "refresh-1", pushEndpoint: ENDPOINT });
    expect(subscription.unsubscribe).toHaveBeenCalledTimes(1);
  });

  it("signs in, out and straight back in, and loads the user each time", async () => {
    const ui = userEvent.setup();
    const calls = stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }), "/api/auth/sign-out": () => ({ body: { signedOut: true } }) });
    renderSession();
    await waitFor(() => expect(screen.getByRole("button", { name: "sign in" })).toBeEnabled());
    await ui.click(screen.getByRole("button", { name: "sign in" }));
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    expect(JSON.parse(localStorage.getItem(SESSION_STORAGE_KEY)!)).toEqual({ idToken: expect.any(String), refreshToken: "refresh-in" });
    await ui.click(screen.getByRole("button", { name: "sign out" }));
    await waitFor(() => expect(state().signedIn).toBe(false));
    // Within SWR's 2 s de-duplication window of the first read.
    await ui.click(screen.getByRole("button", { name: "sign in" }));
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    expect(calls.filter((c) => c.path === "/api/flex/v1/user")).toHaveLength(2);
  });

  it("applies the account's stored language at sign-in, and not on a later reload", async () => {
    const ui = userEvent.setup();
    await setLanguage("en");
    stubApi({ "/api/flex/v1/user": () => ({ body: { Item: { ...user, language: "es" } } }) });
    renderSession();
    await waitFor(() => expect(screen.getByRole("button", { name: "sign in" })).toBeEnabled());
    await ui.click(screen.getByRole("button", { name: "sign in" }));
    await waitFor(() => expect(i18n.language).toBe("es"));
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe("es");
    // The person switches back in this tab: reloading the user does not override that choice.
    await act(() => setLanguage("en"));
    await ui.click(screen.getByRole("button", { name: "reload" }));
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    expect(i18n.language).toBe("en");
  });

  it("still signs out locally when the sign-out call fails (logged)", async () => {
    const ui = userEvent.setup();
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    store(idToken(60 * MINUTE));
    stubApi({ "/api/flex/v1/user": () => ({ body: { Item: user } }), "/api/auth/sign-out": () => ({ status: 500, body: {} }) });
    const onSignOut = renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    await ui.click(screen.getByRole("button", { name: "sign out" }));
    await waitFor(() => expect(state().signedIn).toBe(false));
    expect(logged).toHaveBeenCalledWith("Sign-out request failed", expect.anything());
    expect(onSignOut).toHaveBeenCalled();
  });

  it("raises the expiry-today flag once, and a dismissed flag stays down", async () => {
    const ui = userEvent.setup();
    store(idToken(60 * MINUTE));
    stubApi({ "/api/flex/v1/user": () => ({ body: { Item: { ...user, expirationDateTimestamp: Date.now() } } }) });
    renderSession();
    await waitFor(() => expect(state().expiresToday).toBe(true));
    await ui.click(screen.getByRole("button", { name: "dismiss" }));
    expect(state().expiresToday).toBe(false);
    await ui.click(screen.getByRole("button", { name: "reload" }));
    await new Promise((r) => setTimeout(r, 50));
    expect(state().expiresToday).toBe(false);
  });

  it("does not raise the flag when the service expires another day", async () => {
    store(idToken(60 * MINUTE));
    stubApi({ "/api/flex/v1/user": () => ({ body: { Item: { ...user, expirationDateTimestamp: Date.now() + 2 * 86_400_000 } } }) });
    renderSession();
    await waitFor(() => expect(state().user).toBe("Dana Driver"));
    expect(state().expiresToday).toBe(false);
  });
});

describe("data cache constants (docs/product.md, constants)", () => {
  it("are 2 s de-duplication, 5 s focus throttle, 5/10 s error retry and 3/5 s loading timeout", () => {
    expect(cacheConfig(false)).toMatchObject({ dedupingInterval: 2000, focusThrottleInterval: 5000, errorRetryInterval: 5000, loadingTimeout: 3000 });
    expect(cacheConfig(true)).toMatchObject({ errorRetryInterval: 10_000, loadingTimeout: 5000 });
  });

  it("are SWR's own defaults, so every screen's useSWR gets them without an app-wide config", () => {
    const defaults = (SWRConfig as unknown as { defaultValue: Record<string, unknown> }).defaultValue;
    expect(defaults).toMatchObject({ dedupingInterval: 2000, focusThrottleInterval: 5000, errorRetryInterval: 5000, loadingTimeout: 3000 });
  });

  it("retries with jittered exponential back-off, and not a 4xx that would only repeat", async () => {
    const { ApiClientError } = await import("./api-client");
    const retry = cacheConfig(false).onErrorRetry!;
    const timers = vi.spyOn(globalThis, "setTimeout");
    const config = { errorRetryInterval: 5000, errorRetryCount: undefined } as never;
    retry(new ApiClientError(404, "not_found", "x"), "k", config, vi.fn(), { retryCount: 1, dedupe: true });
    expect(timers).not.toHaveBeenCalled();
    vi.spyOn(Math, "random").mockReturnValue(0.5);
    retry(new ApiClientError(503, "internal", "x"), "k", config, vi.fn(), { retryCount: 3, dedupe: true });
    expect(timers).toHaveBeenLastCalledWith(expect.any(Function), 8 * 5000, { retryCount: 3 });
  });
});
