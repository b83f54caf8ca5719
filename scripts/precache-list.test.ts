import type { Manifest } from "vite";
import { describe, expect, it } from "vitest";
import { precachedFiles, precacheTransform } from "./precache-list.ts";

// A build's manifest in miniature: the entry, the route table it loads lazily, a driver page, a
// console page, a public page, and a chunk only the console uses.
const manifest: Manifest = {
  "index.html": {
    file: "assets/index-1.js",
    isEntry: true,
    imports: ["_react-1.js"],
    dynamicImports: ["src/app/routes.tsx", "src/app/lib/live-session/LiveSession.tsx"],
    css: ["assets/index-1.css"],
  },
  "_react-1.js": { file: "assets/react-1.js" },
  "src/app/lib/live-session/LiveSession.tsx": { file: "assets/LiveSession-1.js", isDynamicEntry: true },
  "src/app/routes.tsx": {
    file: "assets/routes-1.js",
    isDynamicEntry: true,
    imports: ["_Dialog-1.js"],
    dynamicImports: [
      "src/app/features/driver/DashboardPage.tsx",
      "src/app/features/admin/users/UsersPage.tsx",
      "src/app/features/site/FaqsPage.tsx",
      "src/app/embedded-payments/LocalCheckoutPage.tsx",
    ],
  },
  "_Dialog-1.js": { file: "assets/Dialog-1.js" },
  "src/app/features/driver/DashboardPage.tsx": {
    file: "assets/DashboardPage-1.js",
    isDynamicEntry: true,
    imports: ["_Dialog-1.js"],
    dynamicImports: ["src/app/components/ui/Chart.tsx"],
    css: ["assets/driver-1.css"],
  },
  "src/app/components/ui/Chart.tsx": { file: "assets/Chart-1.js", isDynamicEntry: true },
  "src/app/features/admin/users/UsersPage.tsx": {
    file: "assets/UsersPage-1.js",
    isDynamicEntry: true,
    imports: ["_admin-table-1.js"],
    css: ["assets/users-1.css"],
  },
  "_admin-table-1.js": { file: "assets/admin-table-1.js" },
  "src/app/features/site/FaqsPage.tsx": { file: "assets/FaqsPage-1.js", isDynamicEntry: true },
  "src/app/embedded-payments/LocalCheckoutPage.tsx": { file: "assets/LocalCheckoutPage-1.js", isDynamicEntry: true },
};

describe("the precache list", () => {
  it("holds the shell and the driver's pages with what they import, lazily too", () => {
    expect([...precachedFiles(manifest)].sort()).toEqual(
      [
        "assets/index-1.js",
        "assets/index-1.css",
        "assets/react-1.js",
        "assets/LiveSession-1.js",
        "assets/routes-1.js",
        "assets/Dialog-1.js",
        "assets/DashboardPage-1.js",
        "assets/driver-1.css",
        "assets/Chart-1.js",
      ].sort(),
    );
  });

  it("never holds the console's code, the public site's pages or the payment stand-in's", () => {
    const files = precachedFiles(manifest);
    for (const file of ["assets/UsersPage-1.js", "assets/admin-table-1.js", "assets/users-1.css", "assets/FaqsPage-1.js", "assets/LocalCheckoutPage-1.js"]) {
      expect(files.has(file), file).toBe(false);
    }
  });

  it("keeps, of the HTML, the shell and the driver's pre-rendered pages, under their addresses", async () => {
    const globbed = [
      "index.html",
      "faqs.html",
      "login.html",
      "flex/dashboard.html",
      "flex/insights.html",
      "assets/index-1.js",
      "assets/UsersPage-1.js",
      "icons/icon-192.png",
      "manifest.webmanifest",
      "locale-data-worker.js",
      "robots.txt",
    ].map((url) => ({ url, revision: "r", size: 1 }));
    const { manifest: kept } = await precacheTransform(() => manifest)(globbed);
    expect(kept.map((entry) => entry.url)).toEqual([
      "/",
      "/flex/dashboard",
      "/flex/insights",
      "assets/index-1.js",
      "icons/icon-192.png",
      "manifest.webmanifest",
      "locale-data-worker.js",
    ]);
  });

  it("refuses a manifest without an entry rather than precaching nothing", () => {
    expect(() => precachedFiles({ "src/a.ts": { file: "assets/a.js" } })).toThrow(/no entry/);
  });
});
