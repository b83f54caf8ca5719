import { createLogger } from "./log";

/** The cron trigger's work: drop expired codes, challenges, rate-limit windows and refresh tokens. */
export async function runHousekeeping(env: Env, now: number): Promise<void> {
  const results = await env.DB.batch([
    env.DB.prepare("DELETE FROM verification_codes WHERE expires_at < ?").bind(now - 24 * 3600_000),
    env.DB.prepare("DELETE FROM auth_challenges WHERE expires_at < ?").bind(now),
    env.DB.prepare("DELETE FROM rate_limits WHERE reset_at < ?").bind(now),
    env.DB.prepare("DELETE FROM refresh_tokens WHERE expires_at < ?").bind(now),
  ]);
  createLogger({ task: "housekeeping" }).info("housekeeping.done", { deleted: results.map((r) => r.meta.changes) });
}
