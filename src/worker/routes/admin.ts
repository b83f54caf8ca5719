import { Hono } from "hono";
import type { AppEnv } from "../context";

/** The admin console's API: /api/admin/* (docs/api.md). */
export const adminRoutes = new Hono<AppEnv>();
