import { readFileSync } from "node:fs";
import { cloudflare } from "@cloudflare/vite-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin, type PluginOption } from "vite";
import { VitePWA } from "vite-plugin-pwa";
import { assetHeaders, inlineScriptSources } from "./scripts/asset-headers.ts";
import { iconSprite } from "./scripts/icon-sprite.ts";
import { type InlineScriptPlugin, inlineScript, withInlineScript } from "./scripts/inline-script.ts";
import { lazyUplot } from "./scripts/lazy-uplot-intl.ts";
import { precacheTransform } from "./scripts/precache-list.ts";
import { prerenderPages } from "./scripts/prerender.ts";

/**
 * The chat widget's URL is one setting for two readers: the Worker hands it to the SPA
 * (CHAT_WIDGET_URL in wrangler.toml [vars]) and the assets' Content-Security-Policy must list its
 * origin. The build reads it once (the environment variable wins over wrangler.toml, so a deploy or
 * the e2e run can set it) and gives the same value to both.
 */
let chatWidgetUrl = "";

/** index.html's inline script, compiled from its typed module (scripts/inline-script.ts). */
const firstLoadScript = inlineScript();

function assetHeadersFile(inline: InlineScriptPlugin): Plugin {
  return {
    name: "blockpilot:asset-headers",
    async generateBundle() {
      if (this.environment.name !== "client") return;
      // The hashes of the inline scripts as the built index.html holds them.
      const inlineScripts = inlineScriptSources(withInlineScript(readFileSync("index.html", "utf8"), await inline.api!.code()));
      this.emitFile({ type: "asset", fileName: "_headers", source: assetHeaders(chatWidgetUrl, inlineScripts) });
    },
  };
}

const CLIENT_OUT_DIR = "dist/client";

/**
 * The installable app (docs/installable-app.md): the web app manifest, and the service worker built
 * from src/app/service-worker/sw.ts to /sw.js with the precache list of scripts/precache-list.ts
 * injected. It runs for the client build only (the Worker's has no service worker), after the
 * pre-rendered pages are written, so their HTML is what gets revisioned. The SPA registers the
 * worker itself, on the driver's pages only (src/app/lib/service-worker.ts): nothing is injected.
 */
function installableApp(): PluginOption {
  const plugins = VitePWA({
    strategies: "injectManifest",
    srcDir: "src/app/service-worker",
    filename: "sw.ts",
    outDir: CLIENT_OUT_DIR,
    injectRegister: false,
    registerType: "prompt",
    includeManifestIcons: false,
    manifest: {
      id: "/flex/dashboard",
      name: "Blockpilot",
      short_name: "Blockpilot",
      description: "Amazon Flex and Walmart Spark blocks that match your stations, pay and schedule.",
      lang: "en",
      start_url: "/flex/dashboard",
      scope: "/",
      display: "standalone",
      // --color-brand-700 (index.html's theme-color) and --color-bg (docs/design-system.md, tokens).
      theme_color: "#0f766e",
      background_color: "#f8fafc",
      icons: [
        { src: "/icons/icon-192.png", sizes: "192x192", type: "image/png", purpose: "any" },
        { src: "/icons/icon-512.png", sizes: "512x512", type: "image/png", purpose: "any" },
        { src: "/icons/icon-maskable-512.png", sizes: "512x512", type: "image/png", purpose: "maskable" },
      ],
    },
    integration: {
      // The worker is one file; rolldown says so with codeSplitting, not the plugin's older inlineDynamicImports.
      configureCustomSWViteBuild(config) {
        const output = config.build?.rollupOptions?.output;
        if (!output || Array.isArray(output)) return;
        delete output.inlineDynamicImports;
        Object.assign(output, { codeSplitting: false });
      },
    },
    injectManifest: {
      globPatterns: ["**/*.{js,css,html,svg,png,webmanifest}"],
      globIgnores: [".vite/**", "sw.js"],
      manifestTransforms: [precacheTransform(() => JSON.parse(readFileSync(`${CLIENT_OUT_DIR}/.vite/manifest.json`, "utf8")))],
    },
  });
  return plugins.map((plugin) => ({ ...plugin, applyToEnvironment: (environment: { name: string }) => environment.name === "client" }));
}

// One build: the SPA into dist/client (served as static assets) and the Worker beside it.
export default defineConfig({
  plugins: [
    react(),
    iconSprite(),
    // uPlot's locale data loaded when a chart is drawn, not when its module is (scripts/lazy-uplot-intl.ts).
    lazyUplot(),
    firstLoadScript,
    cloudflare({
      config: (worker) => {
        const fromEnv = process.env.CHAT_WIDGET_URL;
        chatWidgetUrl = fromEnv ?? String(worker.vars?.CHAT_WIDGET_URL ?? "");
        if (fromEnv !== undefined) return { vars: { ...worker.vars, CHAT_WIDGET_URL: fromEnv } };
      },
    }),
    assetHeadersFile(firstLoadScript),
    // The public pages' HTML, written into the client build (docs/public-site.md, "Pre-rendered pages").
    prerenderPages(),
    installableApp(),
  ],
  // Every supported browser has <link rel=modulepreload>; the polyfill would only weigh on the landing route.
  build: { sourcemap: false, manifest: true, chunkSizeWarningLimit: 400, modulePreload: { polyfill: false } },
  environments: {
    client: {
      // Everything the entry imports statically goes into two chunks: React, and the rest. Few files,
      // since each is compressed alone (smaller in sum as one); two, so that index.html's inline
      // script evaluates them a task each (boot/first-load.ts): as one they would be one long task on
      // the slow phone Lighthouse models.
      build: {
        rolldownOptions: {
          output: {
            codeSplitting: {
              groups: [
                {
                  name: "react",
                  test: /node_modules[\\/](react|react-dom|scheduler)[\\/]|src[\\/]app[\\/]boot[\\/]react\.ts$/,
                  tags: ["$initial"],
                  priority: 1,
                },
                { name: "initial", tags: ["$initial"] },
              ],
            },
          },
        },
      },
    },
  },
});
