/**
 * End-to-end run: builds the app, serves the production build with `wrangler dev` on its own
 * throw-away local state (migrated and seeded), then runs e2e/*.test.ts in Debian's Chromium.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync } from "node:fs";
import { ensureDevVars } from "../scripts/dev-vars.ts";
import { LOCAL_RUNTIME_ENV } from "../scripts/local-runtime.ts";
import { freshMigratedState } from "../scripts/migrated-state.ts";
import { freePorts, listenArgs, portHolder } from "../scripts/ports.ts";
import { startFakePlatform } from "../test/fake-platform/server.ts";

// The app, the fake platform and the chat widget take three consecutive ports (8788 onwards, or E2E_PORT).
const port = process.env.E2E_PORT ? Number(process.env.E2E_PORT) : await freePorts(8788, 3);
const baseUrl = `http://127.0.0.1:${port}`;
const state = process.env.E2E_STATE ?? ".wrangler/e2e-state";
// The support chat's stand-in (e2e/fake-chat-widget.ts), a process of its own; the build puts its
// origin in the assets' CSP and the Worker hands its script to signed-in users.
const chatPort = Number(process.env.E2E_CHAT_PORT ?? port + 2);
const chatUrl = `http://127.0.0.1:${chatPort}/packs/js/sdk.js`;
const chat = spawn("node", ["e2e/fake-chat-widget.ts", "--port", String(chatPort)], { stdio: ["ignore", "ignore", "inherit"] });
process.on("exit", () => chat.kill());
// No request.cf fetch from workers.cloudflare.com: tests never touch the internet.
const ownerCache = `${state}-owner.json`;
const env = { ...process.env, ...LOCAL_RUNTIME_ENV, D1_PERSIST_TO: state, E2E_OWNER_CACHE: ownerCache, CHAT_WIDGET_URL: chatUrl };

function run(command: string, args: string[]) {
  const result = spawnSync(command, args, { stdio: "inherit", env });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
}

if (!existsSync(process.env.CHROMIUM_PATH ?? "/usr/bin/chromium")) {
  console.error("Chromium is missing: apt-get install -y chromium (the .ci/run script does this).");
  process.exit(1);
}

ensureDevVars();
// The build is served from a copy of its own: `npm test` runs the benches' short runs beside this,
// and their build (another chat widget origin, no E2E settings) goes through dist/ too. The lock
// (the benches take it as well, bench/harness.ts) keeps two builds from writing dist/ at once.
const build = ".wrangler/e2e-build";
if (!process.env.E2E_SKIP_BUILD) {
  run("flock", ["/tmp/bp-e2e.lock", "sh", "-c", `vite build --logLevel warn && rm -rf '${build}' && mkdir -p '${build}' && cp -r dist/. '${build}/'`]);
}
freshMigratedState(state);
rmSync(ownerCache, { force: true });
rmSync(`${ownerCache}.step`, { force: true });
run("node", ["scripts/seed.ts"]);

// The delivery platform: a fake of its own per run (next to the app's port), in demo mode; tests
// read sign-in codes and inject offers through its control API (E2E_PLATFORM_URL).
const platform = await startFakePlatform({ port: Number(process.env.E2E_PLATFORM_PORT ?? port + 1), config: { openSignUp: true } });
/**
 * The messaging rules' clock (src/worker/compliance/clock.ts) stands at 22:00 in New York today,
 * so e2e/messaging-rules.test.ts sees a marketing campaign created at 22:00 Eastern whenever the
 * run happens. Only quiet hours read it; the Worker refuses the setting in production.
 */
function tenPmInNewYork(now = Date.now()): number {
  const parts: Record<string, number> = {};
  const format = new Intl.DateTimeFormat("en-US", {
    timeZone: "America/New_York",
    hourCycle: "h23",
    year: "numeric",
    month: "numeric",
    day: "numeric",
    hour: "numeric",
    minute: "numeric",
  });
  for (const p of format.formatToParts(now)) if (p.type !== "literal") parts[p.type] = Number(p.value);
  const wall = Date.UTC(parts.year!, parts.month! - 1, parts.day!, 22, 0);
  const at = (t: number) => {
    const q: Record<string, number> = {};
    for (const p of format.formatToParts(t)) if (p.type !== "literal") q[p.type] = Number(p.value);
    return Date.UTC(q.year!, q.month! - 1, q.day!, q.hour!, q.minute!);
  };
  return wall - (at(wall) - wall);
}
const clockOffset = tenPmInNewYork() - Date.now();

const server = spawn(
  "wrangler",
  [
    "dev",
    "--var",
    `FLEX_SIGN_IN_BASE:${platform.url}/flex`,
    "--var",
    `FLEX_IDENTITY_BASE:${platform.url}/flex`,
    "--var",
    `FLEX_CAPACITY_BASE:${platform.url}/flex`,
    "--var",
    `SPARK_PLATFORM_API_BASE:${platform.url}/spark`,
    "-c",
    `${build}/blockpilot/wrangler.json`,
    ...listenArgs(port),
    `--persist-to=${state}`,
    "--log-level",
    "warn",
    "--show-interactive-dev-session=false",
    "--var",
    `COMPLIANCE_CLOCK_OFFSET_MS:${clockOffset}`,
    // Every link the Worker hands out (checkout, onboarding, invitations) is built from APP_ORIGIN.
    "--var",
    `APP_ORIGIN:${baseUrl}`,
  ],
  {
    stdio: ["ignore", "inherit", "inherit"],
    env,
    detached: true,
  },
);
const stop = () => {
  try {
    process.kill(-server.pid!, "SIGTERM");
  } catch {
    // already gone
  }
};
process.on("exit", stop);

let code = 1;
try {
  let ready = false;
  for (let i = 0; i < 120 && !ready; i++) {
    ready = await fetch(`${baseUrl}/api/status/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (!ready) await new Promise((r) => setTimeout(r, 500));
  }
  if (!ready) throw new Error(`the built app did not answer on ${baseUrl}${portHolder(port) ? ` (port ${port} is held by: ${portHolder(port)})` : ""}`);
  // `npm run test:e2e -- e2e/auth.test.ts` runs only the files named.
  const named = process.argv.slice(2).filter((a) => a.endsWith(".test.ts"));
  const files =
    named.length > 0
      ? named
      : readdirSync("e2e")
          .filter((f) => f.endsWith(".test.ts"))
          .map((f) => `e2e/${f}`);
  // Not spawnSync: the fake platform runs in this process and must keep answering meanwhile.
  const tests = spawn("node", ["--test", "--test-concurrency=1", "--test-reporter=spec", ...files], {
    stdio: "inherit",
    env: { ...env, E2E_BASE_URL: baseUrl, E2E_CHAT_WIDGET_URL: chatUrl, E2E_PLATFORM_URL: platform.url },
  });
  code = await new Promise<number>((resolve) => tests.on("exit", (status) => resolve(status ?? 1)));
} catch (err) {
  console.error(err);
} finally {
  stop();
  await platform.close();
}
process.exit(code);
