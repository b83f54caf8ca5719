/**
 * The Vite plugin that pre-renders the public pages at build time (docs/public-site.md,
 * "Pre-rendered pages"). After the client build is written, it renders each page with
 * src/app/boot/prerender.tsx (in Node, through a Vite server in middleware mode) and writes the HTML
 * into the client build: "/" into index.html, "/faqs" into faqs.html… which the Worker's static
 * assets serve as they are. The browser paints them before any script runs; main.tsx hydrates
 * them. Each page also inlines the style sheets and names the scripts (for index.html's inline
 * script to fetch after the first paint) of the lazily loaded modules it was rendered with, so it
 * looks the same before and after hydration.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import react from "@vitejs/plugin-react";
import { createServer, createServerModuleRunner, type Plugin } from "vite";
import { assetsOf, EARLY_PAGES, fillTemplate, type Manifest } from "../src/app/boot/page-template.ts";
import { BUILD_TIME_CACHE_DIR } from "./build-time-vite.ts";
import { iconSprite } from "./icon-sprite.ts";

/**
 * The pages pre-rendered, and the file each is written to (the assets serve /faqs from faqs.html).
 * The public pages as a signed-out visitor first sees them; the driver's pages opened directly (the
 * dashboard, the insights) as a visit with a stored session first renders them, their heading (and
 * lead) and a loading view while the session loads.
 */
export const PRERENDERED_PAGES: { path: string; file: string; storedSession?: boolean }[] = [
  { path: "/", file: "index.html" },
  { path: "/faqs", file: "faqs.html" },
  { path: "/login", file: "login.html" },
  ...EARLY_PAGES.map((page) => ({ path: page.path, file: `${page.path.slice(1)}.html`, storedSession: true })),
];

/** An early page's files and reads, for its own HTML (an address with no early page: none). */
function earlyFiles(manifest: Manifest, path: string) {
  const early = EARLY_PAGES.find((p) => p.path === path);
  return early && { ...assetsOf(manifest, early.sources), reads: early.reads };
}

export function prerenderPages(): Plugin {
  let root = process.cwd();
  return {
    name: "blockpilot-prerender",
    apply: "build",
    configResolved(config) {
      root = config.root;
    },
    async writeBundle(options) {
      if (this.environment?.name !== "client" || !options.dir) return;
      const outDir = options.dir;
      const manifest = JSON.parse(readFileSync(join(outDir, ".vite/manifest.json"), "utf8")) as Manifest;
      const template = readFileSync(join(outDir, "index.html"), "utf8");
      const server = await createServer({
        configFile: false,
        root,
        cacheDir: BUILD_TIME_CACHE_DIR,
        logLevel: "error",
        plugins: [react(), iconSprite()],
        server: { middlewareMode: true, hmr: false, ws: false },
        appType: "custom",
        optimizeDeps: { noDiscovery: true, include: [] },
      });
      try {
        for (const page of PRERENDERED_PAGES) {
          // A module runner of its own per page: what it evaluated is what that page was rendered with.
          const runner = createServerModuleRunner(server.environments.ssr!, { hmr: false });
          try {
            const { renderPage } = (await runner.import("/src/app/boot/prerender.tsx")) as {
              renderPage: (path: string, options: { storedSession?: boolean }) => Promise<{ html: string; title: string; parts: string[] }>;
            };
            const sources = () =>
              [...runner.evaluatedModules.idToModuleMap.keys()].map((id) => relative(root, id.split("?")[0]!)).filter((path) => path.startsWith("src/"));
            const { html, title, parts } = await renderPage(page.path, { storedSession: page.storedSession });
            // Style sheets and scripts of everything on the page: the route's modules and the lazy
            // parts inside it, all of which the browser loads before hydrating (boot/lazy-part.tsx;
            // the style sheets are inline, so the first paint waits for the HTML alone).
            const { styles, scripts } = assetsOf(manifest, sources());
            const filled = {
              path: page.path,
              html,
              title,
              styles,
              scripts,
              parts,
              early: earlyFiles(manifest, page.path),
              storedSession: page.storedSession,
            };
            mkdirSync(dirname(join(outDir, page.file)), { recursive: true });
            writeFileSync(
              join(outDir, page.file),
              fillTemplate(template, filled, (href) => readFileSync(join(outDir, href), "utf8")),
            );
          } finally {
            await runner.close();
          }
        }
      } finally {
        await server.close();
      }
    },
  };
}
