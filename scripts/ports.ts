/**
 * Local ports for the e2e run and the benches. Their defaults (8788…, 8792…) are fixed so a person
 * knows where to look, but `npm test` runs them beside Vitest's workers, browsers and several
 * `wrangler dev`s: a job takes the first free ports at or after its default instead of failing
 * on one that something else holds, and a server that cannot start says who holds its port.
 */
import { spawnSync } from "node:child_process";
import { createServer } from "node:net";

/** Whether 127.0.0.1:port can be listened on right now. */
export function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}

/** The first of `count` consecutive free ports at or after `from`. */
export async function freePorts(from: number, count = 1): Promise<number> {
  for (let first = from; first + count <= 65_536; first++) {
    let all = true;
    for (let p = first; p < first + count && all; p++) all = await portFree(p);
    if (all) return first;
  }
  throw new Error(`no ${count} free consecutive ports at or after ${from}`);
}

/** Who listens on the port, as `ss` tells it (for an error message), or "" when no one does. */
export function portHolder(port: number): string {
  const ss = spawnSync("ss", ["-ltnpH", `sport = :${port}`], { encoding: "utf8" });
  return ss.status === 0 ? ss.stdout.trim() : "";
}

/**
 * Where a `wrangler dev` of the tests listens: 127.0.0.1:port, and port + 1000 for its devtools.
 * wrangler's own devtools choice, 9229 when free, was found free by two runtimes starting at once
 * under `npm test` (the e2e run's and a bench's), and the second died with "Address already in use".
 */
export function listenArgs(port: number): string[] {
  return ["--port", String(port), "--inspector-port", String(port + 1000), "--ip", "127.0.0.1"];
}
