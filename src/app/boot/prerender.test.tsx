import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { setLanguage } from "../i18n";
import { assetsOf, fillTemplate } from "./page-template";
import { renderPage } from "./prerender";

beforeEach(async () => {
  localStorage.clear();
  await setLanguage("en");
  // The pages' reads (plans, versions, site info) answer as a server that has none yet.
  vi.stubGlobal(
    "fetch",
    vi.fn(async () => new Response(JSON.stringify({ error: { code: "not_found", message: "Not found" } }), { status: 404 })),
  );
});
afterEach(() => vi.unstubAllGlobals());

// Hydration itself is tested in the browser (e2e/shell.test.ts): in one realm, React's server
// renderer leaves context values behind that the browser renderer would then read.
describe("pre-rendered pages", () => {
  it("render the landing page whole, without the sign-in form (no typing before the code runs)", async () => {
    const { html, title, parts } = await renderPage("/");
    // The lazy parts in the HTML, which the browser loads before hydrating.
    expect(parts).toEqual(["footer", "landing-sections", "toaster"]);
    expect(title).toBe("Better blocks, without the refresh · Blockpilot");
    expect(html).toContain("Better blocks, without the refresh</h1>");
    expect(html).toContain('id="how-it-works"');
    expect(html).toContain("landing-signin-waiting");
    expect(html).not.toContain("<form");
    expect(html).not.toContain("<script");
  });

  it("render the FAQ and the sign-in page with their titles", async () => {
    const faqs = await renderPage("/faqs");
    expect(faqs.parts).toEqual(["app-notices", "footer", "toaster"]);
    expect(faqs.title).toBe("Frequently asked questions · Blockpilot");
    expect(faqs.html).toContain("Frequently asked questions</h1>");
    const login = await renderPage("/login");
    expect(login.title).toBe("Sign in · Blockpilot");
    expect(login.html).toMatch(/<form[^>]*class="auth-form"/);
  });

  it("render the driver's dashboard as a visit with a stored session first shows it: its heading and a loading view in the frame", async () => {
    const { html, title, parts } = await renderPage("/flex/dashboard", { storedSession: true });
    expect(title).toBe("Dashboard · Blockpilot");
    expect(parts).toEqual(["app-notices", "footer", "toaster"]);
    expect(html).toContain(
      // The frame's notices (an empty boundary: online, nothing waiting), then the page.
      '<main id="main" tabindex="-1" class="page"><!--$--><!--/$--><section class="page-pending"><h1>Dashboard</h1><div class="status-view status-view-loading" role="status">',
    );
    // The session is still loading: neither "Sign in" nor a user menu in the top bar.
    expect(html).toContain('<div class="topbar-user-slot"></div>');
    // Signed out, the same address sends the visitor to "/": nothing of the dashboard is rendered.
    await expect(renderPage("/flex/dashboard")).resolves.toMatchObject({ html: expect.not.stringContaining("<h1>Dashboard</h1>") });
  });

  it("render the insights with their heading and lead, the page's largest first paint, as the page itself lays them out", async () => {
    const { html, title } = await renderPage("/flex/insights", { storedSession: true });
    expect(title).toBe("Insights · Blockpilot");
    expect(html).toContain(
      '<section class="page-pending"><h1>Insights</h1><p class="muted">What you earned, what the market pays, and what your filters cost you, from the offers the system has seen.</p><div class="status-view status-view-loading" role="status">',
    );
  });
});

describe("the page template", () => {
  const template = [
    '<html lang="en"><head><title>Blockpilot</title>',
    '<script type="module" crossorigin src="/assets/index-1.js"></script>',
    '<link rel="modulepreload" crossorigin href="/assets/runtime-1.js">',
    '<link rel="stylesheet" crossorigin href="/assets/index-1.css">',
    '</head><body><div id="root"></div></body></html>',
  ].join("");
  const css: Record<string, string> = { "/assets/index-1.css": "body{margin:0}", "/assets/page-1.css": ".page{color:red}" };

  it("inlines the style sheets, names the scripts for the inline script to fetch after the first paint, and makes the page inert until hydrated", () => {
    const page = fillTemplate(
      template,
      {
        path: "/faqs",
        title: 'FAQs & "more"',
        html: '<link rel="preload" as="image" href="/logo.svg"/><main>Hi</main>',
        styles: ["/assets/page-1.css"],
        scripts: ["/assets/page-1.js"],
        parts: ["footer", "toaster"],
      },
      (href) => css[href]!,
    );
    // Not a page opened with its reads started early: nothing to fetch during the parse.
    expect(page).toContain(
      '<html lang="en" data-prerendered="/faqs" data-prerendered-session="none" data-parts="footer toaster" data-entry="/assets/index-1.js" data-boot="/assets/index-1.js /assets/runtime-1.js" data-modules="/assets/page-1.js" data-early-path="" data-early-modules="" data-early-styles="" data-early-reads="">',
    );
    expect(page).toContain("<title>FAQs &amp; &quot;more&quot;</title>");
    expect(page).toContain('<style data-href="/assets/index-1.css">body{margin:0}</style>');
    expect(page).not.toContain('<link rel="stylesheet" crossorigin href="/assets/index-1.css">');
    expect(page).toContain('<link rel="stylesheet" crossorigin href="/assets/index-1.css" media="not all">');
    expect(page).toContain('<style data-href="/assets/page-1.css">.page{color:red}</style>');
    expect(page).toContain('<link rel="stylesheet" crossorigin href="/assets/page-1.css" media="not all">');
    // No script and no preload: index.html's inline script fetches them after the first paint.
    expect(page).not.toContain("<script");
    expect(page).not.toContain("modulepreload");
    // React's resource hint goes into the head; the root holds the page alone.
    expect(page).toMatch(/<link rel="preload" as="image" href="\/logo.svg"\/>[\s\S]*<\/head>/);
    expect(page).toContain('<div id="root" inert><main>Hi</main></div>');
  });

  it("names an early page's own files and reads on its HTML, for the inline script to fetch during the parse", () => {
    const page = fillTemplate(
      template,
      {
        path: "/flex/insights",
        title: "Insights",
        html: "<main>Insights</main>",
        styles: [],
        scripts: ["/assets/insights-1.js"],
        early: {
          scripts: ["/assets/routes-1.js", "/assets/insights-1.js"],
          styles: ["/assets/insights-1.css"],
          reads: ["/api/flex/v1/user", "/api/driver/insights?days=30"],
        },
        storedSession: true,
      },
      (href) => css[href] ?? "",
    );
    expect(page).toContain(
      'data-prerendered="/flex/insights" data-prerendered-session="stored" data-parts="" data-entry="/assets/index-1.js" data-boot="/assets/index-1.js /assets/runtime-1.js" data-modules="/assets/insights-1.js" data-early-path="/flex/insights" data-early-modules="/assets/routes-1.js /assets/insights-1.js" data-early-styles="/assets/insights-1.css" data-early-reads="/api/flex/v1/user /api/driver/insights?days=30">',
    );
  });

  it("takes the files of the modules a page used, not those the entry already has", () => {
    const manifest = {
      "index.html": { file: "assets/index-1.js", isEntry: true, imports: ["_shared.js"], css: ["assets/index-1.css"] },
      "_shared.js": { file: "assets/shared-1.js", css: ["assets/shared-1.css"] },
      "src/app/features/site/FaqsPage.tsx": { file: "assets/FaqsPage-1.js", imports: ["_shared.js", "_site.js"], css: ["assets/site-1.css"] },
      "_site.js": { file: "assets/site-1.js" },
    };
    expect(assetsOf(manifest, ["src/app/features/site/FaqsPage.tsx", "src/app/router.tsx"])).toEqual({
      styles: ["/assets/site-1.css"],
      // Each chunk after the chunks it imports: the order main.tsx evaluates them in.
      scripts: ["/assets/site-1.js", "/assets/FaqsPage-1.js"],
    });
  });
});
