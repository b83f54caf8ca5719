/**
 * The demo owner, signed in through the API (password, then the TOTP challenge).
 *
 * The server accepts each TOTP step once, one step either side of now. Test files run one after
 * another against the same server, and a file may have used now + 1 already; so each code here is
 * for a step after the last one this process used, and when that step is not yet within reach
 * (later than now + 1) we wait for the clock to catch up.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import * as OTPAuth from "otpauth";
import { DEMO } from "../scripts/seed.ts";
import { baseUrl } from "./browser.ts";

export type Tokens = { idToken: string; refreshToken: string };

const STEP_MS = 30_000;
const totp = new OTPAuth.TOTP({ secret: OTPAuth.Secret.fromBase32(DEMO.owner.totp), digits: 6, period: 30 });
let lastStep = -1;
/** Test files run in processes of their own, one after another: the last step used is kept in a file too. */
const stepFile = process.env.E2E_OWNER_CACHE ? `${process.env.E2E_OWNER_CACHE}.step` : undefined;

function lastStepUsed(): number {
  if (!stepFile) return lastStep;
  try {
    return Math.max(lastStep, Number(readFileSync(stepFile, "utf8")) || -1);
  } catch {
    return lastStep;
  }
}

/** A code for a step no test of this run has used, within the server's window. */
export async function freshTotp(): Promise<string> {
  const now = Math.floor(Date.now() / STEP_MS);
  const step = Math.max(now, lastStepUsed() + 1);
  if (step > now + 1) await new Promise((r) => setTimeout(r, (step - 1) * STEP_MS - Date.now() + 250));
  lastStep = step;
  if (stepFile) writeFileSync(stepFile, String(step));
  return totp.generate({ timestamp: step * STEP_MS });
}

async function post<T>(path: string, body: unknown): Promise<{ status: number; data: T }> {
  const res = await fetch(`${baseUrl}${path}`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
  return { status: res.status, data: (await res.json()) as T };
}

/**
 * The run signs the owner in once: sign-in is limited per account (10 in 15 minutes), and each
 * test file runs in its own process, so the tokens are kept in a file e2e/run.ts clears first.
 * A kept session the server no longer accepts (a test that refreshed or signed out) is replaced.
 */
const cacheFile = process.env.E2E_OWNER_CACHE;

async function cached(): Promise<Tokens | undefined> {
  if (!cacheFile) return undefined;
  let tokens: Tokens;
  try {
    tokens = JSON.parse(readFileSync(cacheFile, "utf8")) as Tokens;
  } catch {
    return undefined;
  }
  const res = await fetch(`${baseUrl}/api/admin/settings`, { headers: { Authorization: `Bearer ${tokens.idToken}` } });
  return res.ok ? tokens : undefined;
}

/** Tokens for the owner, kept for the run; a TOTP step another file used is skipped (at most three are tried). */
export async function signInOwner(): Promise<Tokens> {
  const kept = await cached();
  if (kept) return kept;
  const tokens = await signInOwnerAgain();
  if (cacheFile) writeFileSync(cacheFile, JSON.stringify(tokens));
  return tokens;
}

async function signInOwnerAgain(): Promise<Tokens> {
  let last = "";
  for (let attempt = 0; attempt < 4; attempt++) {
    const first = await post<{ challenge?: string; session?: string }>("/api/auth/sign-in", {
      phoneNumber: DEMO.owner.phone,
      app: "flex",
      password: DEMO.owner.password,
    });
    assert.equal(first.data.challenge, "SOFTWARE_TOKEN_MFA", `owner sign-in answered ${first.status}: ${JSON.stringify(first.data)}`);
    const answer = await post<{ tokens?: Tokens }>("/api/auth/respond", {
      challenge: "SOFTWARE_TOKEN_MFA",
      session: first.data.session,
      code: await freshTotp(),
    });
    if (answer.data.tokens) return answer.data.tokens;
    last = `${answer.status}: ${JSON.stringify(answer.data)}`;
  }
  throw new Error(`the owner could not sign in (last answer ${last})`);
}
