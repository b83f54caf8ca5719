import { Hono } from "hono";
import { z } from "zod";
import { appSchema } from "../../shared/auth";
import { activePlans } from "../billing/plans";
import type { AppEnv } from "../context";
import { validate } from "../validate";

/** Active plans of an app, in the owner's order: public, for the landing page and /payment. */
export const planRoutes = new Hono<AppEnv>().get("/", validate("query", z.object({ app: appSchema.default("flex") })), async (c) => {
  const { app } = c.req.valid("query");
  const rows = await activePlans(c.var.db, app);
  c.header("Cache-Control", "public, max-age=60");
  return c.json({ Items: rows, currency: "usd" as const });
});
