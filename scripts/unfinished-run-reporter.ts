/**
 * A Vitest reporter that speaks only when a run ends without its summary. Vitest says loudly when
 * a pool dies under it ("Worker exited unexpectedly", then the summary), but when its own process
 * is ended (a signal, an error in a global set-up's server, `process.exit` from a dependency) the
 * output just stops, and nothing says which files were running or why. This one says both: the
 * files in flight with how long each had run, the exit code or signal, and the memory left.
 */
import { freemem, totalmem } from "node:os";
import type { Reporter, TestModule } from "vitest/node";

const gib = (bytes: number) => `${(bytes / 2 ** 30).toFixed(1)} GiB`;

export default class UnfinishedRunReporter implements Reporter {
  private readonly started = Date.now();
  private readonly running = new Map<string, number>();
  private ended = false;

  onInit() {
    process.on("uncaughtExceptionMonitor", (err, origin) => {
      process.stderr.write(`\nVitest's own process hit an ${origin}: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    });
    process.on("exit", (code) => this.report(`exit code ${code}`));
    for (const signal of ["SIGTERM", "SIGHUP"] as const) {
      process.once(signal, () => {
        this.report(signal);
        process.kill(process.pid, signal);
      });
    }
  }

  onTestModuleStart(module: TestModule) {
    this.running.set(module.moduleId, Date.now());
  }

  onTestModuleEnd(module: TestModule) {
    this.running.delete(module.moduleId);
  }

  onTestRunEnd() {
    this.ended = true;
  }

  private report(how: string) {
    if (this.ended) return;
    this.ended = true;
    const now = Date.now();
    const files = [...this.running].map(([id, at]) => `  ${id.replace(`${process.cwd()}/`, "")} (for ${((now - at) / 1000).toFixed(1)} s)`);
    process.stderr.write(
      [
        "",
        `The test run ended before its summary (${how}) after ${((now - this.started) / 1000).toFixed(0)} s, with ${gib(freemem())} of ${gib(totalmem())} memory free.`,
        files.length > 0 ? `Running then:\n${files.join("\n")}` : "No test file was running then.",
        "",
      ].join("\n"),
    );
  }
}
