import { Hono } from "hono";
import type { AppEnv } from "../context";

/** Provider callbacks: /api/webhooks/* — each verifies the provider's signature before reading anything. */
export const webhookRoutes = new Hono<AppEnv>();
