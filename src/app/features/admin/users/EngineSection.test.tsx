import { act, cleanup, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { UserDetail } from "../../../../shared/admin-users";
import { setLanguage } from "../../../i18n";
import { mockApi, type Route, renderScreen, stubConfirm, support, supportWithBilling } from "../../../test/admin-harness";
import { formatDateTime } from "../format";
import { EngineSection } from "./EngineSection";
import UserPage from "./UserPage";

const diego = { id: 7, name: "Diego Driver", isAdmin: false } as UserDetail;
const pageUser: UserDetail = {
  ...diego,
  app: "flex",
  phone: "+13055550102",
  email: null,
  region: "Miami",
  humanRegion: "Miami",
  deliveryArea: null,
  referral: null,
  phoneVerified: true,
  goodStanding: true,
  accountConnected: true,
  setupComplete: true,
  status: "start",
  expirationAt: null,
  createdAt: Date.UTC(2031, 0, 2),
  lastSignInAt: null,
  roleName: null,
  roleBillingDetails: false,
  reseller: false,
  stripeExpressId: null,
  language: "en",
  inviteCode: "DIEGO7",
  mfaMethod: "none",
  optOuts: { sms: { optedOut: false, keyword: null, at: null }, whatsapp: { optedOut: false, keyword: null, at: null } },
  liveSessions: 0,
  resellerState: null,
};
const since = Date.UTC(2031, 2, 9, 17, 4);
const until = Date.UTC(2031, 2, 9, 17, 35);
const CHICAGO = "America/Chicago";

beforeEach(() => setLanguage("en"));
afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const engineAnswer = (engine: unknown) => ({ body: { engine, service: { expiresAt: null, goodStanding: true }, now: since } });
const searching = (acceptHold: unknown = null) => ({
  state: "searching",
  stations: 2,
  until,
  slowedUntil: null,
  lastPollAt: since,
  timeZone: CHICAGO,
  acceptHold,
});

function stub(engine: () => unknown, extra: Route[] = []) {
  return mockApi([...extra, { path: "/api/admin/users/7/dashboard/engine", reply: () => engineAnswer(engine()) }]);
}

/** The section's facts, label → value. */
function facts(): Record<string, string> {
  const section = screen.getByRole("region", { name: /Capture engine|Motor de captura/ });
  return Object.fromEntries(
    within(section)
      .getAllByRole("term")
      .map((dt) => [dt.textContent, dt.nextElementSibling?.textContent ?? ""]),
  );
}

describe("the engine on a driver's page", () => {
  it("the user page shows a driver's engine; an administrator's account has none", async () => {
    const api = stub(
      () => ({ state: "rate_limited", stations: 2, since, until, timeZone: CHICAGO, forfeitsWaiting: 1, acceptHold: null }),
      [{ path: "/api/admin/users/7", reply: () => ({ body: { user: pageUser } }) }],
    );
    renderScreen(<UserPage />, { user: support, path: "/admin/users/7", route: "/admin/users/:id" });
    expect(await screen.findByRole("heading", { name: "Capture engine" })).toBeInTheDocument();
    await waitFor(() => expect(api.to("/api/admin/users/7/dashboard/engine")).toHaveLength(1));
    expect(await screen.findByText(/Limited by the platform/)).toBeInTheDocument();

    cleanup();
    const admin = stub(
      () => searching(),
      [{ path: "/api/admin/users/7", reply: () => ({ body: { user: { ...pageUser, isAdmin: true, roleName: "support" } } }) }],
    );
    renderScreen(<UserPage />, { user: support, path: "/admin/users/7", route: "/admin/users/:id" });
    expect(await screen.findByRole("heading", { name: "Diego Driver" })).toBeInTheDocument();
    expect(screen.queryByRole("heading", { name: "Capture engine" })).toBeNull();
    expect(admin.to("/api/admin/users/7/dashboard/engine")).toHaveLength(0);
  });

  it("a lockout: since and until, the forfeits waiting and where days are credited, in English and Spanish", async () => {
    stub(() => ({ state: "rate_limited", stations: 2, since, until, timeZone: CHICAGO, forfeitsWaiting: 2, acceptHold: null }));
    renderScreen(<EngineSection user={diego} billing />, { user: supportWithBilling, path: "/admin/users/7" });
    await screen.findByText(/Limited by the platform/);
    expect(facts()).toEqual({
      State: "Limited by the platform (“Rate exceeded”): no calls until the lockout ends",
      Since: formatDateTime(since),
      "Until (searching resumes)": formatDateTime(until),
      "Forfeits waiting": "2",
      Accepting: "Not paused",
    });
    expect(screen.getByText("Days lost to a platform limit can be credited in Service time below, with a reason.")).toBeInTheDocument();
    // Nothing for support to clear: a lockout ends by itself.
    expect(screen.queryByRole("button", { name: "Clear" })).toBeNull();
    await act(() => setLanguage("es"));
    expect(await screen.findByText("Limitado por la plataforma (“Rate exceeded”): sin llamadas hasta que termine el bloqueo")).toBeInTheDocument();
    expect(facts()["Hasta (la búsqueda se reanuda)"]).toBe(formatDateTime(until));
  });

  it("a signature stop: since when and the signer, in English and Spanish; an administrator without billing is pointed to one", async () => {
    stub(() => ({ state: "signature_required", stations: 2, since, timeZone: CHICAGO, signerConfigured: false }));
    renderScreen(<EngineSection user={diego} billing={false} />, { user: support, path: "/admin/users/7" });
    await screen.findByText(/Stopped: the platform asks every request/);
    expect(facts()).toEqual({
      State: "Stopped: the platform asks every request for its phone app's signature, which we do not make",
      Since: formatDateTime(since),
      "Request signer": "Not set up",
    });
    expect(screen.getByText(/credited by a billing administrator through the service-time ledger/)).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Clear" })).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await screen.findByText(/^Detenido: la plataforma pide en cada solicitud la firma/)).toBeInTheDocument();
    expect(facts()["Firmante de solicitudes"]).toBe("No configurado");
    expect(screen.getByRole("button", { name: "Quitar" })).toBeInTheDocument();
  });

  it("accepting held for a captcha is the driver's to solve: said, with nothing to clear, in English and Spanish", async () => {
    stub(() => searching({ reason: "captcha", since }));
    renderScreen(<EngineSection user={diego} billing />, { user: support, path: "/admin/users/7" });
    await screen.findByText("Searching");
    expect(facts().Accepting).toBe(
      `Paused since ${formatDateTime(since)}: the platform asked for a captcha (the driver solves it and says so on their dashboard)`,
    );
    expect(screen.queryByRole("button", { name: "Clear" })).toBeNull();
    await act(() => setLanguage("es"));
    expect(await screen.findByText(/^En pausa desde .*: la plataforma pidió un captcha/)).toBeInTheDocument();
  });

  it("a stopped engine says why, in English and Spanish", async () => {
    stub(() => ({ state: "stopped", reason: "expired" }));
    renderScreen(<EngineSection user={diego} billing />, { user: support, path: "/admin/users/7" });
    expect(await screen.findByText("Off: service expired")).toBeInTheDocument();
    await act(() => setLanguage("es"));
    expect(await screen.findByText("Apagado: servicio vencido")).toBeInTheDocument();
  });

  it("Clear lifts a signature hold after a confirm, shows progress and the result; a hold already gone (409) or a failure is said", async () => {
    const confirm = stubConfirm(true);
    let held = true;
    let answer: () => { status?: number; body: unknown } = () => {
      held = false;
      return { body: { engine: searching() } };
    };
    let release: () => void = () => {};
    const api = stub(
      () => searching(held ? { reason: "signature", since } : null),
      [
        {
          method: "POST",
          path: "/api/admin/users/7/engine/clear-hold",
          reply: () => new Promise((resolve) => (release = () => resolve(answer()))),
        },
      ],
    );
    renderScreen(<EngineSection user={diego} billing />, { user: support, path: "/admin/users/7" });
    await screen.findByText(/Paused since .*: the platform asked for its phone app's signature on an accept/);
    await userEvent.click(screen.getByRole("button", { name: "Clear" }));
    expect(confirm).toHaveBeenCalledWith(expect.stringContaining("Clear the signature hold of Diego Driver?"));
    const busy = await screen.findByRole("button", { name: "Clearing…" });
    expect(busy).toBeDisabled();
    release();
    expect(await screen.findByText("Hold cleared: the engine tries again.")).toBeInTheDocument();
    expect(api.to("/api/admin/users/7/engine/clear-hold", "POST")).toHaveLength(1);
    expect(facts().Accepting).toBe("Not paused");
    expect(screen.queryByRole("button", { name: "Clear" })).toBeNull();

    // Held again, but cleared by someone else meanwhile: the 409 is said as such and the state read again.
    held = true;
    answer = () => {
      held = false;
      return { status: 409, body: { error: { code: "conflict", message: "The engine is not held for a signature", details: { reason: "no_hold" } } } };
    };
    await act(() => setLanguage("es"));
    cleanupAndRender();
    await userEvent.click(await screen.findByRole("button", { name: "Quitar" }));
    release();
    expect(await screen.findByText("Ya no hay una detención por firma que quitar.")).toBeInTheDocument();
    await waitFor(() => expect(facts().Aceptar).toBe("Sin pausa"));

    held = true;
    answer = () => ({ status: 503, body: { error: { code: "unavailable", message: "The engine is not answering", details: {} } } });
    cleanupAndRender();
    await userEvent.click(await screen.findByRole("button", { name: "Quitar" }));
    release();
    expect(await screen.findByRole("alert")).toHaveTextContent("The engine is not answering");
    expect(screen.getByRole("button", { name: "Quitar" })).toBeEnabled();

    // Cancelled, nothing is sent.
    stubConfirm(false);
    await userEvent.click(screen.getByRole("button", { name: "Quitar" }));
    expect(api.to("/api/admin/users/7/engine/clear-hold", "POST")).toHaveLength(3);
  });

  it("an engine that cannot be read says so, with a retry", async () => {
    let fail = true;
    stub(() => {
      if (fail) throw new Error("down");
      return searching();
    });
    renderScreen(<EngineSection user={diego} billing />, { user: support, path: "/admin/users/7" });
    expect(await screen.findByText("Couldn't load the engine's state.")).toBeInTheDocument();
    fail = false;
    await userEvent.click(screen.getByRole("button", { name: /Try again|Retry/ }));
    expect(await screen.findByText("Searching")).toBeInTheDocument();
  });
});

/** A fresh section (a new mount reads the engine again). */
function cleanupAndRender() {
  cleanup();
  renderScreen(<EngineSection user={diego} billing />, { user: support, path: "/admin/users/7" });
}
