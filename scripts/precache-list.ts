/**
 * What the service worker precaches (docs/installable-app.md): the app shell and the driver's
 * pages, chosen from the client build's Vite manifest, as a Workbox manifest transform for
 * vite-plugin-pwa's injectManifest. A file is precached when the entry reaches it through static
 * imports, or through dynamic imports that stay out of the console, the public site's pages and the
 * embedded payment pages; the pre-rendered HTML is only the shell (index.html, as "/") and the
 * driver's own pre-rendered pages (the dashboard, the insights, at their addresses). Nothing of
 * /api is a file, so no answer of the API is ever in the list.
 */
import type { Manifest } from "vite";
import { EARLY_PAGES } from "../src/app/boot/page-template.ts";

/** Modules a dynamic import never leads the precache into: the console, the public site's pages, the payment provider's stand-in pages. */
export const NOT_PRECACHED = /^src\/app\/(features\/(admin|site)|embedded-payments)\//;

/** The pre-rendered HTML files precached, and the address each is stored (and looked up) under. */
export const PRECACHED_PAGES: Record<string, string> = {
  "index.html": "/",
  ...Object.fromEntries(EARLY_PAGES.map((page) => [`${page.path.slice(1)}.html`, page.path])),
};

/** Files outside the Vite manifest that every page may ask for: the icons, the logo, the web app manifest, the locale data worker the first load starts. */
const STATIC_FILE = /^(icons\/[\w-]+\.png|logo\.svg|icons\.svg|manifest\.webmanifest|locale-data-worker\.js)$/;

/** The build's files (paths under dist/client) the shell and the driver's pages load. */
export function precachedFiles(manifest: Manifest): Set<string> {
  const entryKey = Object.keys(manifest).find((key) => manifest[key]!.isEntry);
  if (!entryKey) throw new Error("the Vite manifest has no entry chunk");
  const keys = new Set<string>();
  const walk = (key: string) => {
    const chunk = manifest[key];
    if (!chunk || keys.has(key)) return;
    keys.add(key);
    for (const dep of chunk.imports ?? []) walk(dep);
    for (const dep of chunk.dynamicImports ?? []) if (!NOT_PRECACHED.test(dep)) walk(dep);
  };
  walk(entryKey);
  const files = new Set<string>();
  for (const key of keys) {
    const chunk = manifest[key]!;
    files.add(chunk.file);
    for (const css of chunk.css ?? []) files.add(css);
    for (const asset of chunk.assets ?? []) files.add(asset);
  }
  return files;
}

type Entry = { url: string; revision: string | null; size: number };

/**
 * The Workbox manifest transform: keeps the files `precachedFiles` chose, the precached pages
 * (under their addresses) and the static files, and drops everything else the glob found.
 */
export function precacheTransform(readManifest: () => Manifest) {
  return async (entries: Entry[]) => {
    const files = precachedFiles(readManifest());
    const manifest = entries.flatMap((entry) => {
      const page = PRECACHED_PAGES[entry.url];
      if (page) return [{ ...entry, url: page }];
      return files.has(entry.url) || STATIC_FILE.test(entry.url) ? [entry] : [];
    });
    return { manifest, warnings: [] };
  };
}
