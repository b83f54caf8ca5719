import { desc } from "drizzle-orm";
import type { Db } from "../db/client";
import { d1Migrations } from "../db/wrangler-tables";

/**
 * The schema version: the number of the last migration wrangler (or the test harness) applied,
 * "0021_account_erasure.sql" being schema 21; "none" before any.
 */
export async function schemaVersion(db: Db): Promise<string> {
  const row = await db.select({ name: d1Migrations.name }).from(d1Migrations).orderBy(desc(d1Migrations.id)).get();
  return row ? String(Number.parseInt(row.name, 10)) : "none";
}
