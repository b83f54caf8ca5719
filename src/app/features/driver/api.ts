import type { InferResponseType } from "hono/client";
import useSWR, { type SWRConfiguration, type SWRResponse } from "swr";
import type { DriverFilters } from "../../../shared/driver-filters";
import { ApiClientError, api, asQuery, unwrap } from "../../lib/api-client";

/** The dashboard's live view: the engine's state and the offers are read again this often. */
export const LIVE_REFRESH_MS = 3000;

const noRetryOn4xx: SWRConfiguration = {
  shouldRetryOnError: (err: Error) => !(err instanceof ApiClientError && err.status >= 400 && err.status < 500),
};

const driver = api.driver;

export type ConnectionView = InferResponseType<typeof driver.connection.$get, 200>;
export type EngineView = InferResponseType<typeof driver.engine.$get, 200>;
export type EngineStatus = EngineView["engine"];
export type OffersPage = InferResponseType<typeof driver.offers.$get, 200>;
export type OfferRow = OffersPage["rows"][number];
export type StationsView = InferResponseType<typeof driver.stations.$get, 200>;
export type Station = StationsView["stations"][number];
export type SignInAttempt = InferResponseType<(typeof driver.connection)["sign-in"]["$post"], 201>;
export type FiltersView = InferResponseType<typeof driver.filters.$get, 200>;
export type CalendarView = InferResponseType<typeof driver.calendar.$get, 200>;
export type OfferStatus = "won" | "disliked" | "gone";

/** The driver's calls; errors are thrown (ApiClientError) for the screens to word. */
export const driverApi = {
  /** Spark: the modelled sign-in's email and password. */
  connect: (email: string, password: string) => unwrap(driver.connection.$post({ json: { email, password } })),
  /** Flex: a new attempt at the platform's own sign-in page (it replaces any earlier one). */
  startSignIn: () => unwrap(driver.connection["sign-in"].$post()),
  /** Flex: the address the platform's sign-in landed on, pasted by the driver. */
  sendLanding: (attemptId: string, landingUrl: string) => unwrap(driver.connection.landing.$post({ json: { attemptId, landingUrl } })),
  answerCode: (attemptId: string, code: string) => unwrap(driver.connection.code.$post({ json: { attemptId, code } })),
  checkApproval: (attemptId: string) => unwrap(driver.connection.approval.$post({ json: { attemptId } })),
  cancelAttempt: (attemptId: string) => unwrap(driver.connection.attempts[":id"].$delete({ param: { id: attemptId } })),
  setStationZone: (id: string, timeZone: string) => unwrap(driver.stations[":id"]["time-zone"].$put({ param: { id }, json: { timeZone } })),
  resetStationZone: (id: string) => unwrap(driver.stations[":id"]["time-zone"].$delete({ param: { id } })),
  saveFilters: (filters: DriverFilters) => unwrap(driver.filters.$put({ json: filters })),
  setSystem: (on: boolean) => unwrap(driver.engine.$post({ json: { on } })),
  arrive: (id: number) => unwrap(driver.offers[":id"].arrive.$post({ param: { id: String(id) } })),
  /** 200 when forfeited; 202 `{ queued, sendsAt }` while the platform limits the account (sent when the lockout ends). */
  forfeit: (id: number) => unwrap(driver.offers[":id"].forfeit.$post({ param: { id: String(id) } })),
  /** The driver solved the platform's captcha on its side: accepting gets one try (409 `no_captcha` when nothing is held). */
  captchaSolved: () => unwrap(driver.engine["captcha-solved"].$post()),
};

export function useConnection(): SWRResponse<ConnectionView, Error> {
  return useSWR(["driver/connection"], () => unwrap(driver.connection.$get()), noRetryOn4xx);
}

export function useStations(): SWRResponse<StationsView, Error> {
  return useSWR(["driver/stations"], () => unwrap(driver.stations.$get()), { ...noRetryOn4xx, revalidateOnFocus: false });
}

export function useFilters(): SWRResponse<FiltersView, Error> {
  return useSWR(["driver/filters"], () => unwrap(driver.filters.$get()), { ...noRetryOn4xx, revalidateOnFocus: false });
}

/**
 * A driver's dashboard as an administrator sees it ("acting for", /admin/users/:id/dashboard): the
 * same answers as the driver's own routes, read through the admin's.
 */
const actingFor = api.admin.users[":id"].dashboard;
const driverParam = (driverId: number) => ({ id: String(driverId) });

/** How far the server's clock in an engine answer may move before the answer counts as new. */
export const ENGINE_CLOCK_STEP_MS = 60_000;

/**
 * Whether two engine answers show the same thing. Every answer carries the server's clock, which
 * alone would make each 3 s poll new and re-render the dashboard; the clock only words the
 * service's expiry ("expires in 2 days", "in 3 hours"), so it counts once it has moved a minute.
 */
export function sameEngineView(a: EngineView | undefined, b: EngineView | undefined): boolean {
  if (!a || !b) return a === b;
  return Math.abs(a.now - b.now) < ENGINE_CLOCK_STEP_MS && JSON.stringify({ ...a, now: 0 }) === JSON.stringify({ ...b, now: 0 });
}

/** The engine's state: the signed-in driver's, or (administrators) the driver `driverId`'s. */
export function useEngine(driverId?: number): SWRResponse<EngineView, Error> {
  return useSWR(
    ["driver/engine", driverId ?? null],
    () => (driverId === undefined ? unwrap(driver.engine.$get()) : unwrap(actingFor.engine.$get({ param: driverParam(driverId) }))),
    // SWR keeps the answer it has (and re-renders nothing) when the new one is the same.
    { ...noRetryOn4xx, refreshInterval: LIVE_REFRESH_MS, compare: sameEngineView },
  );
}

export function useOffers(query: { page: number; pageSize: number; status?: OfferStatus }, driverId?: number): SWRResponse<OffersPage, Error> {
  const q = asQuery(query);
  return useSWR(
    ["driver/offers", query, driverId ?? null],
    () => (driverId === undefined ? unwrap(driver.offers.$get({ query: q })) : unwrap(actingFor.offers.$get({ param: driverParam(driverId), query: q }))),
    {
      ...noRetryOn4xx,
      keepPreviousData: true,
      refreshInterval: LIVE_REFRESH_MS,
    },
  );
}

/** A week's calendar: the caller's own, or (administrators) another driver's by phone number. */
export function useCalendar(week: string, phoneNumber?: string): SWRResponse<CalendarView, Error> {
  return useSWR(
    ["driver/calendar", week, phoneNumber ?? null],
    () =>
      phoneNumber
        ? unwrap(driver.calendar[":phoneNumber"].$get({ param: { phoneNumber }, query: { week } }))
        : unwrap(driver.calendar.$get({ query: { week } })),
    { ...noRetryOn4xx, keepPreviousData: true },
  );
}

/** How long a 429 said to wait (`details.retryAfterSeconds` of the envelope), when it said. */
export function retryAfterSeconds(err: unknown): number | null {
  if (!(err instanceof ApiClientError) || err.status !== 429) return null;
  const seconds = (err.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
  return typeof seconds === "number" && Number.isFinite(seconds) && seconds > 0 ? seconds : null;
}

/** The platform failure behind an API error ("refused", "challenge_over"…), when the server said. */
export function platformReason(err: unknown): string | null {
  if (!(err instanceof ApiClientError)) return null;
  const reason = (err.details as { reason?: unknown } | undefined)?.reason;
  return typeof reason === "string" ? reason : null;
}
