/**
 * `npm run bench:short` (the last step of `npm test`): every bench once, small, so none can rot
 * unnoticed. One production build is made and handed to each bench (`--build-dir … --skip-build`);
 * each runs with `--short` (its own tiny sizes), on its own ports, and prints its usual figures and
 * budget lines. A bench fails the run when it cannot run or gets a wrong answer (a refused sign-in,
 * a duplicate or lost message, a budget that does not depend on the machine such as sizes); time
 * budgets are printed but enforced only by the full runs, whose figures bench/README.md records.
 *
 * To add a bench: give it `--short`, `--port` and `--build-dir`/`--skip-build` (bench/harness.ts
 * has `benchOptions` and `prepareBuild`), then add one line to BENCHES below with the ports it needs.
 *
 *   BENCH_PORT=P  first port to use (default 8792); the benches take consecutive free ports from there
 */
import { spawnSync } from "node:child_process";
import { freePorts } from "../scripts/ports.ts";
import { buildCopy } from "./harness.ts";

type ShortBench = { script: string; ports: number; args?: string[] };

// One line per bench; `ports` is how many consecutive ports it takes from --port on.
const BENCHES: ShortBench[] = [
  { script: "bench/size.ts", ports: 1 },
  { script: "bench/password.ts", ports: 0 },
  { script: "bench/audience.ts", ports: 1 },
  { script: "bench/dispatch.ts", ports: 2 },
  { script: "bench/payments.ts", ports: 1 },
  { script: "bench/load.ts", ports: 2 },
  { script: "bench/admin.ts", ports: 1 },
  { script: "bench/lighthouse.ts", ports: 1 },
  { script: "bench/engine.ts", ports: 2 },
  { script: "bench/live.ts", ports: 2 },
  { script: "bench/insights.ts", ports: 1 },
  // The capacity model from the committed unit costs (no Worker): it must still read them and print.
  { script: "bench/capacity.ts", ports: 0 },
];

const BUILD_DIR = ".wrangler/bench-short-build";
let port = Number(process.env.BENCH_PORT ?? 8792);
if (!Number.isInteger(port) || port < 1024) throw new Error(`BENCH_PORT must be a port number, not "${process.env.BENCH_PORT}"`);

buildCopy(BUILD_DIR);
const results: { script: string; status: number; seconds: number }[] = [];
for (const bench of BENCHES) {
  // Ports something else holds now (another job's server) are skipped.
  if (bench.ports > 0) port = await freePorts(port, bench.ports);
  const args = [bench.script, "--short", "--skip-build", "--build-dir", BUILD_DIR, ...(bench.ports > 0 ? ["--port", String(port)] : []), ...(bench.args ?? [])];
  port += bench.ports;
  console.log(`\n── ${bench.script} (short) ${"─".repeat(Math.max(0, 60 - bench.script.length))}`);
  const started = Date.now();
  const run = spawnSync("node", args, { stdio: "inherit" });
  results.push({ script: bench.script, status: run.status ?? 1, seconds: (Date.now() - started) / 1000 });
}

console.log("\n| bench (short) | result | time |\n|---|---|---|");
for (const r of results) console.log(`| ${r.script} | ${r.status === 0 ? "ok" : `FAILED (exit ${r.status})`} | ${r.seconds.toFixed(0)} s |`);
process.exit(results.every((r) => r.status === 0) ? 0 : 1);
