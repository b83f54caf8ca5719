import { Hono } from "hono";
import { consoleSettings } from "../admin/settings";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";

/** The messaging console's settings: /api/admin/settings (docs/api.md). Administrators only. */
export const adminSettingsRoutes = new Hono<AppEnv>().use(requireUser, requireAdmin).get("/", async (c) => c.json(await consoleSettings(c.var.db, c.env)));
