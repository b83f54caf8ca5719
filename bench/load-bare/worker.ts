import { Hono } from "hono";

/**
 * A bare Hono route for bench/load.ts: what the local runtime and HTTP cost with no middleware, no
 * token and no database, so the real routes' figures can be read as a share of it.
 */
const app = new Hono().get("/bare", (c) => c.json({ ok: true }));

export default app;
