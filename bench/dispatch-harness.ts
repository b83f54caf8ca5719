/**
 * What the messaging benches share: a private copy of the production build, a `wrangler dev` of it
 * on its own port and persisted state (never the e2e run's 8788 and .wrangler/e2e-state), the
 * demo seed, and an ID token for the demo owner signed with the local key.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import * as OTPAuth from "otpauth";
import { readDevVars } from "../scripts/dev-vars.ts";
import { DEMO } from "../scripts/seed.ts";

export function run(command: string, args: string[], env: NodeJS.ProcessEnv = process.env) {
  const result = spawnSync(command, args, { stdio: ["ignore", "inherit", "inherit"], env });
  if (result.status !== 0) throw new Error(`${command} ${args.join(" ")} exited with ${result.status}`);
}

/**
 * `vite build` writes dist/, which the e2e run builds and serves too: build under its lock and
 * copy the result away in the same breath, so nobody rebuilds dist/ under our running server.
 */
export function buildCopy(dir: string) {
  run("flock", ["/tmp/bp-e2e.lock", "sh", "-c", `vite build --logLevel warn && rm -rf '${dir}' && mkdir -p '${dir}' && cp -r dist/. '${dir}/'`]);
}

/** A fresh local database: migrations, the demo seed, optionally N extra Flex drivers. */
export function freshState(state: string, extraDrivers = 0) {
  rmSync(state, { recursive: true, force: true });
  run("wrangler", ["d1", "migrations", "apply", "DB", "--local", `--persist-to=${state}`]);
  run("node", ["scripts/seed.ts", ...(extraDrivers ? ["--drivers", String(extraDrivers)] : [])], { ...process.env, D1_PERSIST_TO: state });
}

export type RunningWorker = { url: string; stop: () => void };

export async function startWorker(opts: { dir: string; port: number; state: string; vars?: Record<string, string> }): Promise<RunningWorker> {
  const config = `${opts.dir}/blockpilot/wrangler.json`;
  if (!existsSync(config)) throw new Error(`no build at ${opts.dir}; run without --skip-build`);
  const vars = Object.entries(opts.vars ?? {}).flatMap(([k, v]) => ["--var", `${k}:${v}`]);
  const child = spawn(
    "wrangler",
    [
      "dev",
      "-c",
      config,
      "--port",
      String(opts.port),
      "--ip",
      "127.0.0.1",
      `--persist-to=${opts.state}`,
      "--log-level",
      "error",
      "--show-interactive-dev-session=false",
      ...vars,
    ],
    { stdio: ["ignore", "ignore", "inherit"], detached: true, env: { CLOUDFLARE_CF_FETCH_ENABLED: "false", ...process.env } },
  );
  const stop = () => {
    try {
      process.kill(-child.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  };
  process.on("exit", stop);
  const url = `http://127.0.0.1:${opts.port}`;
  for (let i = 0; i < 240; i++) {
    if (
      await fetch(`${url}/api/status/health`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { url, stop };
    await new Promise((r) => setTimeout(r, 500));
  }
  stop();
  throw new Error(`the worker did not answer on ${url}`);
}

/** The build's copy of .dev.vars (the Vite plugin writes values in quotes). */
export function devVarsOf(dir: string): Record<string, string> {
  return Object.fromEntries(Object.entries(readDevVars(`${dir}/blockpilot/.dev.vars`)).map(([k, v]) => [k, v.replace(/^(['"])(.*)\1$/, "$2")]));
}

/**
 * An ID token for the seeded owner, signed in through the API (password, then the TOTP step), so
 * it names a live session as every signed-in call now checks (a token signed here would not).
 */
export async function ownerToken(url: string): Promise<string> {
  const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(DEMO.owner.totp), digits: 6, period: 30 });
  const post = async <T>(path: string, body: unknown) => {
    const res = await fetch(`${url}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
    return (await res.json()) as T;
  };
  const first = await post<{ challenge?: string; session?: string }>("/api/auth/sign-in", {
    phoneNumber: DEMO.owner.phone,
    app: "flex",
    password: DEMO.owner.password,
  });
  if (first.challenge !== "SOFTWARE_TOKEN_MFA") throw new Error(`owner sign-in answered ${JSON.stringify(first)}`);
  const answer = await post<{ tokens?: { idToken: string } }>("/api/auth/respond", {
    challenge: "SOFTWARE_TOKEN_MFA",
    session: first.session,
    code: totp.generate(),
  });
  if (!answer.tokens) throw new Error(`owner TOTP step answered ${JSON.stringify(answer)}`);
  return answer.tokens.idToken;
}

export const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
export const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
