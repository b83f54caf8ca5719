/**
 * Import boundaries (docs/conventions.md, "Boundaries"), checked over every source file under src/:
 *
 * - a feature (src/app/features/<name>) never imports another feature;
 * - the SPA never imports the Worker, except `import type` of src/worker/app (the typed client's AppType);
 * - the Worker never imports the SPA;
 * - src/shared imports only src/shared and the pure packages in SHARED_PACKAGES;
 * - src/app/lib and src/app/components never import each other, nor any feature;
 * - the app's parts that are not features (src/app/routing: the guards and the post-sign-in routing;
 *   src/app/embedded-payments: the pages of the payments provider embedded for development) import no
 *   feature, and no feature imports them: src/app/routes.tsx is where they meet;
 * - the SPA calls the API only through the typed client (no `fetch("/api…")` outside src/app/lib/api-client.ts);
 * - the Worker's modules import down its layers only (WORKER_LAYERS, docs/architecture.md "Layers"): a
 *   module imports its own folder or a unit of a lower layer, never one beside it or above it; and
 *   routes never import the database (src/worker/db, drizzle-orm): a route validates, calls a service, answers;
 * - one module writes a campaign message's state, the message ledger (MESSAGE_LEDGER): no other module of the
 *   Worker (its tests and their fixtures aside) updates, inserts into or deletes from campaign_messages,
 *   through drizzle or in raw SQL (docs/architecture.md, "The messaging pipeline");
 * - the Worker speaks one database dialect, drizzle: no raw D1 statements (`.prepare(…)`, `DB.exec(…)`) outside
 *   its tests (docs/decisions/, "One database dialect") and the metering wrapper around the binding
 *   (src/worker/db/metered-d1.ts), which hands drizzle's own statements through.
 *
 * `node scripts/check-boundaries.ts` prints each violation and exits non-zero when there is one.
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, posix, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

/** The D1 binding's metering wrapper: it forwards the statements drizzle prepares, so it calls `.prepare(…)` itself. */
const METERED_D1 = "src/worker/db/metered-d1.ts";

/** The message ledger: the only writers of campaign_messages (docs/architecture.md, "The messaging pipeline"). */
export const MESSAGE_LEDGER = ["src/worker/messaging/message-ledger.ts", "src/worker/messaging/message-receipts.ts"];

/** Packages src/shared may use: pure code that runs the same in the Worker and the browser. */
export const SHARED_PACKAGES = ["zod", "@date-fns/tz"];
/** What src/shared tests may use besides. */
const SHARED_TEST_PACKAGES = ["vitest"];

/**
 * The Worker's layers, top first. A unit is a folder of src/worker (`routes/`) or a file at its top
 * (`app`). A module imports from its own unit or from any unit of a lower layer: never from a unit
 * beside it or above it, so the folders' imports form no loop and identity (auth/) knows nothing of
 * billing. The Worker's tests and their fixtures (src/worker/test/) are outside the layers.
 */
export const WORKER_LAYERS: readonly (readonly string[])[] = [
  ["index"],
  ["app", "scheduled"],
  ["routes/"],
  ["admin/", "account/"],
  ["messaging/", "billing/"],
  ["driver/"],
  ["platform/"],
  ["notifications/"],
  ["auth/"],
  ["compliance/", "providers/", "queue", "retention", "usage", "cross-cutting/", "openapi", "validate"],
  ["context"],
  ["db/", "config", "log", "errors"],
];

/** The unit of a path under src/worker (its folder, or its file's name), or null outside the layers. */
export function workerUnit(path: string): string | null {
  if (!path.startsWith("src/worker/")) return null;
  const rest = path.slice("src/worker/".length);
  const slash = rest.indexOf("/");
  if (slash >= 0) return rest.startsWith("test/") ? null : `${rest.slice(0, slash)}/`;
  if (rest.endsWith(".d.ts") || rest === "worker-configuration") return null;
  return rest.replace(/\.tsx?$/, "");
}

const layerOf = (unit: string) => WORKER_LAYERS.findIndex((layer) => layer.includes(unit));

/** Why an import from one Worker module to another breaks the layers, or null when it keeps them. */
export function layerViolation(fromPath: string, toPath: string): string | null {
  const from = workerUnit(fromPath);
  const to = workerUnit(toPath);
  if (from === null || to === null || from === to) return null;
  if (from === "routes/" && to === "db/") return "routes never import the database (src/worker/db): they validate, call a service and answer";
  const [a, b] = [layerOf(from), layerOf(to)];
  if (a < 0) return `src/worker/${from} is in no layer of WORKER_LAYERS (scripts/check-boundaries.ts): place it`;
  if (b < 0) return `src/worker/${to} is in no layer of WORKER_LAYERS (scripts/check-boundaries.ts): place it`;
  if (b < a) return `the Worker's layers point down: src/worker/${from} never imports src/worker/${to}, a layer above it`;
  if (b === a) return `the Worker's layers point down: src/worker/${from} never imports src/worker/${to}, beside it in the same layer`;
  return null;
}

export type SourceFile = { path: string; source: string };
export type ImportRef = { specifier: string; typeOnly: boolean; line: number };
export type Violation = { file: string; line: number; specifier: string; rule: string };

/** Comments out, line numbers kept: a commented-out import is not an import. */
function stripComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, " ")).replace(/^\s*\/\/.*$/gm, "");
}

const lineAt = (source: string, index: number) => source.slice(0, index).split("\n").length;

/** Every module a file imports or re-exports, statically or with import(). */
export function importsOf(source: string): ImportRef[] {
  const code = stripComments(source);
  const refs: ImportRef[] = [];
  const staticImport = /\b(import|export)\s+(type\s+)?(?:[\w*{}\s,$]+?\s+from\s+)?["']([^"']+)["']/g;
  for (const m of code.matchAll(staticImport)) refs.push({ specifier: m[3]!, typeOnly: Boolean(m[2]), line: lineAt(code, m.index) });
  for (const m of code.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) refs.push({ specifier: m[1]!, typeOnly: false, line: lineAt(code, m.index) });
  return refs;
}

/** The repository path an import points at, or null for a package. */
function target(file: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  return posix.normalize(posix.join(posix.dirname(file), specifier));
}

const packageName = (specifier: string) => (specifier.startsWith("@") ? specifier.split("/").slice(0, 2).join("/") : specifier.split("/")[0]!);
const featureOf = (path: string) => /^src\/app\/features\/([^/]+)\//.exec(`${path}/`)?.[1] ?? null;
const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);
const isTest = (path: string) => /\.test\.tsx?$/.test(path);
/** The SPA's folders that sit beside the features without being one. */
export const APP_PARTS = ["src/app/routing", "src/app/embedded-payments"];
const appPartOf = (path: string) => APP_PARTS.find((dir) => under(path, dir)) ?? null;

export function checkFile(file: SourceFile): Violation[] {
  const violations: Violation[] = [];
  const fail = (ref: ImportRef, rule: string) => violations.push({ file: file.path, line: ref.line, specifier: ref.specifier, rule });
  for (const ref of importsOf(file.source)) {
    const to = target(file.path, ref.specifier);
    if (under(file.path, "src/shared")) {
      if (to === null) {
        const allowed = isTest(file.path) ? [...SHARED_PACKAGES, ...SHARED_TEST_PACKAGES] : SHARED_PACKAGES;
        if (!allowed.includes(packageName(ref.specifier))) fail(ref, `src/shared imports only pure packages (${SHARED_PACKAGES.join(", ")})`);
      } else if (!under(to, "src/shared")) fail(ref, "src/shared imports only src/shared");
      continue;
    }
    if (to === null) {
      if (under(file.path, "src/worker/routes") && !isTest(file.path) && packageName(ref.specifier) === "drizzle-orm")
        fail(ref, "routes never query the database (drizzle-orm): they validate, call a service and answer");
      continue;
    }
    if (under(file.path, "src/worker") && under(to, "src/app")) fail(ref, "the Worker never imports the SPA");
    if (under(file.path, "src/worker") && under(to, "src/worker") && !isTest(file.path)) {
      const broken = layerViolation(file.path, to);
      if (broken) fail(ref, broken);
    }
    if (!under(file.path, "src/app")) continue;
    if (under(to, "src/worker")) {
      const appType = (to === "src/worker/app" || to === "src/worker/app.ts") && ref.typeOnly;
      if (!appType) fail(ref, "the SPA imports nothing from the Worker but `import type { AppType }` from src/worker/app");
    }
    const from = featureOf(file.path);
    const into = featureOf(to);
    if (from && into && from !== into) fail(ref, `features never import each other (${from} → ${into})`);
    const layer = under(file.path, "src/app/lib") ? "lib" : under(file.path, "src/app/components") ? "components" : null;
    if (layer === "lib" && under(to, "src/app/components")) fail(ref, "src/app/lib never imports src/app/components");
    if (layer === "components" && under(to, "src/app/lib")) fail(ref, "src/app/components never imports src/app/lib");
    if (layer && into) fail(ref, `src/app/${layer} never imports a feature`);
    const part = appPartOf(file.path);
    if (part && into) fail(ref, `${part} never imports a feature`);
    const intoPart = appPartOf(to);
    if (from && intoPart) fail(ref, `features never import ${intoPart}`);
  }
  if (under(file.path, "src/app") && !isTest(file.path) && file.path !== "src/app/lib/api-client.ts") {
    for (const m of stripComments(file.source).matchAll(/\bfetch\(\s*["'`]\/api\//g)) {
      violations.push({
        file: file.path,
        line: lineAt(file.source, m.index),
        specifier: "fetch(/api/…)",
        rule: "the SPA calls the API only through the typed client (src/app/lib/api-client.ts)",
      });
    }
  }
  if (under(file.path, "src/worker") && !isTest(file.path) && !under(file.path, "src/worker/test") && file.path !== METERED_D1) {
    for (const m of stripComments(file.source).matchAll(/(\.prepare|\bDB\.exec)\(/g)) {
      violations.push({
        file: file.path,
        line: lineAt(file.source, m.index),
        specifier: `${m[1]}(…)`,
        rule: "the Worker queries D1 only through drizzle (src/worker/db/client.ts), never with raw statements",
      });
    }
  }
  if (under(file.path, "src/worker") && !isTest(file.path) && !under(file.path, "src/worker/test") && !MESSAGE_LEDGER.includes(file.path)) {
    for (const write of campaignMessageWrites(file.source)) {
      violations.push({
        file: file.path,
        line: write.line,
        specifier: write.what,
        rule: "only the message ledger (src/worker/messaging/message-ledger.ts, message-receipts.ts) writes campaign_messages",
      });
    }
  }
  return violations;
}

/**
 * Where a source writes campaign_messages: drizzle's update/insert/delete of the table (or of a name
 * bound to it), and raw SQL that updates, inserts into or deletes from it (by name or through
 * `${…}`). Reads (select, joins, subqueries) are not writes.
 */
export function campaignMessageWrites(source: string): { line: number; what: string }[] {
  const code = stripComments(source);
  const bound = /\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*campaignMessages(?![\w$.])|\bcampaignMessages\s+as\s+([A-Za-z_$][\w$]*)/g;
  const names = ["campaignMessages", ...[...code.matchAll(bound)].map((m) => (m[1] ?? m[2])!)];
  const table = `(?:${names.map((n) => n.replace(/\$/g, "\\$")).join("|")})`;
  const builder = new RegExp(`\\.(update|insert|delete)\\(\\s*${table}\\s*\\)`, "g");
  const raw = new RegExp(
    `\\b(INSERT(?:\\s+OR\\s+\\w+)?\\s+INTO|REPLACE\\s+INTO|UPDATE(?:\\s+OR\\s+\\w+)?|DELETE\\s+FROM)\\s+(?:\\$\\{\\s*${table}\\s*\\}|["'\`\\[]?campaign_messages\\b)`,
    "gi",
  );
  return [...code.matchAll(builder), ...code.matchAll(raw)].map((m) => ({ line: lineAt(code, m.index), what: m[0] }));
}

export function sourceFiles(root: string, dir: string): SourceFile[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = posix.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(root, path);
    if (!/\.(ts|tsx)$/.test(entry.name) || entry.name.endsWith(".d.ts")) return [];
    return [{ path, source: readFileSync(join(root, path), "utf8") }];
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const root = join(dirname(fileURLToPath(import.meta.url)), "..");
  const files = sourceFiles(root, "src");
  const violations = files.flatMap(checkFile);
  for (const v of violations) console.error(`${v.file.split(sep).join("/")}:${v.line}: "${v.specifier}": ${v.rule}`);
  if (violations.length > 0) {
    console.error(`\n${violations.length} import boundary violation${violations.length === 1 ? "" : "s"} (docs/conventions.md, "Boundaries").`);
    process.exit(1);
  }
  console.log(`Import boundaries: ${files.length} files, no violations (${relative(process.cwd(), root) || "."}).`);
}
