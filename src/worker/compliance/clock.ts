/**
 * The clock the messaging rules read (quiet hours, deferral, the review's "until when"). The
 * end-to-end run stands it at a chosen hour (COMPLIANCE_CLOCK_OFFSET_MS, milliseconds added to
 * the real clock) so a browser test can watch a campaign "created at 22:00 Eastern"; pacing,
 * leases, tokens and everything else keep the real clock. The setting is refused, loudly, in
 * production: there no message may be judged by any clock but the real one.
 */
type ClockEnv = Pick<Env, "ENVIRONMENT">;

export function complianceNow(env: ClockEnv, real = Date.now()): number {
  const raw = (env as ClockEnv & { COMPLIANCE_CLOCK_OFFSET_MS?: string }).COMPLIANCE_CLOCK_OFFSET_MS;
  if (raw === undefined || raw === "") return real;
  if (env.ENVIRONMENT === "production") throw new Error("COMPLIANCE_CLOCK_OFFSET_MS is a test setting; it cannot be used in production");
  const offset = Number(raw);
  if (!Number.isFinite(offset)) throw new Error(`COMPLIANCE_CLOCK_OFFSET_MS must be a number of milliseconds, not "${raw}"`);
  return real + offset;
}
