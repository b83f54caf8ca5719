/**
 * `node scripts/parallel.ts "<command>" "<command>" …`: runs the commands at once and fails if any
 * fails. `npm test` runs its three jobs this way (Vitest; the browser tests; the benches' short
 * runs, then the type-check and lint), and `npm run test:unit` its two Vitest processes: each spends much of its time
 * waiting (on timers, a browser, local servers, timed runs), so together they keep two cores busy
 * where one after another left one idle. Each command's output is kept and printed whole when it
 * ends, so the logs never interleave; a summary with each one's time comes last.
 */
import { spawn } from "node:child_process";
import { freemem, totalmem } from "node:os";

const commands = process.argv.slice(2);
if (commands.length === 0) {
  console.error('usage: node scripts/parallel.ts "<command>" ["<command>" …]');
  process.exit(2);
}

type Outcome = { command: string; code: number; signal: NodeJS.Signals | null; seconds: number };

function run(command: string): Promise<Outcome> {
  const started = Date.now();
  // FORCE_COLOR keeps the reporters' colours although the output goes to a pipe.
  const child = spawn(command, { shell: true, stdio: ["ignore", "pipe", "pipe"], env: { FORCE_COLOR: "1", ...process.env } });
  const chunks: Buffer[] = [];
  child.stdout.on("data", (c: Buffer) => chunks.push(c));
  child.stderr.on("data", (c: Buffer) => chunks.push(c));
  return new Promise((resolve) => {
    child.on("close", (code, signal) => {
      process.stdout.write(`\n── ${command} ${"─".repeat(Math.max(0, 70 - command.length))}\n`);
      process.stdout.write(Buffer.concat(chunks));
      resolve({ command, code: code ?? (signal ? 1 : 0), signal, seconds: (Date.now() - started) / 1000 });
    });
  });
}

/** How a command ended; a signal nobody here sends (SIGKILL most often from the kernel's out-of-memory killer) says so, with the memory left. */
function ended(o: Outcome): string {
  if (!o.signal) return `exit ${o.code}`;
  const memory = `${(freemem() / 2 ** 30).toFixed(1)} of ${(totalmem() / 2 ** 30).toFixed(1)} GiB memory free now`;
  return o.signal === "SIGKILL" ? `killed by SIGKILL: out of memory? ${memory}` : `ended by ${o.signal}; ${memory}`;
}

const outcomes = await Promise.all(commands.map(run));
console.log("\n| command | result | time |\n|---|---|---|");
for (const o of outcomes) console.log(`| ${o.command} | ${o.code === 0 ? "ok" : `FAILED (${ended(o)})`} | ${o.seconds.toFixed(0)} s |`);
process.exit(outcomes.every((o) => o.code === 0) ? 0 : 1);
