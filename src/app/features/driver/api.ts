import type { InferResponseType } from "hono/client";
import { useCallback } from "react";
import useSWR, { type SWRConfiguration, type SWRResponse } from "swr";
import type { DriverFilters } from "../../../shared/driver-filters";
import { ApiClientError, api, asQuery, unwrap } from "../../lib/api-client";
import { type LiveEvent, offersAt, useLiveEvents, useLiveOpen, withOffer } from "./live-dashboard";

/**
 * The dashboard's live view: the engine's state and the offers are read again this often, unless
 * the live dashboard's socket is open (live-dashboard.ts): then its messages update them, and
 * nothing polls.
 */
export const LIVE_REFRESH_MS = 3000;

/** The polling of a live read: none while the driver's own socket is open (nor a read when the window gets focus). */
function polling(live: boolean): SWRConfiguration {
  return live ? { refreshInterval: 0, revalidateOnFocus: false, revalidateOnReconnect: false } : { refreshInterval: LIVE_REFRESH_MS };
}

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
  const own = driverId === undefined;
  const live = useLiveOpen() && own;
  const engine = useSWR(
    ["driver/engine", driverId ?? null],
    () => (own ? unwrap(driver.engine.$get()) : unwrap(actingFor.engine.$get({ param: driverParam(driverId) }))),
    // SWR keeps the answer it has (and re-renders nothing) when the new one is the same.
    { ...noRetryOn4xx, ...polling(live), compare: sameEngineView },
  );
  const { mutate } = engine;
  const onLive = useCallback(
    (e: LiveEvent) => {
      if (e.kind === "message" && e.message.type === "engine") void mutate(e.message.engine, { revalidate: false });
      // The clock words the service's expiry: it moves on between messages.
      else if (e.kind === "tick") void mutate((view) => view && { ...view, now: e.serverNow }, { revalidate: false });
    },
    [mutate],
  );
  useLiveEvents(own, onLive);
  return engine;
}

export function useOffers(query: { page: number; pageSize: number; status?: OfferStatus }, driverId?: number): SWRResponse<OffersPage, Error> {
  const q = asQuery(query);
  const own = driverId === undefined;
  const live = useLiveOpen() && own;
  const offers = useSWR(
    ["driver/offers", query, driverId ?? null],
    () => (own ? unwrap(driver.offers.$get({ query: q })) : unwrap(actingFor.offers.$get({ param: driverParam(driverId), query: q }))),
    { ...noRetryOn4xx, keepPreviousData: true, ...polling(live) },
  );
  const { mutate } = offers;
  const { page, pageSize, status } = query;
  const onLive = useCallback(
    (e: LiveEvent) => {
      // Opened (again): one read fills in what came while the socket was not open.
      if (e.kind === "open") void mutate();
      else if (e.kind === "message" && e.message.type === "offer") {
        const { offer, counts } = e.message;
        void mutate((p) => p && withOffer(p, { page, pageSize, status }, offer, counts), { revalidate: false });
      } else if (e.kind === "tick") void mutate((p) => p && offersAt(p, e.serverNow), { revalidate: false });
    },
    [mutate, page, pageSize, status],
  );
  useLiveEvents(own, onLive);
  return offers;
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
