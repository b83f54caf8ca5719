/**
 * End-to-end run: builds the app, serves the production build with `wrangler dev` on its own
 * throw-away local state (migrated and seeded), then runs e2e/*.test.ts in Debian's Chromium, in
 * two lanes at once: the flows one file after another on that runtime, and beside them the axe
 * walk (on a second runtime over a copy of the seeded state) and the campaign crash (runtimes of
 * its own). The lane beside prints its output after the flows'; a table gives each lane's time.
 */
import { spawn, spawnSync } from "node:child_process";
import { cpSync, existsSync, readdirSync, rmSync } from "node:fs";
import { ensureDevVars } from "../scripts/dev-vars.ts";
import { LOCAL_RUNTIME_ENV } from "../scripts/local-runtime.ts";
import { freshMigratedState } from "../scripts/migrated-state.ts";
import { freePorts, portHolder } from "../scripts/ports.ts";
import { startFakePlatform } from "../test/fake-platform/server.ts";

// The app, the fake platform, the chat widget and the axe walk's app take four consecutive ports (8788 onwards, or E2E_PORT).
const port = process.env.E2E_PORT ? Number(process.env.E2E_PORT) : await freePorts(8788, 4);
const walkPort = port + 3;
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

/**
 * The built app under `wrangler dev` on its own port and local state, stopped when this process
 * exits; `ready` resolves once it answers (or throws, naming who holds its port).
 */
function startApp(port: number, state: string) {
  const url = `http://127.0.0.1:${port}`;
  const server = spawn(
    "wrangler",
    [
      "dev",
      "--var",
      `FLEX_PLATFORM_API_BASE:${platform.url}/flex`,
      "--var",
      `SPARK_PLATFORM_API_BASE:${platform.url}/spark`,
      "-c",
      `${build}/blockpilot/wrangler.json`,
      "--port",
      String(port),
      "--ip",
      "127.0.0.1",
      `--persist-to=${state}`,
      "--log-level",
      "warn",
      "--show-interactive-dev-session=false",
      "--var",
      `COMPLIANCE_CLOCK_OFFSET_MS:${clockOffset}`,
      // Every link the Worker hands out (checkout, onboarding, invitations) is built from APP_ORIGIN.
      "--var",
      `APP_ORIGIN:${url}`,
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
  const ready = async () => {
    for (let i = 0; i < 120; i++) {
      const up = await fetch(`${url}/api/status/health`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error(`the built app did not answer on ${url}${portHolder(port) ? ` (port ${port} is held by: ${portHolder(port)})` : ""}`);
  };
  return { url, stop, ready };
}

/** `node --test` on these files, one file at a time unless told; its output goes to `output` (inherit: this process's own). */
function runTests(files: string[], testEnv: NodeJS.ProcessEnv, options: { concurrency?: number; output?: (chunk: Buffer) => void } = {}) {
  const started = Date.now();
  // Not spawnSync: the fake platform runs in this process and must keep answering meanwhile.
  const tests = spawn("node", ["--test", `--test-concurrency=${options.concurrency ?? 1}`, "--test-reporter=spec", ...files], {
    stdio: ["ignore", options.output ? "pipe" : "inherit", options.output ? "pipe" : "inherit"],
    env: { ...env, ...testEnv, FORCE_COLOR: process.env.FORCE_COLOR ?? (process.stdout.isTTY ? "1" : "0") },
  });
  process.on("exit", () => tests.kill());
  tests.stdout?.on("data", options.output!);
  tests.stderr?.on("data", options.output!);
  return new Promise<{ code: number; seconds: number }>((resolve) =>
    tests.on("close", (status) => resolve({ code: status ?? 1, seconds: (Date.now() - started) / 1000 })),
  );
}

// `npm run test:e2e -- e2e/auth.test.ts` runs only the files named.
const named = process.argv.slice(2).filter((a) => a.endsWith(".test.ts"));
const files =
  named.length > 0
    ? named
    : readdirSync("e2e")
        .filter((f) => f.endsWith(".test.ts"))
        .map((f) => `e2e/${f}`);
/**
 * Two lanes at once. The flows share one runtime and database and run one file after another. Beside
 * them, two files that never touch that runtime: the axe walk (every route, three sessions, two
 * languages: minutes of reading), on a runtime of its own over a copy of the seeded database, so
 * the flows' writes, sign-in limits and owner TOTP steps never meet it; and the campaign crash,
 * which starts and kills runtimes of its own. Both spend much of their time waiting (pages,
 * timers), so beside the flows they cost little wall time; after them, as before, they cost ten
 * minutes.
 */
const BESIDE = /(^|\/)(accessibility|campaign-crash)\.test\.ts$/;
const WALK = /(^|\/)accessibility\.test\.ts$/;
const besideFiles = files.filter((f) => BESIDE.test(f));
const flowFiles = files.filter((f) => !BESIDE.test(f));
const walkState = `${state}-axe`;
const walking = besideFiles.some((f) => WALK.test(f));
if (walking) {
  rmSync(walkState, { recursive: true, force: true });
  cpSync(state, walkState, { recursive: true });
  rmSync(`${walkState}-owner.json`, { force: true });
  rmSync(`${walkState}-owner.json.step`, { force: true });
}

const servers: ReturnType<typeof startApp>[] = [];
let code = 1;
try {
  const shared = { E2E_CHAT_WIDGET_URL: chatUrl, E2E_PLATFORM_URL: platform.url };
  // The runtimes start one after the other: two starting at once both took wrangler's first free
  // inspector port (9229), and the second failed with "Address already in use". The walk's first:
  // it is the longer lane.
  const walkApp = walking ? startApp(walkPort, walkState) : undefined;
  if (walkApp) {
    servers.push(walkApp);
    await walkApp.ready();
  }
  // The lane beside prints its output whole after the flows', so the two never interleave.
  const besideOutput: Buffer[] = [];
  const besideRun =
    besideFiles.length > 0
      ? runTests(
          besideFiles,
          { ...shared, E2E_BASE_URL: walkApp?.url ?? `http://127.0.0.1:${port}`, E2E_OWNER_CACHE: `${walkState}-owner.json` },
          { concurrency: besideFiles.length, output: (c) => besideOutput.push(c) },
        )
      : undefined;
  const app = startApp(port, state);
  servers.push(app);
  await app.ready();
  const flowsRun = flowFiles.length > 0 ? runTests(flowFiles, { ...shared, E2E_BASE_URL: app.url }) : undefined;
  const [flows, beside] = await Promise.all([flowsRun, besideRun]);
  if (beside) {
    const where = walkApp ? ` (the axe walk on a runtime of its own, ${walkApp.url})` : "";
    process.stdout.write(`\n── beside the flows: ${besideFiles.join(", ")}${where} ${"─".repeat(10)}\n`);
    process.stdout.write(Buffer.concat(besideOutput));
  }
  const lanes = [
    ["the flows", flowFiles, flows],
    ["beside them", besideFiles, beside],
  ] as const;
  console.log("\n| e2e lane | files | result | time |\n|---|---|---|---|");
  for (const [name, f, outcome] of lanes)
    if (outcome)
      console.log(
        `| ${name} | ${f.map((x) => x.replace(/^e2e\/|\.test\.ts$/g, "")).join(", ")} | ${outcome.code === 0 ? "ok" : `FAILED (exit ${outcome.code})`} | ${outcome.seconds.toFixed(0)} s |`,
      );
  code = lanes.every(([, , outcome]) => !outcome || outcome.code === 0) ? 0 : 1;
} catch (err) {
  console.error(err);
} finally {
  for (const s of servers) s.stop();
  await platform.close();
}
process.exit(code);
