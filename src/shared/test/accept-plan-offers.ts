/** The accept plan's tests: offers placed in hours after a fixed instant, at stations in UTC, Los Angeles and an unknown zone. */
import type { OfferLike } from "../accept-plan";

/** An offer as the platform lists it (the plan hands back the type it is given). */
export type PlatformOffer = OfferLike & { expiresAt: number; hidden: boolean };

const MIN = 60_000;
export const HOUR = 60 * MIN;
/** Wednesday 2031-03-12, 00:00 UTC: offers are placed in hours after it. */
export const T0 = Date.parse("2031-03-12T00:00:00Z");
const LA = "America/Los_Angeles";
export const stations = new Map([
  ["S1", { timeZone: "UTC" }],
  ["LA", { timeZone: LA }],
  ["MARS", { timeZone: "Mars/Olympus_Mons" }],
]);

/** An offer `id` from hour `from` to hour `to` after T0, paying `dollars`. */
export function offer(id: string, from: number, to: number, dollars: number, over: Partial<PlatformOffer> = {}): PlatformOffer {
  return { id, stationId: "S1", startsAt: T0 + from * HOUR, endsAt: T0 + to * HOUR, payCents: dollars * 100, expiresAt: T0, hidden: false, ...over };
}
export const span = (from: number, to: number) => ({ startsAt: T0 + from * HOUR, endsAt: T0 + to * HOUR });
export const ids = (list: { id: string }[]) => list.map((o) => o.id);
