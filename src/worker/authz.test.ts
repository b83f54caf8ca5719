/**
 * Who may call what, part one: the authorization table (test/authz-table.ts) lists every route the
 * app has, and the routes open to anyone or to signed-in users answer each kind of caller as it
 * says. The console's routes are checked in authz-admin.test.ts, permissions that depend on the
 * request body in authz-body-rules.test.ts.
 */
import { Hono } from "hono";
import { beforeAll, describe, expect, it } from "vitest";
import { app } from "./app";
import { answersAsListed, ROUTES, startCallerSessions, USER_ROUTES } from "./test/authz-table";
import { registeredRoutes } from "./test/routes";

beforeAll(startCallerSessions);

describe("authorization table", () => {
  it("lists every route the app has, `.all()` ones included, and only those", () => {
    const listed = new Set(ROUTES.map((r) => `${r.method} ${r.path}`));
    const registered = registeredRoutes(app).map((r) => `${r.method} ${r.path}`);
    const missing = registered.filter((key) => !listed.has(key));
    const stale = [...listed].filter((key) => !registered.includes(key));
    expect(missing, "routes without a row in ROUTES (add one line each)").toEqual([]);
    expect(stale, "rows in ROUTES for routes that no longer exist").toEqual([]);
    expect(listed.size, "duplicate rows in ROUTES").toBe(ROUTES.length);
  });

  it("sees handlers registered with .all() (and not middleware)", () => {
    const sample = new Hono().use(async (_c, next) => next()).all("/anything", (c) => c.text("ok"));
    expect(registeredRoutes(sample)).toEqual([{ method: "ALL", path: "/anything" }]);
  });

  answersAsListed(USER_ROUTES);
});
