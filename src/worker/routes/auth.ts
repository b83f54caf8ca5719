import { Hono } from "hono";
import type { AppEnv } from "../context";

/** Identity: /api/auth/* (docs/api.md). */
export const authRoutes = new Hono<AppEnv>();
