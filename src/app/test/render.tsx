/**
 * The app tests' harness: a driver, a signed-in session, an API stubbed path by path, and a screen
 * rendered inside a router, a session and a fresh SWR cache (src/app/test/admin-harness.tsx adds
 * the console's signed-in admins and a route-matching API stub on top).
 */
import { render } from "@testing-library/react";
import { HttpResponse, type HttpResponseResolver, http } from "msw";
import { createMemoryRouter, type PatchRoutesOnNavigationFunction, type RouteObject, RouterProvider } from "react-router";
import { SWRConfig } from "swr";
import { Toaster } from "../components/ui/Toast";
import { type SessionValue, StaticSessionProvider, signedOutSession, type User } from "../lib/session";
import { apiServer } from "./api-server";

/** A driver in good standing with setup done; tests change what they are about. */
export function aDriver(over: Partial<User> = {}): User {
  return {
    id: 7,
    name: "Dana Driver",
    phoneNumber: "+13055550123",
    email: null,
    goodStanding: true,
    expirationDateTimestamp: null,
    expirationDate: null,
    createDateTimestamp: 0,
    humanRegion: "Miami",
    driverOptions: { deliveryArea: null },
    accountConnected: true,
    setupComplete: true,
    isAdmin: false,
    referral: null,
    status: "start",
    stripeExpressId: null,
    role: null,
    app: "flex",
    language: "en",
    phoneNumberVerified: true,
    mfaMethod: "none",
    inviteCode: "K7Q2M9XW",
    ...over,
  };
}

/** `user` signed in (tokens present); `over` replaces the session's functions or state. */
export function signedIn(user: User, over: Partial<SessionValue> = {}): SessionValue {
  return { ...signedOutSession, session: { idToken: "i", refreshToken: "r" }, user, ...over };
}

type Reply = { status?: number; body?: unknown };
export type ApiCall = { method: string; path: string; body: unknown };

const notFound: Reply = { status: 404, body: { error: { code: "not_found", message: "Not found" } } };

/**
 * Answers the API for the running test (msw, src/app/test/api-server.ts): each path (without its
 * query) answers from its queue, the last answer repeating; an unknown path answers 404. Every
 * request is kept, in order, with its JSON body.
 */
export function stubApi(answers: Record<string, Reply | Reply[]>): ApiCall[] {
  const calls: ApiCall[] = [];
  const answer =
    (queue: Reply[]): HttpResponseResolver =>
    async ({ request }) => {
      const call: ApiCall = { method: request.method, path: new URL(request.url).pathname, body: undefined };
      calls.push(call);
      const text = await request.clone().text();
      if (text) call.body = JSON.parse(text);
      const reply = queue.length > 1 ? queue.shift()! : queue[0]!;
      return HttpResponse.json(reply.body ?? {}, { status: reply.status ?? 200 });
    };
  apiServer.use(
    ...Object.entries(answers).map(([path, replies]) =>
      http.all(({ request }) => new URL(request.url).pathname === path, answer(Array.isArray(replies) ? [...replies] : [replies])),
    ),
    http.all("*", answer([notFound])),
  );
  return calls;
}

type RenderOptions = {
  /** Where the router starts. */
  path: string;
  /** Signed out when absent. */
  session?: SessionValue;
  /** Render the toasts too (screens whose outcome is a toast). */
  toaster?: boolean;
  /** Lazy route tables (the real router) patch routes on navigation. */
  patchRoutesOnNavigation?: PatchRoutesOnNavigationFunction;
};

/** Renders `routes` at `path` inside a router, a session and a fresh SWR cache; returns the router. */
export function renderRoutes(routes: RouteObject[], { path, session = signedOutSession, toaster, patchRoutesOnNavigation }: RenderOptions) {
  const router = createMemoryRouter(routes, { initialEntries: [path], patchRoutesOnNavigation });
  render(
    <StaticSessionProvider value={session}>
      <SWRConfig value={{ provider: () => new Map(), dedupingInterval: 0 }}>
        <RouterProvider router={router} />
      </SWRConfig>
      {toaster && <Toaster />}
    </StaticSessionProvider>,
  );
  return router;
}
