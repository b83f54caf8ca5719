/**
 * The icon sprite: one SVG of <symbol>s built from Lucide's shapes for the names in
 * src/app/components/ui/icon-names.ts. The Vite plugin serves it at /icons.svg in development,
 * writes it into the client build, and gives the app its URL with a content hash in the query, so
 * the 168-hour browser cache (scripts/asset-headers.ts) never serves a sprite older than the build.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { Plugin } from "vite";
import { ICON_NAMES } from "../src/app/components/ui/icon-names.ts";

type IconNode = [tag: string, attributes: Record<string, string>][];

const escapeAttribute = (value: string) => value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

/** The sprite's text. Symbols carry shapes only: stroke and fill come from the .icon class. */
export function buildSprite(names: readonly string[] = ICON_NAMES): string {
  const require = createRequire(import.meta.url);
  const nodes = JSON.parse(readFileSync(require.resolve("lucide-static/icon-nodes.json"), "utf8")) as Record<string, IconNode>;
  const symbols = names.map((name) => {
    const node = nodes[name];
    if (!node) throw new Error(`No Lucide icon named "${name}" (src/app/components/ui/icon-names.ts)`);
    const shapes = node
      .map(
        ([tag, attributes]) =>
          `<${tag} ${Object.entries(attributes)
            .map(([k, v]) => `${k}="${escapeAttribute(v)}"`)
            .join(" ")}/>`,
      )
      .join("");
    return `<symbol id="${name}" viewBox="0 0 24 24">${shapes}</symbol>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg"><!-- Lucide icons (ISC licence), lucide.dev -->${symbols.join("")}</svg>`;
}

export const SPRITE_PATH = "/icons.svg";
const VIRTUAL_ID = "virtual:icon-sprite";
const RESOLVED_ID = `\0${VIRTUAL_ID}`;

export function iconSprite(): Plugin {
  const svg = buildSprite();
  const version = createHash("sha256").update(svg).digest("hex").slice(0, 10);
  return {
    name: "blockpilot-icon-sprite",
    resolveId(id) {
      return id === VIRTUAL_ID ? RESOLVED_ID : undefined;
    },
    load(id) {
      return id === RESOLVED_ID ? `export const ICON_SPRITE_URL = ${JSON.stringify(`${SPRITE_PATH}?v=${version}`)};` : undefined;
    },
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        if (req.url?.split("?")[0] !== SPRITE_PATH) return next();
        res.setHeader("Content-Type", "image/svg+xml");
        res.end(svg);
      });
    },
    generateBundle() {
      if (this.environment?.name === "client") this.emitFile({ type: "asset", fileName: SPRITE_PATH.slice(1), source: svg });
    },
  };
}
