/**
 * Builds the app and prints the gzip size of the landing route's JavaScript (the entry, everything
 * it imports statically, and the "/" page chunk) and of the Worker bundle, beside the budgets of
 * docs/architecture.md, budgets. Exits non-zero when a budget is exceeded (also in the short run of `npm test`: sizes
 * do not depend on the machine).
 *
 *   --no-build         measure the last build in dist/
 *   --build-dir DIR    measure the build copy in DIR instead (bench/short.ts hands one over)
 */
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

const BUDGET_LANDING = 120 * 1024;
const BUDGET_WORKER = 1024 * 1024;

type ManifestChunk = { file: string; src?: string; isEntry?: boolean; imports?: string[]; dynamicImports?: string[]; css?: string[] };

const dirArg = process.argv.indexOf("--build-dir");
const dist = dirArg >= 0 ? process.argv[dirArg + 1]! : "dist";
if (dirArg < 0 && !process.argv.includes("--no-build")) {
  const built = spawnSync("vite", ["build", "--logLevel", "error"], { stdio: "inherit" });
  if (built.status !== 0) process.exit(built.status ?? 1);
}

const gz = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;
const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

const manifest = JSON.parse(readFileSync(join(dist, "client/.vite/manifest.json"), "utf8")) as Record<string, ManifestChunk>;
const landing = new Set<string>();
function addWithImports(key: string) {
  const chunk = manifest[key];
  if (!chunk || landing.has(chunk.file)) return;
  landing.add(chunk.file);
  for (const dep of chunk.imports ?? []) addWithImports(dep);
}
const entryKey = Object.keys(manifest).find((k) => manifest[k]!.isEntry)!;
addWithImports(entryKey);
const homeKey = Object.keys(manifest).find((k) => k.endsWith("features/home/HomePage.tsx"));
if (homeKey) addWithImports(homeKey);
const landingBytes = [...landing].filter((f) => f.endsWith(".js")).reduce((sum, f) => sum + gz(join(dist, "client", f)), 0);

const workerDir = readdirSync(dist)
  .map((d) => join(dist, d))
  .find((d) => d !== join(dist, "client") && statSync(d).isDirectory())!;
const workerFiles = readdirSync(workerDir, { recursive: true })
  .map(String)
  .filter((f) => /\.(m?js|wasm)$/.test(f));
const workerBytes = workerFiles.reduce((sum, f) => sum + gz(join(workerDir, f)), 0);

const lazyChunks = Object.values(manifest).filter((c) => c.file.endsWith(".js") && !landing.has(c.file)).length;
const rows = [
  ["landing route JS (gzip)", kb(landingBytes), `≤ ${kb(BUDGET_LANDING)}`, landingBytes <= BUDGET_LANDING],
  ["Worker bundle (gzip)", kb(workerBytes), `≤ ${kb(BUDGET_WORKER)}`, workerBytes <= BUDGET_WORKER],
] as const;
console.log("| what | size | budget | within |\n|---|---|---|---|");
for (const [what, size, budget, ok] of rows) console.log(`| ${what} | ${size} | ${budget} | ${ok ? "yes" : "NO"} |`);
console.log(`\nlanding files: ${[...landing].join(", ")}; lazy chunks not on the landing route: ${lazyChunks}`);
if (rows.some((r) => !r[3])) process.exit(1);
