import { generateKeyPairSync, randomBytes } from "node:crypto";
import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";

/** Reads .dev.vars into an object (KEY=value lines; # comments). */
export function readDevVars(path = ".dev.vars"): Record<string, string> {
  const vars: Record<string, string> = {};
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const match = /^([A-Z0-9_]+)=(.*)$/.exec(line.trim());
    if (match) vars[match[1]!] = match[2]!;
  }
  return vars;
}

/**
 * First run: copy .dev.vars.example to .dev.vars, with a fresh ES256 key pair for ID tokens and
 * random local secrets. Later runs leave an existing .dev.vars alone.
 */
export function ensureDevVars(path = ".dev.vars"): boolean {
  if (existsSync(path) && !readFileSync(path, "utf8").includes("generated-by-npm-run-dev")) return false;
  if (!existsSync(path)) copyFileSync(".dev.vars.example", path);
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const jwk = (k: typeof privateKey) => JSON.stringify({ ...k.export({ format: "jwk" }), alg: "ES256" });
  const text = readFileSync(path, "utf8")
    .replace(/^JWT_PRIVATE_JWK=.*$/m, `JWT_PRIVATE_JWK=${jwk(privateKey)}`)
    .replace(/^JWT_PUBLIC_JWK=.*$/m, `JWT_PUBLIC_JWK=${jwk(publicKey)}`)
    .replace(/^PASSWORD_PEPPER=.*$/m, `PASSWORD_PEPPER=${randomBytes(24).toString("base64url")}`)
    .replace(/^MFA_ENCRYPTION_KEY=.*$/m, `MFA_ENCRYPTION_KEY=${randomBytes(32).toString("base64")}`)
    .replace(/^CHAT_HASH_SECRET=.*$/m, `CHAT_HASH_SECRET=${randomBytes(24).toString("base64url")}`);
  writeFileSync(path, text);
  return true;
}
