/**
 * `npm ci` refuses a lock file that lacks an entry for any optional dependency of a locked package,
 * even one for another platform. Registries that carry a native package's Linux build but not its
 * macOS or Windows ones yield exactly such a lock (seen with workerd, Biome and oxc-parser), and it
 * only shows on a clean clone. This check fails fast, before anything else in `npm test`.
 */
import { readFileSync } from "node:fs";

type Locked = { optionalDependencies?: Record<string, string> };
const lock = JSON.parse(readFileSync(new URL("../package-lock.json", import.meta.url), "utf8")) as { packages: Record<string, Locked> };
const packages = lock.packages;

/** Node's lookup: the package's own node_modules, then each enclosing one, then the root. */
function resolves(from: string, dep: string): boolean {
  let base = from;
  for (;;) {
    if (packages[`${base ? `${base}/` : ""}node_modules/${dep}`]) return true;
    if (!base) return false;
    const cut = base.lastIndexOf("/node_modules/");
    base = cut < 0 ? "" : base.slice(0, cut);
  }
}

const missing: string[] = [];
for (const [path, entry] of Object.entries(packages)) {
  for (const dep of Object.keys(entry.optionalDependencies ?? {})) if (!resolves(path, dep)) missing.push(`${path || "(root)"} → ${dep}`);
}

if (missing.length > 0) {
  console.error(`package-lock.json lacks ${missing.length} optional dependencies, so \`npm ci\` will refuse it on a clean clone:`);
  for (const line of missing) console.error(`  ${line}`);
  console.error("Pick versions whose platform builds all exist in the registry (see README, Dependencies).");
  process.exit(1);
}
console.log(`package-lock.json: every optional dependency is locked (${Object.keys(packages).length} packages).`);
