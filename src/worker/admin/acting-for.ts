import type { InsightPeriod } from "../../shared/insights";
import type { WhatIfRequest } from "../../shared/insights-requests";
import type { SessionUser } from "../context";
import { recordAudit, userTarget } from "../cross-cutting/audit";
import type { Db } from "../db/client";
import { offersPage, type offersQuerySchema } from "../driver/dashboard";
import { engineView, switchEngine } from "../driver/engine-view";
import { insightsReport, whatIf } from "../driver/insights";
import { ApiError } from "../errors";
import { notificationSettings } from "../notifications/settings";
import { engineOf } from "../platform/engine-client";
import { findDriver } from "./user-detail";

/**
 * A driver's screens as the driver sees them, for an administrator ("acting for", docs/admin.md):
 * the same answers as the driver's own routes, read-only but for the system switch and clearing a
 * signature hold, both audited. Opening the screens is audited once (user-detail.ts, openActingFor).
 */

type CaptureEnv = Pick<Env, "CAPTURE_SESSION" | "PLATFORM_CHECK_IN">;
type OffersQuery = ReturnType<typeof offersQuerySchema.parse>;

export const driversEngine = async (db: Db, env: CaptureEnv, id: number) => engineView(env, await findDriver(db, id));

export const driversOffers = async (db: Db, env: CaptureEnv, id: number, query: OffersQuery) => offersPage(env, (await findDriver(db, id)).id, query);

/** The driver's notification settings as their profile shows them (read only: the admin never changes a driver's channels or devices). */
export const driversNotifications = async (db: Db, env: Pick<Env, "VAPID_PUBLIC_KEY">, id: number) =>
  notificationSettings(db, env, (await findDriver(db, id)).id);

export const driversInsights = async (db: Db, env: CaptureEnv, id: number, days: InsightPeriod) => insightsReport(env, (await findDriver(db, id)).id, days);

/** A what-if for the driver: the admin may try filters, not apply them; it counts against the administrator's limit. */
export async function driversWhatIf(db: Db, env: CaptureEnv, admin: SessionUser, id: number, request: WhatIfRequest) {
  const driver = await findDriver(db, id);
  return whatIf(db, env, { driverId: driver.id, askedBy: admin.id }, request);
}

/** Any administrator may switch a driver's system for support: it changes no money or access and the driver can switch it back; audited with the reason and the outcome. */
export async function switchDriversEngine(db: Db, env: CaptureEnv, admin: SessionUser, id: number, change: { on: boolean; reason: string }) {
  const driver = await findDriver(db, id);
  const engine = await switchEngine(env, driver.id, change.on);
  await recordAudit(db, {
    actorId: admin.id,
    action: "admin.system_changed",
    target: userTarget(driver.id),
    details: { on: change.on, reason: change.reason, before: driver.status, state: engine.state },
  });
  return engine;
}

/** A 420 (a request signature asked for) holds the search or accepting until a signer is configured or an administrator clears it: the engine then tries again, once. Audited. */
export async function clearDriversHold(db: Db, env: CaptureEnv, admin: SessionUser, id: number) {
  const driver = await findDriver(db, id);
  const engine = await engineOf(env, driver.id).clearSignatureHold(driver.id);
  if (!engine) throw new ApiError("conflict", "The engine is not held for a signature", { details: { reason: "no_hold" } });
  await recordAudit(db, { actorId: admin.id, action: "admin.engine_hold_cleared", target: userTarget(driver.id), details: { state: engine.state } });
  return engine;
}
