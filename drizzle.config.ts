import { defineConfig } from "drizzle-kit";

// drizzle-kit writes plain SQL files into the folder wrangler applies (wrangler's own format).
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/worker/db/schema.ts",
  out: "./migrations",
  migrations: { prefix: "index" },
});
