import { lt } from "drizzle-orm";
import { dbFor } from "./db/client";
import { authChallenges, rateLimits, refreshTokens, verificationCodes } from "./db/schema";
import { createLogger } from "./log";

/** The cron trigger's work: drop expired codes, challenges, rate-limit windows and refresh tokens. */
export async function runHousekeeping(env: Env, now: number): Promise<void> {
  const db = dbFor(env.DB);
  const results = await db.batch([
    db.delete(verificationCodes).where(lt(verificationCodes.expiresAt, now - 24 * 3600_000)),
    db.delete(authChallenges).where(lt(authChallenges.expiresAt, now)),
    db.delete(rateLimits).where(lt(rateLimits.resetAt, now)),
    db.delete(refreshTokens).where(lt(refreshTokens.expiresAt, now)),
  ]);
  createLogger({ task: "housekeeping" }).info("housekeeping.done", { deleted: results.map((r) => r.meta.changes) });
}
