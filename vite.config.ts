import { readFileSync } from "node:fs";
import { cloudflare } from "@cloudflare/vite-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig, type Plugin } from "vite";
import { assetHeaders, inlineScriptSources } from "./scripts/asset-headers.ts";
import { iconSprite } from "./scripts/icon-sprite.ts";
import { type InlineScriptPlugin, inlineScript, withInlineScript } from "./scripts/inline-script.ts";
import { lazyUplot } from "./scripts/lazy-uplot-intl.ts";
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
