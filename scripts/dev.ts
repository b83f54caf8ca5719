/**
 * `npm run dev`: one command for a working local product on embedded defaults.
 * Makes .dev.vars (with a fresh JWT key pair) on first run, applies the D1 migrations locally
 * (after bringing the names of those a local database applied before a rename up to date),
 * seeds the demo data (idempotent), starts the fake delivery platform (test/fake-platform), then
 * runs Vite with the Worker inside it (SPA hot reload, API, queue consumer, capture engines) and
 * fires the cron trigger every minute, as production would.
 */
import { spawn, spawnSync } from "node:child_process";
import { ensureDevVars } from "./dev-vars.ts";
import { renameAppliedMigrations } from "./renamed-migrations.ts";
import { printDemoDetails } from "./seed.ts";

// Nothing here needs a real request.cf; without this the runtime fetches it from workers.cloudflare.com
// at start and logs an error on a machine without internet.
process.env.CLOUDFLARE_CF_FETCH_ENABLED ??= "false";

const port = Number(process.env.PORT ?? 5173);
const url = `http://localhost:${port}`;

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

if (ensureDevVars()) console.log("Created .dev.vars with a fresh ID-token key pair and local secrets.");
// A local database that applied migrations under their former names keeps its data.
if (renameAppliedMigrations(".wrangler/state/v3/d1")) console.log("Brought the local database's applied migrations up to their current names.");
run("wrangler", ["d1", "migrations", "apply", "DB", "--local"]);
run("node", ["scripts/seed.ts"]);

// The delivery platform's embedded default: the fake platform on the port wrangler.toml's FLEX_*_BASE
// and SPARK_PLATFORM_API_BASE name, in its demo mode (any email signs in on its Flex sign-in page or
// Spark's modelled call; "+code" or "+approve" in the address asks for a code or an approval there;
// offers keep coming), so a driver can connect and win blocks with no account anywhere.
const platform = spawn("node", ["test/fake-platform/server.ts", "--port", "8796", "--demo"], { stdio: "inherit" });
const vite = spawn("vite", ["--port", String(port), "--strictPort"], { stdio: "inherit" });
vite.on("exit", (code) => {
  platform.kill("SIGTERM");
  process.exit(code ?? 0);
});
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    platform.kill(signal);
    vite.kill(signal);
  });
}

// Local runtimes do not fire cron triggers by themselves; call the scheduled handler each minute.
const tick = () => fetch(`${url}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`).catch((err: unknown) => console.warn(`cron tick failed: ${String(err)}`));
async function whenReady() {
  for (let i = 0; i < 240; i++) {
    const ok = await fetch(`${url}/api/status/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 500));
  }
  console.warn("The API did not answer within two minutes; is the port free?");
}

void whenReady().then(() => {
  printDemoDetails(url);
  setInterval(tick, 60_000);
});
