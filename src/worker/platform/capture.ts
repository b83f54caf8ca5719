/**
 * How the rest of the Worker reaches a driver's CaptureSession Durable Object (one per driver,
 * named by the user id). Production code calls it through engine-client.ts (the engine) or
 * history-client.ts (the history's reads).
 */
import { createLogger } from "../log";

export function captureSessionOf(env: Pick<Env, "CAPTURE_SESSION">, userId: number) {
  return env.CAPTURE_SESSION.get(env.CAPTURE_SESSION.idFromName(`user:${userId}`));
}

/**
 * Payments call this after a successful payment: an engine that stopped because service expired
 * starts again if the driver may use it now (connected, filters set, paid); a running one reads
 * the new expiry at once. Never throws: a payment must not fail because of the engine.
 */
export async function resumeCapture(env: Pick<Env, "CAPTURE_SESSION">, userId: number): Promise<void> {
  try {
    await captureSessionOf(env, userId).resume(userId);
  } catch (err) {
    createLogger({ task: "capture", userId }).error("capture.resume_failed", { error: err instanceof Error ? err.message : String(err) });
  }
}
