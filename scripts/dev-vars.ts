import { generateKeyPairSync, randomBytes } from "node:crypto";
import { existsSync, linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";

/** Reads .dev.vars into an object (KEY=value lines; # comments). */
export function readDevVars(path = ".dev.vars"): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) vars[match[1]!] = match[2]!;
  }
  return vars;
}

/** The example's text with a fresh ES256 key pair for ID tokens and random local secrets. */
function withFreshSecrets(text: string): string {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = (k: typeof privateKey) => JSON.stringify({ ...k.export({ format: "jwk" }), alg: "ES256" });
  return text
    .replace(/^JWT_PRIVATE_JWK=.*$/m, `JWT_PRIVATE_JWK=${jwk(privateKey)}`)
    .replace(/^JWT_PUBLIC_JWK=.*$/m, `JWT_PUBLIC_JWK=${jwk(publicKey)}`)
    .replace(/^PASSWORD_PEPPER=.*$/m, `PASSWORD_PEPPER=${randomBytes(24).toString("base64url")}`)
    .replace(/^MFA_ENCRYPTION_KEY=.*$/m, `MFA_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`)
    .replace(/^CHAT_HASH_SECRET=.*$/m, `CHAT_HASH_SECRET=${randomBytes(24).toString("base64url")}`);
}

/**
 * First run: .dev.vars from .dev.vars.example, with a fresh ES256 key pair for ID tokens and
 * random local secrets. Later runs leave an existing .dev.vars alone. `npm test` starts three jobs
 * that each make sure of the file at once on a fresh clone, so it is written whole under another
 * name and put in place in one step, and only the first job's file stands: no job reads it half
 * written, and none keeps secrets another job replaced (a seed's pepper must be the server's).
 */
export function ensureDevVars(path = ".dev.vars"): boolean {
  const existing = existsSync(path) ? readFileSync(path, "utf8") : null;
  if (existing !== null && !existing.includes("generated-by-npm-run-dev")) return false;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, withFreshSecrets(existing ?? readFileSync(".dev.vars.example", "utf8")));
  try {
    // A file still holding the example's placeholders is replaced; a missing one is made only if
    // no other job has made it meanwhile (a hard link fails on an existing name).
    if (existing !== null) renameSync(temp, path);
    else linkSync(temp, path);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw err;
  } finally {
    rmSync(temp, { force: true });
  }
}
