import { eq } from "drizzle-orm";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../context";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import { verifyIdToken } from "./tokens";

export type SessionUser = typeof users.$inferSelect;

/**
 * Every signed-in route: a valid ID token, and the user it names still exists. The user row is
 * read fresh so a demoted admin or a deleted account loses access at once, not after an hour.
 */
export const requireUser = createMiddleware<AppEnv>(async (c, next) => {
  const header = c.req.header("Authorization") ?? "";
  const token = header.startsWith("Bearer ") ? header.slice(7).trim() : "";
  if (!token) throw new ApiError("unauthorized", "Sign in to continue");
  const result = await verifyIdToken(c.env, token);
  if (!result.ok) throw new ApiError("unauthorized", result.reason === "expired" ? "Session expired" : "Invalid token");
  const id = Number(result.claims.sub);
  const user = Number.isInteger(id) ? await c.var.db.query.users.findFirst({ where: eq(users.id, id) }) : undefined;
  if (!user) throw new ApiError("unauthorized", "Invalid token");
  c.set("user", user);
  await next();
});

/** Signed in with a confirmed phone number. */
export const requireVerified = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.var.user?.phoneVerified) throw new ApiError("forbidden", "Confirm account to continue");
  await next();
});

/** Administrators only (use after requireUser). */
export const requireAdmin = createMiddleware<AppEnv>(async (c, next) => {
  if (!c.var.user?.isAdmin) throw new ApiError("forbidden", "Administrators only");
  await next();
});

/** Administrators whose role carries a property, e.g. `billingDetails` (use after requireAdmin). */
export function requireRoleProperty(property: "billingDetails") {
  return createMiddleware<AppEnv>(async (c, next) => {
    if (!c.var.user?.roleProperties?.[property]) throw new ApiError("forbidden", `Requires the ${property} permission`);
    await next();
  });
}

/** The owner role (use after requireAdmin). */
export const requireOwner = createMiddleware<AppEnv>(async (c, next) => {
  if (c.var.user?.roleName !== "owner") throw new ApiError("forbidden", "Only the owner may do this");
  await next();
});
