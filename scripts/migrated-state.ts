/**
 * A fresh local D1 state (a `--persist-to` directory) with every migration applied, for the e2e run
 * and the benches. `wrangler d1 migrations apply` starts a local runtime for each migration file,
 * about 17 s of CPU for our 17 files, and `npm test` needs eight fresh states at once on two cores.
 * So wrangler applies them once, to a template kept under .wrangler/migrated/, and each fresh state
 * is a copy of it. The template's name is a hash of the migrations (names and contents) and of
 * wrangler's version, so a new or edited migration, or another local runtime, makes a new one.
 *
 *   node scripts/migrated-state.ts <dir>   makes <dir> a fresh migrated state (the template if need be)
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { LOCAL_RUNTIME_ENV } from "./local-runtime.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const TEMPLATES = `${root}.wrangler/migrated`;
const LOCK = "/tmp/bp-migrated-state.lock";

/** The template's directory for the migrations and wrangler of this checkout. */
export function templateDir(): string {
  const hash = createHash("sha256");
  const wrangler = JSON.parse(readFileSync(`${root}node_modules/wrangler/package.json`, "utf8")) as { version: string };
  hash.update(`wrangler ${wrangler.version}\n`);
  for (const name of readdirSync(`${root}migrations`)
    .filter((f) => f.endsWith(".sql"))
    .sort()) {
    hash.update(`${name}\n`);
    hash.update(readFileSync(`${root}migrations/${name}`));
  }
  return `${TEMPLATES}/${hash.digest("hex").slice(0, 16)}`;
}

/** Applies the migrations to a new template unless it exists; call it under LOCK. */
function makeTemplate(dir: string) {
  if (existsSync(dir)) return;
  const building = `${dir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const applied = spawnSync("wrangler", ["d1", "migrations", "apply", "DB", "--local", `--persist-to=${building}`], {
    cwd: root,
    // Its progress tables are noise in every run's log; its errors are not.
    stdio: ["ignore", "ignore", "inherit"],
    env: { ...process.env, ...LOCAL_RUNTIME_ENV },
  });
  if (applied.status !== 0) throw new Error(`wrangler d1 migrations apply exited with ${applied.status}`);
  // Older templates (other migrations, another wrangler) are of no further use.
  for (const old of readdirSync(TEMPLATES)) if (`${TEMPLATES}/${old}` !== building) rmSync(`${TEMPLATES}/${old}`, { recursive: true, force: true });
  renameSync(building, dir);
}

/** Makes `state` a fresh local D1 state with every migration applied (whatever it held is gone). */
export function freshMigratedState(state: string) {
  const template = templateDir();
  if (!existsSync(template)) {
    // Under the lock, so that runs starting together apply the migrations once between them.
    const made = spawnSync("flock", [LOCK, process.execPath, fileURLToPath(import.meta.url), "--template", template], { stdio: "inherit" });
    if (made.status !== 0) throw new Error(`the migrated template could not be made (exit ${made.status})`);
  }
  rmSync(state, { recursive: true, force: true });
  cpSync(template, state, { recursive: true });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const i = process.argv.indexOf("--template");
  if (i >= 0) makeTemplate(process.argv[i + 1]!);
  else if (process.argv[2]) freshMigratedState(process.argv[2]);
  else {
    console.error("usage: node scripts/migrated-state.ts <state dir>");
    process.exit(2);
  }
}
