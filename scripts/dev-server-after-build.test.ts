/**
 * A build while `npm run dev` runs must leave the dev server working. Vite servers made at build
 * time (the pre-render's, the route table's) once shared node_modules/.vite with the dev server and
 * rewrote its optimized dependencies: the running dev server then answered "504 Outdated Optimize
 * Dep" for the modules a page asked for next. This starts the dev server, opens the app, runs
 * `vite build`, then loads every route's page and every module the pages import.
 */
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, expect, it } from "vitest";
import { loadRoutePaths } from "../e2e/route-table.ts";
import { ensureDevVars } from "./dev-vars.ts";
import { LOCAL_RUNTIME_ENV } from "./local-runtime.ts";
import { freePorts } from "./ports.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const stops: (() => void)[] = [];
afterAll(() => {
  for (const stop of stops) stop();
});

/** `vite` (the dev server `npm run dev` runs) on a free port, once it answers; a start that dies on a busy machine is tried again. */
async function startDevServer(attempts = 3): Promise<string> {
  ensureDevVars();
  const port = await freePorts(5300);
  const vite = spawn("node_modules/.bin/vite", ["--port", String(port), "--strictPort"], {
    cwd: root,
    stdio: ["ignore", "ignore", "inherit"],
    detached: true,
    env: { ...process.env, ...LOCAL_RUNTIME_ENV },
  });
  let exited = false;
  vite.on("exit", () => {
    exited = true;
  });
  stops.push(() => {
    try {
      process.kill(-vite.pid!, "SIGTERM");
    } catch {
      // already gone
    }
  });
  const url = `http://localhost:${port}`;
  for (let i = 0; i < 360 && !exited; i++) {
    if (
      await fetch(url).then(
        (r) => r.ok,
        () => false,
      )
    )
      return url;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (exited && attempts > 1) return startDevServer(attempts - 1);
  throw new Error(`the dev server did not answer on ${url}`);
}

/** Module addresses a served module imports (static, dynamic, side-effect), on this server only. */
function importedAddresses(code: string): string[] {
  const found = new Set<string>();
  for (const m of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["'](\/[^"']+)["']/g)) found.add(m[1]!);
  return [...found];
}

/** A GET that tries again when the connection drops (a kept-alive socket the server closed as it was reused). */
async function get(address: string): Promise<{ status: number; text: string }> {
  for (let attempt = 1; ; attempt++) {
    try {
      const res = await fetch(address);
      return { status: res.status, text: res.ok ? await res.text() : "" };
    } catch (error) {
      if (attempt === 3) throw new Error(`GET ${address}: ${String(error)}`);
    }
  }
}

/** Every route's page and every module reachable from its scripts; the status each answered. */
async function load(url: string, routes: string[], known: string[] = []): Promise<Map<string, number>> {
  const status = new Map<string, number>();
  const queue = [...known];
  for (const route of routes) {
    const res = await get(`${url}${route}`);
    status.set(route, res.status);
    for (const m of res.text.matchAll(/<script[^>]+src="(\/[^"]+)"/g)) queue.push(m[1]!);
  }
  while (queue.length) {
    const batch = queue.splice(0, 8).filter((address) => !status.has(address));
    await Promise.all(
      batch.map(async (address) => {
        if (status.has(address)) return;
        status.set(address, 0);
        const res = await get(`${url}${address}`);
        status.set(address, res.status);
        queue.push(...importedAddresses(res.text));
      }),
    );
  }
  return status;
}

const failures = (status: Map<string, number>) => [...status].filter(([, code]) => code !== 200).map(([address, code]) => `${code} ${address}`);

it("serves every route, and every module the routes import, after a build", { timeout: 900_000 }, async () => {
  const url = await startDevServer();
  const routes = await loadRoutePaths();
  // The pages answer, and the dev server has optimized the dependencies it found at start-up (the
  // entry's answer waits for them); a person has opened the app, not yet every page.
  for (const route of routes) expect((await get(`${url}${route}`)).status, route).toBe(200);
  expect((await get(`${url}/src/app/main.tsx`)).status).toBe(200);

  // The same build as `npm run build`, under the lock the e2e run and the benches build dist/ with.
  const build = spawnSync("flock", ["/tmp/bp-e2e.lock", "node_modules/.bin/vite", "build", "--logLevel", "error"], { cwd: root, stdio: "inherit" });
  expect(build.status).toBe(0);

  // Now every page a person opens next: its modules and the optimized dependencies they import,
  // most of them asked of the dev server for the first time.
  const after = await load(url, routes);
  console.log(`${routes.length} routes and ${after.size - routes.length} modules served after the build`);
  expect(after.size).toBeGreaterThan(routes.length + 100);
  expect(failures(after)).toEqual([]);
});
