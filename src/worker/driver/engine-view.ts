import type { users } from "../db/schema";
import { ApiError } from "../errors";
import { engineViewOf } from "../platform/dashboard-view";
import { engineOf } from "../platform/engine-client";

/**
 * The engine on the driver's dashboard: its state with the service it depends on, and the switch.
 * The driver's own routes (routes/driver.ts) and the admin's view of a driver (routes/admin-users.ts,
 * "acting for") answer from these, so both see the same thing.
 */

type Driver = Pick<typeof users.$inferSelect, "id" | "expirationAt" | "goodStanding" | "isAdmin">;

/** What the engine is doing, and the service time it runs on. */
export async function engineView(env: Pick<Env, "CAPTURE_SESSION">, driver: Driver, now = Date.now()) {
  const engine = await engineOf(env, driver.id).status(driver.id);
  return engineViewOf(engine, driver, now);
}

/** The system switch: off always works; on says why it could not start (a 409 with the reason). */
export async function switchEngine(env: Pick<Env, "CAPTURE_SESSION">, userId: number, on: boolean) {
  const engine = engineOf(env, userId);
  if (!on) return engine.stop(userId);
  const status = await engine.start(userId);
  if (status.state === "stopped") {
    const messages = {
      expired: "Your service has expired: renew it to turn the system on",
      disconnected: "Connect your account first",
      setup: "Set your filters first",
      driver: "The system could not start",
    } as const;
    throw new ApiError("conflict", messages[status.reason], { details: { reason: status.reason } });
  }
  return status;
}

/** The driver solved the platform's captcha on its side: the next matching offer gets one accept try. 409 when accepting is not waiting for one. */
export async function captchaSolved(env: Pick<Env, "CAPTURE_SESSION">, userId: number) {
  const engine = await engineOf(env, userId).captchaSolved(userId);
  if (!engine) throw new ApiError("conflict", "Accepting is not waiting for a captcha", { details: { reason: "no_captcha" } });
  return engine;
}
