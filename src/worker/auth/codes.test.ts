import { env } from "cloudflare:test";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { countSms } from "../../shared/sms";
import { verificationCodes } from "../db/schema";
import { ApiError } from "../errors";
import { db, uniquePhone } from "../test/fixtures";
import { CODE_TTL_MS, type CodeSubject, codeMessage, consumeCode, issueCode } from "./codes";

const pepper = env.PASSWORD_PEPPER;
const subject = (purpose: CodeSubject["purpose"] = "confirm"): CodeSubject => ({ app: "flex", phone: uniquePhone(), purpose });

async function failure(promise: Promise<unknown>): Promise<{ status: number; reason: string; attemptsLeft?: number }> {
  try {
    await promise;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    const details = err.details as { reason: string; attemptsLeft?: number };
    return { status: err.status, ...details };
  }
  throw new Error("expected the code to be refused");
}

const wrong = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, "0");

describe("verification codes", () => {
  it("stores only a keyed hash, valid for ten minutes", async () => {
    const s = subject();
    const now = 1_900_000_000_000;
    const code = await issueCode(db, pepper, s, now);
    const row = await db
      .select()
      .from(verificationCodes)
      .where(and(eq(verificationCodes.phone, s.phone)))
      .get();
    expect(row?.codeHash).not.toContain(code);
    expect(row?.codeHash).toMatch(/^[\w-]{43}$/);
    expect(row?.expiresAt).toBe(now + CODE_TTL_MS);
    expect(CODE_TTL_MS).toBe(600_000);
  });

  it("accepts the right code once", async () => {
    const s = subject();
    const code = await issueCode(db, pepper, s);
    await consumeCode(db, pepper, s, code);
    expect(await failure(consumeCode(db, pepper, s, code))).toEqual({ status: 400, reason: "used" });
  });

  it("counts wrong tries and dies after five, even for the right code", async () => {
    const s = subject();
    const code = await issueCode(db, pepper, s);
    for (let left = 4; left >= 1; left--) {
      expect(await failure(consumeCode(db, pepper, s, wrong(code)))).toEqual({ status: 400, reason: "mismatch", attemptsLeft: left });
    }
    expect(await failure(consumeCode(db, pepper, s, wrong(code)))).toEqual({ status: 400, reason: "exhausted" });
    expect(await failure(consumeCode(db, pepper, s, code))).toEqual({ status: 400, reason: "exhausted" });
  });

  it("lets concurrent guesses share the five attempts", async () => {
    const s = subject();
    const code = await issueCode(db, pepper, s);
    const guesses = Array.from({ length: 12 }, (_, i) => String((Number(code) + 1 + i) % 1_000_000).padStart(6, "0"));
    await Promise.allSettled(guesses.map((g) => consumeCode(db, pepper, s, g)));
    const row = await db.select().from(verificationCodes).where(eq(verificationCodes.phone, s.phone)).get();
    expect(row?.attempts).toBe(5);
    expect(await failure(consumeCode(db, pepper, s, code))).toEqual({ status: 400, reason: "exhausted" });
  });

  it("expires after ten minutes", async () => {
    const s = subject();
    const issuedAt = 1_900_000_000_000;
    const code = await issueCode(db, pepper, s, issuedAt);
    expect(await failure(consumeCode(db, pepper, s, code, issuedAt + CODE_TTL_MS))).toEqual({ status: 400, reason: "expired" });
    const t = subject();
    const fresh = await issueCode(db, pepper, t, issuedAt);
    await consumeCode(db, pepper, t, fresh, issuedAt + CODE_TTL_MS - 1);
  });

  it("only the newest code of a phone and purpose counts", async () => {
    const s = subject();
    const first = await issueCode(db, pepper, s);
    const second = await issueCode(db, pepper, s);
    if (first !== second) expect((await failure(consumeCode(db, pepper, s, first))).reason).toBe("mismatch");
    await consumeCode(db, pepper, s, second);
  });

  it("binds a code to its phone, app and purpose", async () => {
    const s = subject("confirm");
    const code = await issueCode(db, pepper, s);
    expect((await failure(consumeCode(db, pepper, { ...s, purpose: "reset" }, code))).reason).toBe("missing");
    expect((await failure(consumeCode(db, pepper, { ...s, app: "spark" }, code))).reason).toBe("missing");
    // Copy the row to another phone: the hash does not match there.
    const other = { ...s, phone: uniquePhone() };
    const row = await db.select().from(verificationCodes).where(eq(verificationCodes.phone, s.phone)).get();
    await db.insert(verificationCodes).values({ ...other, codeHash: row!.codeHash, expiresAt: row!.expiresAt });
    expect((await failure(consumeCode(db, pepper, other, code))).reason).toBe("mismatch");
    await consumeCode(db, pepper, s, code);
  });

  it("texts each code in one SMS segment, in English and Spanish", () => {
    for (const language of ["en", "es"] as const) {
      for (const purpose of ["confirm", "reset", "sign-in", "mfa", "delete-account"] as const) {
        const text = codeMessage(purpose, language, "012345");
        expect(text).toContain("012345");
        expect(countSms(text).messages, text).toBe(1);
      }
    }
    expect(codeMessage("confirm", "es", "111111")).toMatch(/^Blockpilot: tu código de verificación/);
  });
});
