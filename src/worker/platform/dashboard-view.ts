/**
 * The driver dashboard's two shapes, built in one place: the engine's view (GET /api/driver/engine)
 * and an offer's row (the rows of GET /api/driver/offers). The routes (driver/engine-view.ts,
 * driver/dashboard.ts) and the live socket (live-dashboard.ts, in the driver's object) send what
 * these build, so a row or a view over the socket is the one a read would have answered.
 */
import { rowActions } from "../../shared/offer-row-actions";
import { isInGoodStanding } from "../auth/user-item";
import type { users } from "../db/schema";
import type { EngineStatus } from "./engine-status";
import type { WithForfeitQueued } from "./history-reads";

/** The service the engine runs on, as the dashboard needs it. */
export type ServiceFields = Pick<typeof users.$inferSelect, "expirationAt" | "goodStanding">;

/** What the engine is doing, and the service time it runs on. */
export function engineViewOf(engine: EngineStatus, service: ServiceFields, now: number) {
  return { engine, service: { expiresAt: service.expirationAt, goodStanding: isInGoodStanding(service, now) }, now };
}

export type EngineView = ReturnType<typeof engineViewOf>;

/** One row of the dashboard's offers; `checkInAvailable`: the modelled check-in is configured (PLATFORM_CHECK_IN). */
export function offerRowOf(r: WithForfeitQueued, now: number, checkInAvailable: boolean) {
  return {
    id: r.id,
    status: r.status,
    stationId: r.stationId,
    stationName: r.stationName,
    timeZone: r.timeZone,
    startsAt: r.startsAt,
    endsAt: r.endsAt,
    payCents: r.payCents,
    reasons: r.reasons,
    seenAt: r.seenAt,
    forfeitedAt: r.forfeitedAt,
    // A forfeit asked during the platform's lockout: when it was asked (it is sent when the lockout ends).
    forfeitQueuedAt: r.forfeitQueuedAt,
    arrivedAt: r.arrivedAt,
    // "I've arrived" near the block's time, a forfeit before it starts (the SPA applies the same rule as its clock moves).
    ...rowActions(r, now),
    // A won block gets the id a forfeit names from the platform's schedule: until then it cannot be forfeited yet.
    forfeitable: r.status === "won" && r.blockId !== null,
    checkInAvailable: r.status === "won" && checkInAvailable,
  };
}
