import { and, asc, eq } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { appSchema } from "../../shared/auth";
import type { AppEnv } from "../context";
import { plans } from "../db/schema";
import { validate } from "../validate";

/** Active plans of an app, in the owner's order: public, for the landing page and /payment. */
export const planRoutes = new Hono<AppEnv>().get("/", validate("query", z.object({ app: appSchema.default("flex") })), async (c) => {
  const { app } = c.req.valid("query");
  const rows = await c.var.db
    .select({ id: plans.id, app: plans.app, name: plans.name, days: plans.days, priceCents: plans.priceCents })
    .from(plans)
    .where(and(eq(plans.app, app), eq(plans.active, true)))
    .orderBy(asc(plans.sortOrder), asc(plans.days), asc(plans.id))
    // A handful in practice; the bound keeps the answer small whatever the owner does.
    .limit(50);
  c.header("Cache-Control", "public, max-age=60");
  return c.json({ Items: rows, currency: "usd" as const });
});
