import { and, desc, eq, gt, isNull, lt, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { verificationCodes } from "../db/schema";
import { ApiError } from "../errors";
import { timingSafeEqual, toBase64Url } from "./password";
import { randomCode } from "./random";

/**
 * SMS verification codes: 6 digits from the CSPRNG, stored only as an HMAC keyed with the
 * password pepper (a leaked table does not reveal live codes, and 10^6 candidates cannot be
 * brute-forced offline without the pepper), single use, ten minutes, dead after five tries. Only
 * the newest code of a phone and purpose counts, so resending invalidates the previous one.
 */
export const CODE_TTL_MS = 10 * 60_000;
export const CODE_MAX_ATTEMPTS = 5;

export type CodePurpose = (typeof verificationCodes.$inferSelect)["purpose"];
export type CodeSubject = { app: "flex" | "spark"; phone: string; purpose: CodePurpose };

const encoder = new TextEncoder();

/** The subject is part of the MAC, so a code issued for one phone or purpose never matches another. */
async function hashCode(pepper: string, subject: CodeSubject, code: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(pepper), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, encoder.encode(`code|${subject.app}|${subject.phone}|${subject.purpose}|${code}`));
  return toBase64Url(mac);
}

/** Stores a fresh code for the subject and returns it in clear, for the caller to send. */
export async function issueCode(db: Db, pepper: string, subject: CodeSubject, now = Date.now()): Promise<string> {
  const code = randomCode();
  await db.insert(verificationCodes).values({
    ...subject,
    codeHash: await hashCode(pepper, subject, code),
    expiresAt: now + CODE_TTL_MS,
    createdAt: now,
  });
  return code;
}

export type CodeFailure = "mismatch" | "expired" | "used" | "exhausted" | "missing";

const failureMessages: Record<CodeFailure, string> = {
  mismatch: "Incorrect code",
  missing: "Incorrect code",
  expired: "This code has expired. Request a new one",
  used: "This code has already been used. Request a new one",
  exhausted: "Too many wrong tries. Request a new code",
};

/** A refused code. `wrongGuess`: a code was compared and did not match (what the daily lockout counts). */
export class CodeRefusal extends ApiError {
  constructor(
    reason: CodeFailure,
    attemptsLeft: number | undefined,
    readonly wrongGuess: boolean,
  ) {
    super("bad_request", failureMessages[reason], { details: attemptsLeft === undefined ? { reason } : { reason, attemptsLeft } });
  }
}

export function codeError(reason: CodeFailure, attemptsLeft?: number, wrongGuess = reason === "mismatch"): CodeRefusal {
  return new CodeRefusal(reason, attemptsLeft, wrongGuess);
}

export const isWrongGuess = (err: unknown): boolean => err instanceof CodeRefusal && err.wrongGuess;

/**
 * Checks a code and consumes it, or throws a 400 saying why not. An attempt is claimed (attempts
 * + 1, conditional on fewer than five so far) before the comparison, so concurrent guesses cannot
 * get more than five comparisons between them.
 */
export async function consumeCode(db: Db, pepper: string, subject: CodeSubject, code: string, now = Date.now()): Promise<void> {
  const latest = await db
    .select()
    .from(verificationCodes)
    .where(and(eq(verificationCodes.app, subject.app), eq(verificationCodes.phone, subject.phone), eq(verificationCodes.purpose, subject.purpose)))
    .orderBy(desc(verificationCodes.createdAt), desc(verificationCodes.id))
    .limit(1)
    .get();
  if (!latest) throw codeError("missing");
  if (latest.consumedAt !== null) throw codeError("used");
  if (latest.expiresAt <= now) throw codeError("expired");
  if (latest.attempts >= CODE_MAX_ATTEMPTS) throw codeError("exhausted");

  const claimed = await db
    .update(verificationCodes)
    .set({ attempts: sql`${verificationCodes.attempts} + 1` })
    .where(
      and(
        eq(verificationCodes.id, latest.id),
        lt(verificationCodes.attempts, CODE_MAX_ATTEMPTS),
        isNull(verificationCodes.consumedAt),
        gt(verificationCodes.expiresAt, now),
      ),
    )
    .returning({ attempts: verificationCodes.attempts, codeHash: verificationCodes.codeHash })
    .get();
  // Another request used the last attempt or the code between our read and this claim.
  if (!claimed) throw codeError("exhausted");

  const expected = encoder.encode(claimed.codeHash);
  const actual = encoder.encode(await hashCode(pepper, subject, code));
  if (!timingSafeEqual(expected, actual)) {
    const attemptsLeft = CODE_MAX_ATTEMPTS - claimed.attempts;
    throw attemptsLeft > 0 ? codeError("mismatch", attemptsLeft) : codeError("exhausted", undefined, true);
  }

  const consumed = await db
    .update(verificationCodes)
    .set({ consumedAt: now })
    .where(and(eq(verificationCodes.id, latest.id), isNull(verificationCodes.consumedAt)))
    .returning({ id: verificationCodes.id })
    .get();
  if (!consumed) throw codeError("used");
}

/** The SMS text for a code, in the user's language. Short, so the Spanish UCS-2 text fits one segment. */
export function codeMessage(purpose: CodePurpose, language: "en" | "es", code: string): string {
  const texts = {
    en: {
      confirm: `Your Blockpilot verification code is ${code}. It expires in 10 minutes.`,
      reset: `Your Blockpilot password reset code is ${code}. It expires in 10 minutes.`,
      "sign-in": `Your Blockpilot sign-in code is ${code}. It expires in 10 minutes.`,
      mfa: `Your Blockpilot security code is ${code}. It expires in 10 minutes.`,
      "delete-account": `Your Blockpilot code to DELETE your account is ${code}. It expires in 10 minutes.`,
    },
    es: {
      confirm: `Blockpilot: tu código de verificación es ${code}. Vence en 10 min.`,
      reset: `Blockpilot: código para nueva contraseña: ${code}. Vence en 10 min.`,
      "sign-in": `Blockpilot: tu código para entrar es ${code}. Vence en 10 min.`,
      mfa: `Blockpilot: tu código de seguridad es ${code}. Vence en 10 min.`,
      "delete-account": `Blockpilot: código para ELIMINAR tu cuenta: ${code}. Vence en 10 min.`,
    },
  } as const;
  return texts[language][purpose];
}
