import { Hono } from "hono";
import type { AppEnv } from "../context";
import { schemaVersion } from "../cross-cutting/schema-version";

export const statusRoutes = new Hono<AppEnv>()
  .get("/health", async (c) => {
    c.header("x-app-version", c.env.APP_VERSION);
    c.header("x-schema-version", await schemaVersion(c.var.db));
    return c.json({ status: "ok" });
  })
  // What the public pages show from configuration (the privacy policy's contact address).
  .get("/site", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json({ supportEmail: c.env.SUPPORT_EMAIL });
  });
