import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * `npm run check` refuses an import cycle: Biome's noImportCycles, with type-only imports counted
 * (a type cycle still ties two modules' meaning together). Proven on a scratch project that carries
 * the repository's own linter settings, so turning the rule off or down here fails this test.
 */
const root = join(import.meta.dirname, "..");
const biome = join(root, "node_modules", ".bin", "biome");
const config = JSON.parse(readFileSync(join(root, "biome.json"), "utf8")) as Record<string, unknown>;
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function lint(files: Record<string, string>) {
  const dir = mkdtempSync(join(tmpdir(), "bp-cycles-"));
  dirs.push(dir);
  const { $schema: _schema, vcs: _vcs, files: _files, ...settings } = config;
  writeFileSync(join(dir, "biome.json"), JSON.stringify(settings));
  for (const [name, source] of Object.entries(files)) writeFileSync(join(dir, name), source);
  const run = spawnSync(biome, ["lint", "--max-diagnostics=20", "."], { cwd: dir, encoding: "utf8" });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

// Each case runs Biome in a process of its own: 3-4 s on a busy two-core machine, past vitest's
// default 5 s once (a clean-clone run, beside the e2e and bench jobs).
describe("the import-cycle rule", { timeout: 30_000 }, () => {
  it.each<{ kind: string; files: Record<string, string> }>([
    {
      kind: "two modules importing each other",
      files: { "a.ts": 'import { b } from "./b";\nexport const a = () => b;\n', "b.ts": 'import { a } from "./a";\nexport const b = () => a;\n' },
    },
    {
      kind: "a loop through three modules",
      files: {
        "a.ts": 'import { b } from "./b";\nexport const a = () => b;\n',
        "b.ts": 'import { c } from "./c";\nexport const b = () => c;\n',
        "c.ts": 'import { a } from "./a";\nexport const c = () => a;\n',
      },
    },
    {
      kind: "a loop closed by a type-only import",
      files: { "a.ts": 'import type { B } from "./b";\nexport type A = { b?: B };\n', "b.ts": 'import type { A } from "./a";\nexport type B = { a?: A };\n' },
    },
  ])("refuses $kind", ({ files }) => {
    const { status, output } = lint(files);
    expect(status).not.toBe(0);
    expect(output).toContain("noImportCycles");
  });

  it("accepts modules that import in one direction", () => {
    const { status, output } = lint({ "a.ts": 'import { b } from "./b";\nexport const a = () => b;\n', "b.ts": "export const b = () => 1;\n" });
    expect(output).not.toContain("noImportCycles");
    expect(status).toBe(0);
  });
});
