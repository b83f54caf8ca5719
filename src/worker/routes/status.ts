import { desc } from "drizzle-orm";
import { Hono } from "hono";
import type { AppEnv } from "../context";
import { d1Migrations } from "../db/wrangler-tables";

export const statusRoutes = new Hono<AppEnv>()
  .get("/health", async (c) => {
    // The schema version is the number of the last migration wrangler (or the test harness)
    // applied: "0021_account_erasure.sql" is schema 21.
    const row = await c.var.db.select({ name: d1Migrations.name }).from(d1Migrations).orderBy(desc(d1Migrations.id)).get();
    c.header("x-app-version", c.env.APP_VERSION);
    c.header("x-schema-version", row ? String(Number.parseInt(row.name, 10)) : "none");
    return c.json({ status: "ok" });
  })
  // What the public pages show from configuration (the privacy policy's contact address).
  .get("/site", (c) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json({ supportEmail: c.env.SUPPORT_EMAIL });
  });
