/**
 * What the benches share: their options, a private copy of the production build, a `wrangler dev`
 * of it on its own port and persisted state (never the e2e run's port and .wrangler/e2e-state), the
 * demo seed, and a session for the demo owner obtained the way a person gets one: password, then
 * the TOTP challenge (a hand-made token would skip the live session check every request makes).
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";
import * as OTPAuth from "otpauth";
import { ensureDevVars, readDevVars } from "../scripts/dev-vars.ts";
import { LOCAL_RUNTIME_ENV } from "../scripts/local-runtime.ts";
import { freshMigratedState } from "../scripts/migrated-state.ts";
import { freePorts, listenArgs, portHolder } from "../scripts/ports.ts";
import { DEMO } from "../scripts/seed.ts";

/**
 * The options every bench takes. `--short` is the small run `npm test` makes (bench/short.ts): tiny
 * sizes, the same code path, the same budget lines printed. `--build-dir` names a build copy made
 * by someone else (bench/short.ts builds once for all benches); `--skip-build` reuses it as it is.
 */
export type BenchOptions = { short: boolean; skipBuild: boolean; buildDir: string | null; port: number };

export function numberArg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isFinite(value)) throw new Error(`--${name} takes a number, not "${process.argv[i + 1]}"`);
  return value;
}

export function stringArg(name: string): string | null {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? (process.argv[i + 1] ?? null) : null;
}

export const flag = (name: string) => process.argv.includes(`--${name}`);

/**
 * The options, and the first of `ports` consecutive ports: --port's, or the first free ones at or
 * after the bench's default (so a bench runs beside `npm run dev`, the e2e run or another bench).
 */
export async function benchOptions(defaultPort: number, ports = 1): Promise<BenchOptions> {
  const port = stringArg("port") === null ? await freePorts(defaultPort, ports) : numberArg("port", defaultPort);
  return { short: flag("short"), skipBuild: flag("skip-build"), buildDir: stringArg("build-dir"), port };
}

/** The build copy a bench runs: the one it was handed, or its own (built now unless told to reuse it). */
export function prepareBuild(options: BenchOptions, ownDir: string): string {
  const dir = options.buildDir ?? ownDir;
  if (!options.skipBuild) buildCopy(dir);
  return dir;
}

export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], env });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
}

/**
 * `vite build` writes dist/, which the e2e run builds and serves too: build under its lock and
 * copy the result away in the same breath, so nobody rebuilds dist/ under our running server.
 */
export function buildCopy(dir: string) {
  // The build carries .dev.vars (the local secrets) into its Worker directory: make them first.
  ensureDevVars();
  run("flock", ["/tmp/bp-e2e.lock", "sh", "-c", `vite build --logLevel warn && rm -rf '${dir}' && mkdir -p '${dir}' && cp -r dist/. '${dir}/'`]);
}

/** A fresh local database: migrations (a copy of the migrated template), the demo seed, optionally N extra Flex drivers. */
export function freshState(state: string, extraDrivers = 0) {
  freshMigratedState(state);
  run("node", ["scripts/seed.ts", ...(extraDrivers ? ["--drivers", String(extraDrivers)] : [])], { ...process.env, D1_PERSIST_TO: state });
}

/** `stop` ends the runtime as Ctrl-C would; `kill` stops its whole process group at once (SIGKILL), as a crash would. */
export type RunningWorker = { url: string; stop: () => void; kill: () => void };

/**
 * The build in `dir` under `wrangler dev`; `config` names another wrangler.json beside the build's
 * (same relative paths). `onLog` receives each line the Worker logs (its console.log, the
 * structured log lines of src/worker/log.ts), else they are dropped.
 */
export async function startWorker(opts: {
  dir: string;
  port: number;
  state: string;
  vars?: Record<string, string>;
  config?: string;
  onLog?: (line: string) => void;
}): Promise<RunningWorker> {
  const config = opts.config ?? `${opts.dir}/blockpilot/wrangler.json`;
  if (!existsSync(config)) throw new Error(`no build at ${opts.dir}; run without --skip-build`);
  const vars = Object.entries(opts.vars ?? {}).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  return startWranglerDev(["-c", config, `--persist-to=${opts.state}`, ...vars], opts.port, "/api/status/health", opts.onLog);
}

/**
 * `wrangler dev` with these arguments on 127.0.0.1:port, once `healthPath` answers 200; stopped
 * when this process exits. With `onLog`, wrangler prints the Worker's console.log lines (log level
 * "log") and each line of its output is handed over.
 */
export async function startWranglerDev(args: string[], port: number, healthPath: string, onLog?: (line: string) => void): Promise<RunningWorker> {
  const url = `http://127.0.0.1:${port}`;
  // A runtime that exits before it answers (under a loaded host a start-up has failed that way) is
  // started once more; one that neither answers nor exits in two minutes is given up.
  for (let attempt = 1; ; attempt++) {
    const worker = spawnWranglerDev(args, port, onLog);
    for (let i = 0; i < 240 && worker.exitCode() === null; i++) {
      const up = await fetch(`${url}${healthPath}`).then(
        (r) => r.ok,
        () => false,
      );
      if (up) return { url, stop: worker.stop, kill: worker.kill };
      await new Promise((r) => setTimeout(r, 500));
    }
    const code = worker.exitCode();
    worker.stop();
    if (code !== null && attempt < 2) {
      console.error(`wrangler dev exited (${code}) before answering on ${url}; starting it again`);
      continue;
    }
    const holder = portHolder(port);
    throw new Error(
      `the worker did not answer on ${url}${code !== null ? ` (wrangler dev exited with ${code})` : ""}${holder ? ` (port ${port} is held by: ${holder})` : ""}`,
    );
  }
}

function spawnWranglerDev(args: string[], port: number, onLog?: (line: string) => void) {
  const child = spawn("wrangler", ["dev", ...args, ...listenArgs(port), "--log-level", onLog ? "log" : "error", "--show-interactive-dev-session=false"], {
    stdio: ["ignore", onLog ? "pipe" : "ignore", onLog ? "pipe" : "inherit"],
    detached: true,
    env: { ...process.env, ...LOCAL_RUNTIME_ENV },
  });
  if (onLog && child.stdout && child.stderr) {
    createInterface({ input: child.stdout }).on("line", onLog);
    // The Worker's warnings come this way too: handed over; only its errors and wrangler's own lines are shown.
    createInterface({ input: child.stderr }).on("line", (line) => {
      onLog(line);
      if (line.trim() !== "" && (!line.includes('{"level"') || line.includes('"level":"error"'))) process.stderr.write(`${line}\n`);
    });
  }
  let exitCode: number | null = null;
  child.on("exit", (code, signal) => {
    exitCode = code ?? (signal ? 128 : 1);
  });
  const signal = (name: NodeJS.Signals) => () => {
    try {
      process.kill(-child.pid!, name);
    } catch {
      // already gone
    }
  };
  const stop = signal("SIGTERM");
  process.on("exit", stop);
  return { stop, kill: signal("SIGKILL"), exitCode: () => exitCode };
}

/** The build's copy of .dev.vars (the Vite plugin writes values in quotes). */
export function devVarsOf(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(readDevVars(`${dir}/blockpilot/.dev.vars`)).map(([k, v]) => [k, v.replace(/^(['"])(.*)\1$/, "$2")]));
}

const STEP_MS = 30_000;
const ownerTotp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(DEMO.owner.totp), digits: 6, period: 30 });
let lastStep = -1;

/** A TOTP code for a step this process has not used yet (the server takes each step once), within the server's window. */
async function freshOwnerTotp(): Promise<string> {
  const now = Math.floor(Date.now() / STEP_MS);
  const step = Math.max(now, lastStep + 1);
  if (step > now + 1) await new Promise((r) => setTimeout(r, (step - 1) * STEP_MS - Date.now() + 250));
  lastStep = step;
  return ownerTotp.generate({ timestamp: step * STEP_MS });
}

async function postJson(url: string, body: unknown): Promise<{ status: number; data: Record<string, unknown> }> {
  const res = await fetch(url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, data: (await res.json()) as Record<string, unknown> };
}

export type BenchTokens = { idToken: string; refreshToken: string };

/** The seeded owner signed in through the API: password, then SOFTWARE_TOKEN_MFA with the demo TOTP secret. */
export async function signInOwner(workerUrl: string): Promise<BenchTokens> {
  let last = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    const first = await postJson(`${workerUrl}/api/auth/sign-in`, { phoneNumber: DEMO.owner.phone, app: "flex", password: DEMO.owner.password });
    if (first.data.challenge !== "SOFTWARE_TOKEN_MFA") throw new Error(`owner sign-in answered ${first.status}: ${JSON.stringify(first.data)}`);
    const answer = await postJson(`${workerUrl}/api/auth/respond`, {
      challenge: "SOFTWARE_TOKEN_MFA",
      session: first.data.session,
      code: await freshOwnerTotp(),
    });
    if (answer.data.tokens) return answer.data.tokens as BenchTokens;
    // A step used by an earlier sign-in on this state: the next code is for a later step.
    last = `${answer.status}: ${JSON.stringify(answer.data)}`;
  }
  throw new Error(`the owner could not sign in (last answer ${last})`);
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;

/** The seeded driver (no second factor): password only. */
export async function signInDriver(workerUrl: string): Promise<BenchTokens> {
  const answer = await postJson(`${workerUrl}/api/auth/sign-in`, { phoneNumber: DEMO.driver.phone, app: "flex", password: DEMO.driver.password });
  if (!answer.data.tokens) throw new Error(`driver sign-in answered ${answer.status}: ${JSON.stringify(answer.data)}`);
  return answer.data.tokens as BenchTokens;
}
