import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { ApiError } from "../errors";
import { documentAccess } from "../openapi";
import { signedInCaller } from "./session-user";

/** Every signed-in route: the caller's ID token, user and live session, checked by `signedInCaller` (session-user.ts). */
export const requireUser = documentAccess(
  createMiddleware<AppEnv>(async (c, next) => {
    const { user, sessionId, tokenExpiresAt } = await signedInCaller(c.var.db, c.env, c.req.header("Authorization"));
    c.set("user", user);
    c.set("sessionId", sessionId);
    c.set("tokenExpiresAt", tokenExpiresAt);
    await next();
  }),
  { signedIn: true },
);

/**
 * Signed in with a confirmed phone number. requireUser already refuses unconfirmed accounts; routes
 * that depend on a proven phone say so with this too, so the rule survives a change to requireUser.
 */
export const requireVerified = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.var.user?.phoneVerified) throw new ApiError("forbidden", "Confirm account to continue", { details: { reason: "unconfirmed" } });
  await next();
});

/** Administrators only (use after requireUser). */
export const requireAdmin = documentAccess(
  createMiddleware<AppEnv>(async (c, next) => {
    if (!c.var.user?.isAdmin) throw new ApiError("forbidden", "Administrators only");
    await next();
  }),
  { administrators: true },
);

/** Administrators whose role carries a property, e.g. `billingDetails` (use after requireAdmin). */
export function requireRoleProperty(property: "billingDetails") {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.var.user?.roleProperties?.[property]) throw new ApiError("forbidden", `Requires the ${property} permission`);
    await next();
  });
}

/** The owner role (use after requireAdmin). @public (owner-only admin routes use it) */
export const requireOwner = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.user?.roleName !== "owner") throw new ApiError("forbidden", "Only the owner may do this");
  await next();
});
