import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Tables wrangler keeps in the same database, described for reading only. They live outside
 * schema.ts so drizzle-kit never writes a migration for them.
 */
export const d1Migrations = sqliteTable("d1_migrations", {
  id: integer("id").primaryKey(),
  name: text("name").notNull(),
  appliedAt: text("applied_at"),
});
