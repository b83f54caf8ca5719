import { Hono } from "hono";
import type { AppEnv } from "../context";

/** The old product's admin calls (spec §7), kept with their payloads: /api/flex/v1/admin/*, /api/spark/v1/admin/*. */
export const legacyAdminRoutes = new Hono<AppEnv>();
