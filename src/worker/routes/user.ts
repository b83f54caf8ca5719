import { Hono } from "hono";
import type { AppEnv } from "../context";

/** The signed-in driver: /api/flex/v1/user and friends (docs/api.md). */
export const userRoutes = new Hono<AppEnv>();
