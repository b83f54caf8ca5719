import { cloudflare } from "@cloudflare/vite-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";
import { iconSprite } from "./scripts/icon-sprite.ts";
import { prerenderPages } from "./scripts/prerender.ts";

// One build: the SPA into dist/client (served as static assets) and the Worker beside it.
export default defineConfig({
  // prerenderPages: the public pages' HTML, written into the client build (docs/public-site.md).
  plugins: [react(), iconSprite(), cloudflare(), prerenderPages()],
  // Every supported browser has <link rel=modulepreload>; the polyfill would only weigh on the landing route.
  build: { sourcemap: false, manifest: true, chunkSizeWarningLimit: 400, modulePreload: { polyfill: false } },
  environments: {
    client: {
      // Everything the entry imports statically goes into one chunk: the landing route then loads one
      // compressed file instead of several (each compressed alone, and smaller in sum as one).
      build: { rolldownOptions: { output: { codeSplitting: { groups: [{ name: "initial", tags: ["$initial"] }] } } } },
    },
  },
});
