/**
 * What a won block on the dashboard offers at a moment: "I've arrived" from an hour before it
 * starts until it ends, a forfeit until it starts. The Worker builds each offer row with it
 * (src/worker/platform/dashboard-view.ts); the SPA applies it again as the clock moves while the
 * live dashboard's socket brings no new row (src/app/features/driver/live-dashboard.ts).
 */

/** "I've arrived" is offered from this long before a block starts until it ends. */
export const CHECK_IN_OPENS_MS = 60 * 60_000;

type RowTimes = { status: "won" | "disliked" | "gone"; forfeitedAt: number | null; arrivedAt: number | null; startsAt: number; endsAt: number };

export function rowActions(r: RowTimes, now: number): { canCheckIn: boolean; canForfeit: boolean } {
  return {
    canCheckIn: r.status === "won" && !r.forfeitedAt && !r.arrivedAt && now >= r.startsAt - CHECK_IN_OPENS_MS && now < r.endsAt,
    canForfeit: r.status === "won" && !r.forfeitedAt && r.startsAt > now,
  };
}
