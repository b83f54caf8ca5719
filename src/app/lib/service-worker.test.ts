import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

/** A service worker as the page sees one: a state, its changes, and what it was posted. */
class FakeWorker extends EventTarget {
  state: ServiceWorkerState = "installing";
  posted: unknown[] = [];
  postMessage(message: unknown) {
    this.posted.push(message);
  }
  become(state: ServiceWorkerState) {
    this.state = state;
    this.dispatchEvent(new Event("statechange"));
  }
}

class FakeRegistration extends EventTarget {
  installing: FakeWorker | null = null;
  waiting: FakeWorker | null = null;
  update = vi.fn(async () => {});
  /** A new version found: it installs, then waits while another controls the page. */
  newVersion() {
    const worker = new FakeWorker();
    this.installing = worker;
    this.dispatchEvent(new Event("updatefound"));
    return worker;
  }
}

class FakeContainer extends EventTarget {
  controller: FakeWorker | null = null;
  registration = new FakeRegistration();
  register = vi.fn(async (_url: string, _options?: RegistrationOptions) => this.registration);
  getRegistration = vi.fn(async () => undefined);
}

let container: FakeContainer;
/** The module afresh per test: it keeps one registration per page. */
const load = () => import("./service-worker");

beforeEach(() => {
  vi.resetModules();
  container = new FakeContainer();
  Object.defineProperty(navigator, "serviceWorker", { value: container, configurable: true });
});
afterEach(() => {
  Reflect.deleteProperty(navigator, "serviceWorker");
  vi.restoreAllMocks();
});

describe("registering the service worker", () => {
  it("registers /sw.js for the whole origin once, however often it is asked, and hands the registration over", async () => {
    const sw = await load();
    sw.registerServiceWorker();
    sw.registerServiceWorker();
    expect(container.register).toHaveBeenCalledTimes(1);
    expect(container.register).toHaveBeenCalledWith("/sw.js", { scope: "/", updateViaCache: "none" });
    expect(await sw.serviceWorkerRegistration()).toBe(container.registration);
  });

  it("answers null when registering failed, and says why in the console", async () => {
    container.register.mockRejectedValueOnce(new Error("SecurityError"));
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const sw = await load();
    sw.registerServiceWorker();
    expect(await sw.serviceWorkerRegistration()).toBeNull();
    expect(error).toHaveBeenCalled();
  });

  it("answers null in a browser without service workers", async () => {
    Reflect.deleteProperty(navigator, "serviceWorker");
    const sw = await load();
    sw.registerServiceWorker();
    expect(await sw.serviceWorkerRegistration()).toBeNull();
  });

  it("on a page that has not registered, answers the one an earlier page installed, or null", async () => {
    const sw = await load();
    expect(await sw.serviceWorkerRegistration()).toBeNull();
    container.getRegistration.mockResolvedValueOnce(container.registration as never);
    expect(await sw.serviceWorkerRegistration()).toBe(container.registration);
    expect(container.register).not.toHaveBeenCalled();
  });
});

describe("a new version", () => {
  async function registered() {
    const sw = await load();
    const changes = vi.fn();
    sw.subscribeToUpdate(changes);
    sw.registerServiceWorker();
    await sw.serviceWorkerRegistration();
    return { sw, changes };
  }

  it("is offered once it has installed while another version controls the page", async () => {
    container.controller = new FakeWorker();
    const { sw, changes } = await registered();
    const next = container.registration.newVersion();
    next.become("installed");
    expect(sw.updateWaiting()).toBe(true);
    expect(changes).toHaveBeenCalledTimes(1);
  });

  it("is not offered on the first install, which replaces nothing", async () => {
    const { sw, changes } = await registered();
    container.registration.newVersion().become("installed");
    expect(sw.updateWaiting()).toBe(false);
    expect(changes).not.toHaveBeenCalled();
  });

  it("already waiting when the page registers is offered at once", async () => {
    container.controller = new FakeWorker();
    container.registration.waiting = new FakeWorker();
    const { sw } = await registered();
    expect(sw.updateWaiting()).toBe(true);
  });

  it("takes over when asked, and the page reloads once it controls the page, not before", async () => {
    container.controller = new FakeWorker();
    const reload = vi.fn();
    Object.defineProperty(window, "location", { value: { ...window.location, reload }, configurable: true });
    const { sw } = await registered();
    const next = container.registration.newVersion();
    next.become("installed");
    sw.applyUpdate();
    expect(next.posted).toEqual([{ type: "SKIP_WAITING" }]);
    expect(reload).not.toHaveBeenCalled();
    container.dispatchEvent(new Event("controllerchange"));
    container.dispatchEvent(new Event("controllerchange"));
    expect(reload).toHaveBeenCalledTimes(1);
  });

  it("asking with none waiting posts nothing", async () => {
    const { sw } = await registered();
    sw.applyUpdate();
    expect(container.registration.installing).toBeNull();
  });
});
