/** Test harness of the admin screens: a stubbed API, a signed-in admin, a router and a fresh SWR cache. */
import type { ReactNode } from "react";
import { vi } from "vitest";
import "../i18n";
import "../i18n/admin";
import { signedOutSession, type User } from "../lib/session";
import { renderRoutes } from "./render";

export type Call = { method: string; url: URL; body: unknown; headers: Headers };
type Reply = { status?: number; body?: unknown } | Promise<{ status?: number; body?: unknown }>;
export type Route = { method?: string; path: string | RegExp; reply: (call: Call) => Reply };

/** Stubs fetch with the given routes; every call is recorded, an unknown one answers 404. */
export function mockApi(routes: Route[]) {
  const calls: Call[] = [];
  vi.stubGlobal(
    "fetch",
    vi.fn(async (input: string, init: RequestInit = {}) => {
      const url = new URL(input, "http://localhost");
      const method = init.method ?? "GET";
      const call = { method, url, body: typeof init.body === "string" ? JSON.parse(init.body) : undefined, headers: new Headers(init.headers) };
      calls.push(call);
      const route = routes.find((r) => (r.method ?? "GET") === method && (typeof r.path === "string" ? r.path === url.pathname : r.path.test(url.pathname)));
      const { status = 200, body } = route ? await route.reply(call) : { status: 404, body: { error: { code: "not_found", message: "Not found" } } };
      return new Response(body === undefined ? null : typeof body === "string" ? body : JSON.stringify(body), {
        status,
        headers: { "Content-Type": typeof body === "string" ? "text/plain" : "application/json" },
      });
    }),
  );
  return {
    calls,
    to: (path: string, method = "GET") => calls.filter((c) => c.method === method && c.url.pathname === path),
  };
}

let answering: MutationObserver | undefined;

/**
 * Answers every confirm with `answer`, as a person would: the app's confirm dialog (useConfirm),
 * whose Cancel or confirm button is clicked once it opens. Records each dialog's whole text.
 */
export function stubConfirm(answer: boolean) {
  const confirm = vi.fn((_message?: string) => answer);
  answering?.disconnect();
  answering = new MutationObserver(() => {
    // A dialog is in the document only while it is open (components/ui/Dialog.tsx).
    for (const dialog of document.querySelectorAll<HTMLElement>('[role="dialog"]')) {
      const buttons = dialog.querySelectorAll<HTMLButtonElement>(".dialog-actions button");
      if (dialog.dataset.answered || buttons.length !== 2) continue;
      dialog.dataset.answered = "yes";
      confirm(dialog.textContent ?? "");
      buttons[answer ? 1 : 0]!.click();
    }
  });
  answering.observe(document.body, { subtree: true, childList: true });
  return confirm;
}

export const owner = { name: "Olivia Owner", isAdmin: true, role: { name: "owner", properties: { billingDetails: true } } };
export const support = { name: "Sam Support", isAdmin: true, role: { name: "support", properties: { billingDetails: false } } };
export const supportWithBilling = { name: "Bea Billing", isAdmin: true, role: { name: "support", properties: { billingDetails: true } } };

/** Renders a screen at `path` (matched as `route`) signed in as `user`, with the toasts. */
export function renderScreen(
  element: ReactNode,
  { user = owner as Partial<User>, path = "/admin/notifications", route = undefined as string | undefined } = {},
) {
  return renderRoutes(
    [
      { path: route ?? path, element },
      { path: "/admin/campaigns/:id", element: <p>campaign page</p> },
      { path: "*", element: <p>elsewhere</p> },
    ],
    { path, session: { ...signedOutSession, user: { ...user } as User }, toaster: true },
  );
}
