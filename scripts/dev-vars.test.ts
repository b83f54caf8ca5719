import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readDevVars } from "./dev-vars.ts";

const MODULE = join(import.meta.dirname, "dev-vars.ts");
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Runs ensureDevVars in a process of its own in `dir`, and answers what that process then reads. */
function ensureInProcess(dir: string): Promise<string> {
  const script = `const m = await import(${JSON.stringify(MODULE)}); m.ensureDevVars(); const v = m.readDevVars(); console.log(JSON.stringify([v.PASSWORD_PEPPER, v.JWT_PRIVATE_JWK, v.MFA_ENCRYPTION_KEY]));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: dir });
    let out = "";
    child.stdout.on("data", (chunk) => (out += chunk));
    child.stderr.on("data", (chunk) => (out += chunk));
    child.on("exit", (code) => (code === 0 ? resolve(out.trim()) : reject(new Error(out))));
  });
}

describe("ensureDevVars", () => {
  // Eighteen Node processes: seconds on a busy machine (the whole suite runs beside it in CI).
  it("makes one .dev.vars when several jobs ask at once on a fresh clone: every job reads the same, whole", { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const dir = mkdtempSync(join(tmpdir(), "dev-vars-"));
      dirs.push(dir);
      copyFileSync(join(import.meta.dirname, "..", ".dev.vars.example"), join(dir, ".dev.vars.example"));
      const seen = await Promise.all([1, 2, 3, 4, 5, 6].map(() => ensureInProcess(dir)));
      const [pepper, jwk, key] = JSON.parse(seen[0]!) as string[];
      expect(pepper!.length).toBeGreaterThan(20);
      expect(jwk).toContain('"kty":"EC"');
      expect(key!.length).toBeGreaterThan(20);
      expect(new Set(seen).size).toBe(1);
      expect(readdirSync(dir).sort()).toEqual([".dev.vars", ".dev.vars.example"]);
    }
  });
});

describe("ensureDevVars on a .dev.vars made before Web Push", () => {
  it("adds a VAPID key pair and keeps every secret already generated", async () => {
    const dir = mkdtempSync(join(tmpdir(), "dev-vars-"));
    dirs.push(dir);
    const example = readFileSync(join(import.meta.dirname, "..", ".dev.vars.example"), "utf8");
    writeFileSync(join(dir, ".dev.vars.example"), example);
    const older = `${example
      .split("\n")
      .filter((line) => !line.startsWith("VAPID_"))
      .join("\n")
      .replace(/^JWT_PRIVATE_JWK=.*$/m, 'JWT_PRIVATE_JWK={"kept":1}')
      .replace(/^PASSWORD_PEPPER=.*$/m, "PASSWORD_PEPPER=kept-pepper-of-this-developer")}`.replace(/^JWT_PUBLIC_JWK=.*$/m, 'JWT_PUBLIC_JWK={"kept":2}');
    writeFileSync(join(dir, ".dev.vars"), older);
    await ensureInProcess(dir);
    const vars = readDevVars(join(dir, ".dev.vars"));
    expect(vars.PASSWORD_PEPPER).toBe("kept-pepper-of-this-developer");
    expect(vars.JWT_PRIVATE_JWK).toBe('{"kept":1}');
    const point = Buffer.from(vars.VAPID_PUBLIC_KEY!, "base64url");
    expect(point).toHaveLength(65);
    const jwk = JSON.parse(vars.VAPID_PRIVATE_JWK!) as { x: string; y: string; d: string };
    expect(Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x, "base64url"), Buffer.from(jwk.y, "base64url")]).equals(point)).toBe(true);
    expect(jwk.d).toBeTruthy();
  });
});
