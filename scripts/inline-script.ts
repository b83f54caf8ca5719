/**
 * index.html's inline script, built from a typed module (src/app/boot/inline-script.ts, which
 * says what it does): bundled with what it imports, minified to one statement, and put in place of
 * `<script data-source="src/app/boot/inline-script.ts"></script>` by the build and the development
 * server alike. The build's Content-Security-Policy lists the hash of exactly this text
 * (scripts/asset-headers.ts, through vite.config.ts).
 */
import { build, type Plugin, type Rolldown } from "vite";

export const INLINE_SCRIPT_SOURCE = "src/app/boot/inline-script.ts";
const PLACEHOLDER = `<script data-source="${INLINE_SCRIPT_SOURCE}"></script>`;

/** The inline script's code: the module and what it imports, as one minified immediately-invoked function. */
export async function compileInlineScript(root: string): Promise<string> {
  const result = await build({
    configFile: false,
    root,
    logLevel: "silent",
    // Its own cache folder: never the development server's optimized dependencies.
    cacheDir: "node_modules/.vite-inline-script",
    build: {
      write: false,
      minify: true,
      modulePreload: false,
      copyPublicDir: false,
      rolldownOptions: { input: INLINE_SCRIPT_SOURCE, output: { format: "iife" } },
    },
  });
  const outputs = (Array.isArray(result) ? result : [result]) as Rolldown.RolldownOutput[];
  const chunks = outputs.flatMap((o) => o.output).filter((o): o is Rolldown.OutputChunk => o.type === "chunk");
  if (chunks.length !== 1) throw new Error(`${INLINE_SCRIPT_SOURCE} must build to one chunk, not ${chunks.length}`);
  // "</script" would end the element early.
  const code = chunks[0]!.code.trim();
  if (/<\/script/i.test(code)) throw new Error(`${INLINE_SCRIPT_SOURCE} compiles to text that contains "</script"`);
  return code;
}

/** index.html with the inline script compiled in its place. */
export function withInlineScript(html: string, code: string): string {
  if (!html.includes(PLACEHOLDER)) throw new Error(`index.html has no ${PLACEHOLDER}`);
  return html.replace(PLACEHOLDER, () => `<script>${code}</script>`);
}

export type InlineScriptPlugin = Plugin<{ code: () => Promise<string> }>;

/**
 * The Vite plugin: compiles the script once per build (in development, again after any source file
 * changed, so edits show). `api.code()` is the compiled text, for the plugin that hashes it into the CSP.
 */
export function inlineScript(): InlineScriptPlugin {
  let root = process.cwd();
  let built: Promise<string> | null = null;
  const code = () => {
    built ??= compileInlineScript(root);
    return built;
  };
  return {
    name: "blockpilot:inline-script",
    configResolved(config) {
      root = config.root;
    },
    configureServer(server) {
      server.watcher.on("change", () => {
        built = null;
      });
    },
    transformIndexHtml: {
      order: "pre",
      handler: async (html) => withInlineScript(html, await code()),
    },
    api: { code },
  };
}
