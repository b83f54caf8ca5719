import { afterEach, describe, expect, it, vi } from "vitest";
import { LANGUAGE_STORAGE_KEY } from "../i18n";
import { SESSION_STORAGE_KEY } from "../lib/session-tokens";
import { LOCALE_DATA_WORKER } from "./early-pages";
import { evaluateApart, STORED_LANGUAGE_KEY, showsPrerendered, startFirstLoad } from "./first-load";

function page(prerendered: string | null, session: "stored" | "none" = "none"): HTMLElement {
  const html = document.createElement("html");
  if (prerendered !== null) html.setAttribute("data-prerendered", prerendered);
  html.setAttribute("data-prerendered-session", session);
  return html;
}

describe("the pre-rendered page shows", () => {
  it.each([
    ["at its address, signed out, in English", page("/"), { path: "/", signedIn: false, spanish: false }, true],
    ["not at another address", page("/"), { path: "/faqs", signedIn: false, spanish: false }, false],
    ["not to a stored session (a public page)", page("/"), { path: "/", signedIn: true, spanish: false }, false],
    ["not in Spanish", page("/"), { path: "/", signedIn: false, spanish: true }, false],
    ["the dashboard's to a stored session", page("/flex/dashboard", "stored"), { path: "/flex/dashboard", signedIn: true, spanish: false }, true],
    ["the dashboard's not to a signed-out visit", page("/flex/dashboard", "stored"), { path: "/flex/dashboard", signedIn: false, spanish: false }, false],
    ["nothing from the development server's page", page(null), { path: "/", signedIn: false, spanish: false }, false],
  ])("%s: %s", (_, html, visit, shown) => {
    expect(showsPrerendered(html, visit)).toBe(shown);
  });

  it("reads the language under the key the app stores it", () => {
    expect(STORED_LANGUAGE_KEY).toBe(LANGUAGE_STORAGE_KEY);
  });
});

describe("the entry's chunks", () => {
  it("are evaluated in order, each in a task of its own", async () => {
    const order: string[] = [];
    const load = async (href: string) => {
      order.push(href);
      // A message posted now is a task queued behind this one.
      const channel = new MessageChannel();
      channel.port1.onmessage = () => order.push(`a task after ${href}`);
      channel.port2.postMessage(null);
    };
    await evaluateApart(["/assets/rolldown-runtime.js", "/assets/react.js"], load);
    // A task queued while one was evaluated runs before the next is: the browser may paint or
    // answer input between them.
    expect(order).toEqual(["/assets/rolldown-runtime.js", "a task after /assets/rolldown-runtime.js", "/assets/react.js", "a task after /assets/react.js"]);
  });
});

describe("the browser's locale data", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
    vi.restoreAllMocks();
    localStorage.clear();
    history.replaceState(null, "", "/");
  });

  /** The workers the inline script starts for a visit to `path`, with or without a stored session. */
  async function workersFor(path: string, stored: boolean): Promise<string[]> {
    const started: string[] = [];
    vi.stubGlobal(
      "Worker",
      class {
        constructor(url: string) {
          started.push(url);
        }
      },
    );
    vi.stubGlobal(
      "fetch",
      vi.fn(() => new Promise(() => {})),
    );
    localStorage.clear();
    if (stored) localStorage.setItem(SESSION_STORAGE_KEY, JSON.stringify({ idToken: "x.y.z", refreshToken: "r" }));
    history.replaceState(null, "", path);
    const html = page(path, "stored");
    html.setAttribute("data-entry", "/assets/index.js");
    html.setAttribute("data-early-path", path);
    // The app's code does not load here (there is none at /assets/index.js): said, and left.
    vi.spyOn(console, "error").mockImplementation(() => {});
    startFirstLoad(html);
    expect(started).toEqual([]);
    // The page's first paint (or, at the latest, a second after the parse), then the app's code starts downloading.
    document.dispatchEvent(new Event("DOMContentLoaded"));
    await new Promise((resolve) => setTimeout(resolve, 1100));
    return started;
  }

  it("loads on a worker's thread when the dashboard opens with a stored session, after the first paint", async () => {
    expect(await workersFor("/flex/dashboard", true)).toEqual([LOCALE_DATA_WORKER]);
  });

  it("is left alone by the insights, which build no formatter, and by a visit without a session", async () => {
    expect(await workersFor("/flex/insights", true)).toEqual([]);
    expect(await workersFor("/flex/dashboard", false)).toEqual([]);
  });
});
