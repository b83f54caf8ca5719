import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../../i18n";
import type { User } from "../../lib/session";
import { mockApi, type Route, renderScreen } from "../../test/admin-harness";
import ConnectPage from "./ConnectPage";

const flexDriver = { name: "Dana Driver", isAdmin: false, app: "flex", email: null, accountConnected: false, setupComplete: false } as Partial<User>;
const sparkDriver = { ...flexDriver, app: "spark" } as Partial<User>;
const MINUTE = 60_000;

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const notConnected = { connected: false, accountName: null, connectedAt: null, disconnectedAt: null, disconnectReason: null, pending: null };
const signInUrl = (n: number) => `https://www.amazon.com/ap/signin?openid.oa2.code_challenge=challenge${n}&language=en_US`;
const landing = "https://www.amazon.com/ap/maplanding?openid.oa2.authorization_code=ANcode123&openid.mode=id_res";

/** The hand-off's API: each new attempt gets the next id and link; the landing answers `landingReply`. */
function handoffApi({
  pending = null as unknown,
  landingReply = (): { status?: number; body?: unknown } => ({ body: { status: "connected" } }),
  extra = [] as Route[],
} = {}) {
  let attempts = 0;
  return mockApi([
    { path: "/api/driver/connection", reply: () => ({ body: { ...notConnected, pending } }) },
    {
      method: "POST",
      path: "/api/driver/connection/sign-in",
      reply: () => {
        attempts++;
        return { status: 201, body: { attemptId: `attempt-${attempts}`.padEnd(24, "x"), signInUrl: signInUrl(attempts), expiresAt: Date.now() + 10 * MINUTE } };
      },
    },
    { method: "POST", path: "/api/driver/connection/landing", reply: landingReply },
    ...extra,
  ]);
}

const refusal = (reason: string) => () => ({
  status: 422,
  body: { error: { code: "unprocessable", message: "Refused", details: { reason } } },
});

async function pasteAndConnect(url = landing, button = "Connect account") {
  const field = await screen.findByRole("textbox");
  await userEvent.clear(field);
  await userEvent.click(field);
  await userEvent.paste(url);
  await userEvent.click(screen.getByRole("button", { name: button }));
}

describe("connecting Flex through the platform's own sign-in page", () => {
  it("explains the two steps, links to this attempt's sign-in in a new tab, and sends the pasted address", async () => {
    const api = handoffApi();
    const router = renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    const link = await screen.findByRole("link", { name: "Open the Amazon Flex sign-in (opens in a new tab)" });
    expect(link).toHaveAttribute("href", signInUrl(1));
    expect(link).toHaveAttribute("target", "_blank");
    expect(link).toHaveAttribute("rel", "noopener noreferrer");
    expect(screen.getByRole("heading", { name: "1. Sign in on Amazon Flex" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "2. Paste the address of the page you land on" })).toBeInTheDocument();
    expect(screen.getByText(/shows a page that looks empty: that is expected/)).toBeInTheDocument();
    expect(screen.getByText("It begins with https://www.amazon.com/ap/maplanding")).toBeInTheDocument();
    // No password of the platform's ever reaches us: there is no field for one.
    expect(document.querySelector('input[type="password"]')).toBeNull();
    expect(api.to("/api/driver/connection/sign-in", "POST")).toHaveLength(1);

    await pasteAndConnect(`  ${landing} `);
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
    expect(api.to("/api/driver/connection/landing", "POST")[0]?.body).toEqual({ attemptId: "attempt-1".padEnd(24, "x"), landingUrl: landing });
  });

  it("the same two steps in Spanish", async () => {
    handoffApi();
    setLanguage("es");
    renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    expect(await screen.findByRole("link", { name: "Abrir el inicio de sesión de Amazon Flex (se abre en una pestaña nueva)" })).toBeInTheDocument();
    expect(screen.getByRole("heading", { name: "2. Pega la dirección de la página a la que llegas" })).toBeInTheDocument();
    expect(screen.getByText(/muestra una página que parece vacía: es normal/)).toBeInTheDocument();
    expect(screen.getByLabelText("Dirección de la página a la que llegaste")).toBeInTheDocument();
  });

  it("resumes the pending attempt on a reload instead of starting another", async () => {
    const pending = { attemptId: "P".repeat(24), kind: "handoff", signInUrl: signInUrl(7), expiresAt: Date.now() + 5 * MINUTE };
    const api = handoffApi({ pending });
    const router = renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    expect(await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ })).toHaveAttribute("href", signInUrl(7));
    await pasteAndConnect();
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/settings"));
    expect(api.to("/api/driver/connection/landing", "POST")[0]?.body).toMatchObject({ attemptId: "P".repeat(24) });
    expect(api.to("/api/driver/connection/sign-in", "POST")).toHaveLength(0);
  });

  it("starts a new attempt when the pending one has expired, and says so when a link runs out on screen", async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const pending = { attemptId: "P".repeat(24), kind: "handoff", signInUrl: signInUrl(7), expiresAt: Date.now() - 1000 };
      const api = handoffApi({ pending });
      renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
      expect(await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ })).toHaveAttribute("href", signInUrl(1));
      await act(() => vi.advanceTimersByTimeAsync(10 * MINUTE + 1000));
      expect(await screen.findByText("This sign-in link can no longer be used. Get a new one and sign in again.")).toBeInTheDocument();
      expect(screen.queryByRole("link", { name: /Open the Amazon Flex sign-in/ })).toBeNull();
      await userEvent.click(screen.getByRole("button", { name: "Get a new sign-in link" }));
      expect(await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ })).toHaveAttribute("href", signInUrl(2));
      expect(api.to("/api/driver/connection/sign-in", "POST")).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  const refusals = [
    {
      reason: "not_landing",
      en: "That is not the address of the page Amazon Flex shows after you sign in.",
      es: "Esa no es la dirección de la página que Amazon Flex muestra después de iniciar sesión.",
      over: false,
    },
    {
      reason: "no_code",
      en: "That address has no sign-in code: the sign-in did not finish.",
      es: "Esa dirección no trae código de inicio de sesión",
      over: false,
    },
    {
      reason: "code_refused",
      en: "Amazon Flex refused this sign-in: its code was already used or has expired.",
      es: "Amazon Flex rechazó este inicio de sesión: su código ya se usó o venció.",
      over: true,
    },
    { reason: "attempt_over", en: "This sign-in has expired or was already used.", es: "Este inicio de sesión venció o ya se usó.", over: true },
  ];

  it.each(refusals)("$reason: its own words in English and Spanish, and a new sign-in link", async ({ reason, en, es, over }) => {
    const api = handoffApi({ landingReply: refusal(reason) });
    renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ });
    await pasteAndConnect();
    expect(await screen.findByRole("alert")).toHaveTextContent(en);
    // Used up: the old link is no use any more.
    expect(screen.queryByRole("link", { name: /Open the Amazon Flex sign-in/ }) === null).toBe(over);

    await act(() => setLanguage("es"));
    await pasteAndConnect(landing, "Conectar cuenta");
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent(es));

    await userEvent.click(screen.getByRole("button", { name: "Obtener un enlace nuevo" }));
    const link = await screen.findByRole("link", { name: /Abrir el inicio de sesión de Amazon Flex/ });
    expect(link).toHaveAttribute("href", signInUrl(2));
    await waitFor(() => expect(link).toHaveFocus());
    expect(screen.queryByRole("alert")).toBeNull();
    expect(screen.getByRole("textbox")).toHaveValue("");
    expect(api.to("/api/driver/connection/sign-in", "POST")).toHaveLength(2);

    await pasteAndConnect(landing, "Conectar cuenta");
    await waitFor(() => expect(api.to("/api/driver/connection/landing", "POST")).toHaveLength(3));
    expect(api.to("/api/driver/connection/landing", "POST")[2]?.body).toMatchObject({ attemptId: "attempt-2".padEnd(24, "x") });
  });

  it("a rate limit says how long to wait, and an unavailable platform says so, in English and Spanish", async () => {
    let answer = 0;
    handoffApi({
      landingReply: () =>
        answer++ % 2 === 0
          ? {
              status: 429,
              body: { error: { code: "rate_limited", message: "Too many", details: { reason: "rate_limited", retryAfterSeconds: 90 } } },
            }
          : { status: 503, body: { error: { code: "unavailable", message: "The platform is not answering" } } },
    });
    renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ });
    await pasteAndConnect();
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 2 minutes.");
    expect(screen.queryByRole("button", { name: "Get a new sign-in link" })).toBeNull();
    await pasteAndConnect();
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Amazon Flex is not answering. Try again in a minute."));
    await act(() => setLanguage("es"));
    await pasteAndConnect(landing, "Conectar cuenta");
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Demasiados intentos. Inténtalo de nuevo en 2 minutos."));
    await pasteAndConnect(landing, "Conectar cuenta");
    await waitFor(() => expect(screen.getByRole("alert")).toHaveTextContent("Amazon Flex no responde. Inténtalo en un minuto."));
  });

  it("a sign-in link that cannot be had yet (429) says the wait, and the button asks again", async () => {
    let asked = 0;
    const api = mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      {
        method: "POST",
        path: "/api/driver/connection/sign-in",
        reply: () =>
          asked++ === 0
            ? {
                status: 429,
                body: { error: { code: "rate_limited", message: "Too many", details: { reason: "too_many_attempts", retryAfterSeconds: 3 * 3600 } } },
              }
            : { status: 201, body: { attemptId: "Q".repeat(24), signInUrl: signInUrl(9), expiresAt: Date.now() + 10 * MINUTE } },
      },
    ]);
    renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    expect(await screen.findByRole("alert")).toHaveTextContent("Too many attempts. Try again in 3 hours.");
    expect(screen.getByRole("button", { name: "Connect account" })).toBeDisabled();
    await userEvent.click(screen.getByRole("button", { name: "Get the sign-in link" }));
    expect(await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ })).toHaveAttribute("href", signInUrl(9));
    expect(api.to("/api/driver/connection/sign-in", "POST")).toHaveLength(2);
  });

  it("an empty field is refused without calling the server", async () => {
    const api = handoffApi();
    renderScreen(<ConnectPage />, { user: flexDriver, path: "/flex/login" });
    await screen.findByRole("link", { name: /Open the Amazon Flex sign-in/ });
    await userEvent.click(screen.getByRole("button", { name: "Connect account" }));
    expect(await screen.findByRole("alert")).toHaveTextContent("Input required fields before continuing");
    expect(screen.getByLabelText("Address of the page you landed on")).toHaveAttribute("aria-invalid", "true");
    expect(api.to("/api/driver/connection/landing", "POST")).toHaveLength(0);
  });
});

describe("connecting Spark", () => {
  it("keeps the modelled email and password sign-in, a code challenge going on to /flex/otp", async () => {
    const api = mockApi([
      { path: "/api/driver/connection", reply: () => ({ body: notConnected }) },
      {
        method: "POST",
        path: "/api/driver/connection",
        reply: () => ({ status: 202, body: { status: "code", attemptId: "A".repeat(24), destination: "d•••@x.com" } }),
      },
    ]);
    const router = renderScreen(<ConnectPage />, { user: sparkDriver, path: "/flex/login" });
    await userEvent.type(await screen.findByLabelText("Spark email"), "dana@example.com");
    await userEvent.type(screen.getByLabelText("Spark password"), "secret");
    await userEvent.click(screen.getByRole("button", { name: "Connect account" }));
    await waitFor(() => expect(router.state.location.pathname).toBe("/flex/otp"));
    expect(router.state.location.state).toEqual({ attemptId: "A".repeat(24), destination: "d•••@x.com" });
    expect(api.to("/api/driver/connection", "POST")[0]?.body).toEqual({ email: "dana@example.com", password: "secret" });
    expect(api.to("/api/driver/connection/sign-in", "POST")).toHaveLength(0);
    expect(screen.queryByRole("link", { name: /sign-in/ })).toBeNull();
  });
});
