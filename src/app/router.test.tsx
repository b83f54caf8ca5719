import { act, render, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { lazy, Suspense } from "react";
import { createMemoryRouter, type RouteObject, RouterProvider } from "react-router";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import i18n, { applyStoredLanguage, LANGUAGE_STORAGE_KEY, setLanguage } from "./i18n";
import { ErrorPage } from "./layouts/ErrorPage";
import { RootLayout } from "./layouts/RootLayout";
import { lazyPage } from "./lib/lazy-page";
import { patchRoutesOnNavigation, routes } from "./router";

function renderAt(path: string, table: RouteObject[] = routes) {
  // The app's table: the landing route, with the rest patched in on the first other address.
  const router = createMemoryRouter(table, { initialEntries: [path], ...(table === routes ? { patchRoutesOnNavigation } : {}) });
  render(<RouterProvider router={router} />);
  return router;
}

// The footer reads the versions from the health check's headers; nothing else is fetched signed out.
const health = vi.fn(async (_input: RequestInfo | URL) => new Response('{"status":"ok"}', { headers: { "x-app-version": "1.4.2", "x-schema-version": "21" } }));

beforeEach(async () => {
  localStorage.clear();
  vi.stubGlobal("fetch", health);
  await setLanguage("en");
});
afterEach(() => {
  localStorage.clear();
  vi.unstubAllGlobals();
});

describe("route table", () => {
  it("renders a lazy route's page", async () => {
    renderAt("/faqs");
    expect(await screen.findByRole("heading", { name: "Frequently asked questions" })).toBeInTheDocument();
    expect(screen.getByText("Is there an app to download?")).toBeInTheDocument();
  });

  it("renders the landing page at /", async () => {
    renderAt("/");
    expect(await screen.findByRole("heading", { name: "Better blocks, without the refresh" })).toBeInTheDocument();
    const topBar = screen.getByRole("banner");
    expect(within(topBar).getByRole("link", { name: "Blockpilot" })).toHaveAttribute("href", "/");
    for (const name of ["Home", "FAQs", "Contact us", "Terms of service"]) expect(within(topBar).getByRole("link", { name })).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe("Better blocks, without the refresh · Blockpilot"));
  });

  it("shows the landing's sign-in form on the visitor's first intent, a link to /login until then", async () => {
    renderAt("/");
    const card = await waitFor(() => document.querySelector<HTMLElement>(".landing-signin:not(.landing-signin-waiting)")!);
    expect(within(card).getByRole("link", { name: "Sign in" })).toHaveAttribute("href", "/login");
    expect(within(card).queryByLabelText("Phone number")).toBeNull();
    act(() => void window.dispatchEvent(new Event("pointerover")));
    expect(await within(card).findByLabelText("Phone number", {}, { timeout: 10_000 })).toBeInTheDocument();
    expect(within(card).queryByRole("link", { name: "Sign in" })).toBeNull();
  });

  it("shows the two version identifiers from the health check's headers in the footer", async () => {
    renderAt("/faqs");
    const footer = await screen.findByRole("contentinfo");
    expect(await within(footer).findByText("App 1.4.2 · Schema 21")).toBeInTheDocument();
    for (const name of ["FAQs", "Contact us", "Terms of service", "Privacy policy"]) expect(within(footer).getByRole("link", { name })).toBeInTheDocument();
  });

  it("gives every page its own title, in the current language", async () => {
    renderAt("/faqs");
    await screen.findByRole("heading", { name: "Frequently asked questions" });
    await waitFor(() => expect(document.title).toBe("Frequently asked questions · Blockpilot"));
    await act(() => setLanguage("es"));
    await waitFor(() => expect(document.title).toBe("Preguntas frecuentes · Blockpilot"));
  });

  it("starts with a skip link that moves focus to the page", async () => {
    const user = userEvent.setup();
    renderAt("/faqs");
    await screen.findByRole("heading", { name: "Frequently asked questions" });
    await user.tab();
    const skip = screen.getByRole("link", { name: "Skip to main content" });
    expect(skip).toHaveFocus();
    await user.click(skip);
    expect(screen.getByRole("main")).toHaveFocus();
  });

  it("shows 'page not found' for an unknown route, with Go back to /", async () => {
    renderAt("/no/such/page");
    expect(await screen.findByRole("heading", { name: "page not found" })).toBeInTheDocument();
    expect(screen.getByRole("link", { name: "Go back" })).toHaveAttribute("href", "/");
    // Inside the frame: the top bar stays.
    expect(screen.getByRole("banner")).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe("page not found · Blockpilot"));
  });

  it("shows 'an error has occurred' for any other route error", async () => {
    const original = console.error;
    console.error = () => {};
    try {
      renderAt("/", [
        {
          path: "/",
          errorElement: <ErrorPage />,
          Component: () => {
            throw new Error("boom");
          },
        },
      ]);
      expect(await screen.findByRole("heading", { name: "an error has occurred" })).toBeInTheDocument();
      expect(screen.getByRole("link", { name: "Go back" })).toHaveAttribute("href", "/");
    } finally {
      console.error = original;
    }
  });

  it("shows the page-load boundary when a page's chunk fails to load", async () => {
    renderAt("/broken", [
      {
        path: "/",
        element: <RootLayout />,
        errorElement: <ErrorPage />,
        children: [{ path: "broken", lazy: lazyPage(() => Promise.reject(new TypeError("Failed to fetch dynamically imported module"))) }],
      },
    ]);
    expect(await screen.findByText("An error has occurred while loading the page.")).toBeInTheDocument();
    expect(screen.getByRole("button", { name: "Go back" })).toBeInTheDocument();
  });

  it("shows the page-load boundary when a lazily loaded part of a page fails to download", async () => {
    const original = console.error;
    console.error = () => {};
    try {
      const Broken = lazy(() => Promise.reject(new TypeError("Failed to fetch dynamically imported module: /assets/LandingSections.js")));
      renderAt("/", [
        {
          path: "/",
          errorElement: <ErrorPage />,
          element: (
            <Suspense fallback={null}>
              <Broken />
            </Suspense>
          ),
        },
      ]);
      expect(await screen.findByText("An error has occurred while loading the page.")).toBeInTheDocument();
    } finally {
      console.error = original;
    }
  });

  it("treats a chunk that never arrives as a load failure", async () => {
    renderAt("/slow", [{ path: "/", errorElement: <ErrorPage />, children: [{ path: "slow", lazy: lazyPage(() => new Promise(() => {}), 20) }] }]);
    expect(await screen.findByText("An error has occurred while loading the page.")).toBeInTheDocument();
  });
});

describe("language toggle", () => {
  it("switches to Spanish, stores the choice, and switches back", async () => {
    const user = userEvent.setup();
    renderAt("/faqs");
    await screen.findByRole("heading", { name: "Frequently asked questions" });
    await user.click(screen.getByRole("button", { name: /Español/ }));
    expect(await screen.findByRole("heading", { name: "Preguntas frecuentes" })).toBeInTheDocument();
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe("es");
    expect(document.documentElement.lang).toBe("es");
    await user.click(screen.getByRole("button", { name: /English/ }));
    expect(await screen.findByRole("heading", { name: "Frequently asked questions" })).toBeInTheDocument();
    expect(localStorage.getItem(LANGUAGE_STORAGE_KEY)).toBe("en");
  });

  it("starts in the stored language, fetching its strings (only English is in the entry bundle)", async () => {
    await act(() => setLanguage("en"));
    i18n.removeResourceBundle("es", "common");
    expect(i18n.hasResourceBundle("es", "common")).toBe(false);
    localStorage.setItem(LANGUAGE_STORAGE_KEY, "es");
    await act(() => applyStoredLanguage());
    expect(i18n.language).toBe("es");
    expect(i18n.hasResourceBundle("es", "common")).toBe(true);
    expect(i18n.t("goBack")).toBe("Regresar");
    renderAt("/terms");
    expect(await screen.findByRole("heading", { name: "Términos del servicio" })).toBeInTheDocument();
  });
});

describe("top bar on small screens", () => {
  it("opens and closes the collapsible panel", async () => {
    const user = userEvent.setup();
    renderAt("/");
    const burger = await screen.findByRole("button", { name: "Open menu" });
    expect(burger).toHaveAttribute("aria-expanded", "false");
    await user.click(burger);
    expect(screen.getByRole("button", { name: "Close menu" })).toHaveAttribute("aria-expanded", "true");
    await waitFor(() => expect(document.getElementById("topbar-panel")).toHaveClass("open"));
  });
});
