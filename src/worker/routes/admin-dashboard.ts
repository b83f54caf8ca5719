import { Hono } from "hono";
import { dashboardQuerySchema } from "../../shared/admin-dashboard";
import { dashboardFigures, dashboardSeries } from "../admin/dashboard";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { validate } from "../validate";

/** The admin dashboard: /api/admin/dashboard (docs/api.md). Every administrator. */
export const adminDashboardRoutes = new Hono<AppEnv>()
  .use(requireUser, requireAdmin)
  .get("/", validate("query", dashboardQuerySchema), async (c) => c.json(await dashboardFigures(c.var.db, c.req.valid("query"))))
  .get("/series", validate("query", dashboardQuerySchema), async (c) => c.json(await dashboardSeries(c.var.db, c.req.valid("query"))));
