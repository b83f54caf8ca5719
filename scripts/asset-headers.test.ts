import { describe, expect, it } from "vitest";
import { assetHeaders, contentSecurityPolicy } from "./asset-headers.ts";

/** The headers of one path of a _headers file, in order. */
function headersOf(file: string, path: string): string[] {
  const lines = file.split("\n");
  const start = lines.indexOf(path);
  if (start < 0) return [];
  const end = lines.findIndex((line, i) => i > start && !line.startsWith("  "));
  return lines.slice(start + 1, end < 0 ? undefined : end).map((line) => line.trim());
}

describe("the assets' headers", () => {
  it("let the service worker and the web app manifest load from our origin only", () => {
    const policy = contentSecurityPolicy("https://chat.example.com/packs/js/sdk.js");
    const directives = policy.split("; ");
    expect(directives).toContain("worker-src 'self'");
    expect(directives).toContain("manifest-src 'self'");
    expect(directives).toContain("default-src 'self'");
  });

  it("serve /sw.js uncached, so a new version is seen on the next check, without widening its scope", () => {
    const file = assetHeaders("");
    expect(headersOf(file, "/sw.js")).toEqual(["Cache-Control: no-cache"]);
    expect(file).not.toMatch(/Service-Worker-Allowed/);
  });

  it("serve the manifest as a web app manifest, cached for a day", () => {
    expect(headersOf(assetHeaders(""), "/manifest.webmanifest")).toEqual(["Cache-Control: public, max-age=86400", "Content-Type: application/manifest+json"]);
  });

  it("keep the policy on every file, the service worker's included", () => {
    expect(headersOf(assetHeaders(""), "/*")[0]).toMatch(/^Content-Security-Policy: default-src 'self';.* worker-src 'self'; manifest-src 'self';/);
  });
});
