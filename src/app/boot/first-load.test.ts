import { describe, expect, it } from "vitest";
import { LANGUAGE_STORAGE_KEY } from "../i18n";
import { evaluateApart, STORED_LANGUAGE_KEY, showsPrerendered } from "./first-load";

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
