import { act, cleanup, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { createMemoryRouter, RouterProvider } from "react-router";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { loadParts } from "../boot/lazy-part";
import { setLanguage } from "../i18n";
import { type SessionValue, StaticSessionProvider, signedOutSession } from "../lib/session";
import { aDriver, signedIn } from "../test/render";
import { GeneralLayout } from "./GeneralLayout";

/**
 * The driver's frame and the installable app (docs/installable-app.md): where the service worker
 * is registered, the offline notice, and the new-version prompt. The browser's service worker
 * container is a fake whose registration can be handed a new version. A page registers once
 * (src/app/lib/service-worker.ts), so this file is one page's life: the tests run in order.
 */
class FakeWorker extends EventTarget {
  state: ServiceWorkerState = "installing";
  posted: unknown[] = [];
  postMessage(message: unknown) {
    this.posted.push(message);
  }
}
class FakeContainer extends EventTarget {
  controller: FakeWorker | null = new FakeWorker();
  registration = Object.assign(new EventTarget(), { installing: null as FakeWorker | null, waiting: null as FakeWorker | null, update: async () => {} });
  register = vi.fn(async () => this.registration);
  getRegistration = async () => undefined;
}

const container = new FakeContainer();

async function renderFrame(path: string, session: SessionValue) {
  cleanup();
  const router = createMemoryRouter([{ element: <GeneralLayout />, children: [{ path: "*", element: <h1>Page</h1> }] }], { initialEntries: [path] });
  render(
    <StaticSessionProvider value={session}>
      <RouterProvider router={router} />
    </StaticSessionProvider>,
  );
  await screen.findByRole("heading", { name: "Page" });
}

/** Lets the idle callback (run at once here) and the registration's promise settle. */
const settle = () => act(async () => await new Promise((resolve) => setTimeout(resolve, 0)));

beforeAll(async () => {
  // The frame's notices are a lazy part: loaded first, as the browser does before hydrating a page that holds them.
  await loadParts(["app-notices"]);
  Object.defineProperty(navigator, "serviceWorker", { value: container, configurable: true });
});
afterAll(() => {
  Reflect.deleteProperty(navigator, "serviceWorker");
});
beforeEach(async () => {
  await setLanguage("en");
  vi.stubGlobal("requestIdleCallback", (task: () => void) => setTimeout(task, 0));
  vi.stubGlobal("cancelIdleCallback", (id: ReturnType<typeof setTimeout>) => clearTimeout(id));
});
afterEach(() => {
  // Unmounted first: the frame's effect cancels its idle callback as it goes.
  cleanup();
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

describe("registering the service worker", () => {
  it("never happens for an administrator, a signed-out visitor, or off the driver's pages", async () => {
    await renderFrame("/flex/calendar/+13055550123", signedIn(aDriver({ isAdmin: true })));
    await settle();
    await renderFrame("/flex/dashboard", signedOutSession);
    await settle();
    await renderFrame("/faqs", signedIn(aDriver()));
    await settle();
    expect(container.register).not.toHaveBeenCalled();
  });
  it("happens on a driver's page, once the page is idle", async () => {
    await renderFrame("/flex/dashboard", signedIn(aDriver()));
    await settle();
    expect(container.register).toHaveBeenCalledWith("/sw.js", { scope: "/", updateViaCache: "none" });
  });
});

describe("a new version waiting", () => {
  it("shows “A new version is ready — Reload”, whose button has it take over", async () => {
    await renderFrame("/flex/dashboard", signedIn(aDriver()));
    await settle();
    expect(screen.queryByRole("button", { name: "Reload" })).not.toBeInTheDocument();
    const next = new FakeWorker();
    container.registration.installing = next;
    act(() => {
      container.registration.dispatchEvent(new Event("updatefound"));
      next.state = "installed";
      next.dispatchEvent(new Event("statechange"));
    });
    const button = await screen.findByRole("button", { name: "Reload" });
    expect(button.closest("[role=status]")).toHaveTextContent("A new version is ready — Reload");
    await userEvent.click(button);
    expect(next.posted).toEqual([{ type: "SKIP_WAITING" }]);
  });

  it("says it in Spanish too", async () => {
    await setLanguage("es");
    await renderFrame("/flex/dashboard", signedIn(aDriver()));
    await settle();
    expect((await screen.findByRole("button", { name: "Recargar" })).closest("[role=status]")).toHaveTextContent("Hay una versión nueva — Recargar");
  });
});

describe("offline", () => {
  it("the frame says so while the browser has no network, and stops once it is back", async () => {
    const online = vi.spyOn(navigator, "onLine", "get").mockReturnValue(true);
    await renderFrame("/flex/dashboard", signedIn(aDriver()));
    expect(screen.queryByText("You're offline.")).not.toBeInTheDocument();
    online.mockReturnValue(false);
    act(() => void window.dispatchEvent(new Event("offline")));
    expect(screen.getByText("You're offline.").closest("[role=status]")).toHaveTextContent("You're offline. Blockpilot shows what this device kept");
    online.mockReturnValue(true);
    act(() => void window.dispatchEvent(new Event("online")));
    expect(screen.queryByText("You're offline.")).not.toBeInTheDocument();
  });

  it("in Spanish", async () => {
    await setLanguage("es");
    vi.spyOn(navigator, "onLine", "get").mockReturnValue(false);
    await renderFrame("/flex/dashboard", signedIn(aDriver()));
    expect(screen.getByText("Estás sin conexión.").closest("[role=status]")).toHaveTextContent(
      "Estás sin conexión. Blockpilot muestra lo que este dispositivo guardó",
    );
  });
});
