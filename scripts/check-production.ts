/**
 * `npm run check`'s proof that the production environment deploys: `wrangler deploy --dry-run
 * --env production` bundles the Worker with wrangler.toml's [env.production] (its vars, D1, queues
 * and Durable Objects, each declared there since wrangler inherits none) and validates the result
 * without uploading anything.
 *
 * It reads wrangler.toml itself (`-c`): a `vite build` leaves .wrangler/deploy/config.json, which
 * points wrangler at that build's own configuration. And it hands wrangler an empty assets
 * directory: wrangler refuses a configuration whose [assets] directory (dist/client) does not
 * exist, which it does not before a build (a fresh clone, or `npm test` while the e2e run
 * rebuilds dist/); the SPA's build is proved by the builds the tests make.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_RUNTIME_ENV } from "./local-runtime.ts";

const assets = mkdtempSync(join(tmpdir(), "bp-production-assets-"));
const outdir = mkdtempSync(join(tmpdir(), "bp-production-bundle-"));
try {
  const dryRun = spawnSync("wrangler", ["deploy", "--dry-run", "--env", "production", "-c", "wrangler.toml", "--assets", assets, "--outdir", outdir], {
    encoding: "utf8",
    env: { ...process.env, ...LOCAL_RUNTIME_ENV },
  });
  if (dryRun.status !== 0) {
    // Its bindings table is noise when all is well; when not, wrangler's own words say why.
    console.error(`${dryRun.stdout}${dryRun.stderr}`);
    console.error("The production environment does not build: wrangler deploy --dry-run --env production failed.");
    process.exitCode = dryRun.status ?? 1;
  } else {
    const upload = /Total Upload: .*/.exec(dryRun.stdout)?.[0] ?? "";
    console.log(`The production environment builds (wrangler deploy --dry-run --env production). ${upload}`);
  }
} finally {
  rmSync(assets, { recursive: true, force: true });
  rmSync(outdir, { recursive: true, force: true });
}
