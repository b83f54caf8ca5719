/**
 * The headers of the static assets (the SPA), written at build time as dist/client/_headers, which
 * Workers static assets serve without running the Worker. The Content-Security-Policy allows our
 * own origin and, when CHAT_WIDGET_URL is set, exactly the chat widget's origin (its script, the
 * frame it opens, its calls, images and styles): never a wildcard or a whole scheme. The Worker's
 * own answers (/api) carry their own stricter policy (src/worker/app.ts).
 */
import { createHash } from "node:crypto";

/** The origin of the chat widget's script URL ("" when there is none), refusing what is not an http(s) URL. */
export function chatWidgetOrigin(chatWidgetUrl: string): string {
  const trimmed = chatWidgetUrl.trim();
  if (!trimmed) return "";
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new Error(`CHAT_WIDGET_URL is not a URL: "${chatWidgetUrl}"`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`CHAT_WIDGET_URL must be http(s): "${chatWidgetUrl}"`);
  return url.origin;
}

/**
 * The CSP sources of index.html's inline scripts ('sha256-…'): the one that picks between the
 * pre-rendered page and the splash (docs/public-site.md, "Pre-rendered pages") runs before any file.
 */
export function inlineScriptSources(html: string): string[] {
  return [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => `'sha256-${createHash("sha256").update(m[1]!).digest("base64")}'`);
}

export function contentSecurityPolicy(chatWidgetUrl: string, scriptSources: string[] = []): string {
  const chat = chatWidgetOrigin(chatWidgetUrl);
  const withChat = (...sources: string[]) => [...sources, ...(chat ? [chat] : [])].join(" ");
  return [
    `default-src 'self'`,
    `script-src ${withChat("'self'", ...scriptSources)}`,
    `style-src ${withChat("'self'", "'unsafe-inline'")}`,
    `img-src ${withChat("'self'", "data:")}`,
    `connect-src ${withChat("'self'")}`,
    `frame-src ${chat || "'none'"}`,
    `font-src 'self'`,
    // The service worker (/sw.js) and the web app manifest are our own files (docs/installable-app.md).
    `worker-src 'self'`,
    `manifest-src 'self'`,
    `object-src 'none'`,
    `base-uri 'self'`,
    `frame-ancestors 'none'`,
    `form-action 'self'`,
  ].join("; ");
}

/** The _headers file: the policy and the other security headers on every asset, long caching for hashed files, none for the service worker. */
export function assetHeaders(chatWidgetUrl: string, scriptSources: string[] = []): string {
  return [
    "/*",
    `  Content-Security-Policy: ${contentSecurityPolicy(chatWidgetUrl, scriptSources)}`,
    "  X-Content-Type-Options: nosniff",
    "  Referrer-Policy: strict-origin-when-cross-origin",
    "  Permissions-Policy: camera=(), microphone=(), geolocation=()",
    "/assets/*",
    "  Cache-Control: public, max-age=31536000, immutable",
    "/icons.svg",
    "  Cache-Control: public, max-age=604800",
    // The browser compares the service worker byte for byte on each check for a new version: never
    // from a cache. Scope "/" is the script's own directory, so no Service-Worker-Allowed is needed.
    "/sw.js",
    "  Cache-Control: no-cache",
    // Revised with each build under the same name; the installed app reads it again after a day.
    "/manifest.webmanifest",
    "  Cache-Control: public, max-age=86400",
    "  Content-Type: application/manifest+json",
    "",
  ].join("\n");
}
