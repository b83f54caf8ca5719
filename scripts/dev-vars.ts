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

const newPair = () => generateKeyPairSync("ec", { namedCurve: "P-256" });
const jwk = (k: ReturnType<typeof newPair>["privateKey"]) => JSON.stringify({ ...k.export({ format: "jwk" }), alg: "ES256" });

/** A VAPID key pair: the public key as Web Push wants it (the uncompressed point, base64url) and the private JWK. */
function vapidPair(): { publicKey: string; privateJwk: string } {
  const { privateKey, publicKey } = newPair();
  const { x, y } = publicKey.export({ format: "jwk" });
  const point = Buffer.concat([Buffer.from([4]), Buffer.from(x!, "base64url"), Buffer.from(y!, "base64url")]);
  return { publicKey: point.toString("base64url"), privateJwk: jwk(privateKey) };
}

/** The VAPID lines of an older .dev.vars that has none (made before Web Push), to be generated like the rest. */
function withVapidLines(text: string): string {
  if (/^VAPID_PRIVATE_JWK=/m.test(text)) return text;
  return `${text.replace(/\n*$/, "\n")}VAPID_PUBLIC_KEY=generated-by-npm-run-dev\nVAPID_PRIVATE_JWK=generated-by-npm-run-dev\n`;
}

/**
 * The text with every secret that still has the example's value replaced: fresh ES256 key pairs
 * for ID tokens and Web Push, random local secrets. A value already generated is kept (a seed's
 * pepper must stay the server's).
 */
function withFreshSecrets(text: string, example: string): string {
  const { privateKey, publicKey } = newPair();
  const vapid = vapidPair();
  const fresh: Record<string, string> = {
    JWT_PRIVATE_JWK: jwk(privateKey),
    JWT_PUBLIC_JWK: jwk(publicKey),
    PASSWORD_PEPPER: randomBytes(24).toString("base64url"),
    MFA_ENCRYPTION_KEY: randomBytes(32).toString("base64"),
    CHAT_HASH_SECRET: randomBytes(24).toString("base64url"),
    VAPID_PUBLIC_KEY: vapid.publicKey,
    VAPID_PRIVATE_JWK: vapid.privateJwk,
  };
  const exampleValue = (name: string) => new RegExp(`^${name}=(.*)$`, "m").exec(example)?.[1];
  return text.replace(/^([A-Z0-9_]+)=(.*)$/gm, (line, name: string, value: string) =>
    name in fresh && (value === "generated-by-npm-run-dev" || value === exampleValue(name)) ? `${name}=${fresh[name]}` : line,
  );
}

/**
 * First run: .dev.vars from .dev.vars.example, with a fresh ES256 key pair for ID tokens and
 * random local secrets. Later runs leave an existing .dev.vars alone. `npm test` starts three jobs
 * that each make sure of the file at once on a fresh clone, so it is written whole under another
 * name and put in place in one step, and only the first job's file stands: no job reads it half
 * written, and none keeps secrets another job replaced (a seed's pepper must be the server's).
 */
export function ensureDevVars(path = ".dev.vars"): boolean {
  const found = existsSync(path) ? readFileSync(path, "utf8") : null;
  const existing = found === null ? null : withVapidLines(found);
  if (existing !== null && !existing.includes("generated-by-npm-run-dev")) return false;
  const example = readFileSync(".dev.vars.example", "utf8");
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, withFreshSecrets(existing ?? example, example));
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
