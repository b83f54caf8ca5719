import { cloudflare } from "@cloudflare/vite-plugin";
import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

// One build: the SPA into dist/client (served as static assets) and the Worker beside it.
export default defineConfig({
  plugins: [react(), cloudflare()],
  // Every supported browser has <link rel=modulepreload>; the polyfill would only weigh on the landing route.
  build: { sourcemap: false, manifest: true, chunkSizeWarningLimit: 400, modulePreload: { polyfill: false } },
});
