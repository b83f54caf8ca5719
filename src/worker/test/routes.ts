import { inspectRoutes } from "hono/dev";

export type RegisteredRoute = { method: string; path: string };

/**
 * The routes an app really answers: one entry per method and path that has a handler. Handlers
 * registered with `.all()` count (method "ALL"); middleware (`use`, validators, guards) does not.
 */
export function registeredRoutes(app: { routes: unknown }): RegisteredRoute[] {
  const seen = new Map<string, RegisteredRoute>();
  // Any app's routes, whatever its environment type (inspectRoutes only reads `routes`).
  for (const r of inspectRoutes(app as Parameters<typeof inspectRoutes>[0]))
    if (!r.isMiddleware) seen.set(`${r.method} ${r.path}`, { method: r.method, path: r.path });
  return [...seen.values()];
}

/** The methods a route is called with in the route tables: an `.all()` route with a read and a write. */
export const methodsOf = (method: string) => (method === "ALL" ? ["GET", "POST"] : [method]);
