/**
 * Migrations that were renamed after a local database had applied them. Wrangler knows what a
 * database has applied by file name (its d1_migrations table), so a local state from before a
 * rename would see the new names as unapplied and run them again (and fail on tables that exist).
 * Before `npm run dev` and `npm run db:migrate` apply migrations, the local state's record is
 * brought up to the current names. Only local states hold the old names: no other database ever
 * applied them.
 *
 *   node scripts/renamed-migrations.ts [d1 dir]   (default .wrangler/state/v3/d1)
 */
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";

/** Old file name → current file name. */
export const RENAMED_MIGRATIONS: Readonly<Record<string, string>> = {
  "0004_11_payments.sql": "0004_payments.sql",
  "0005_11_default_plans.sql": "0005_default_plans.sql",
  "0006_14_messaging_rules.sql": "0006_messaging_rules.sql",
  "0007_13_lead_message.sql": "0007_lead_message.sql",
  "0008_10_driver_product.sql": "0008_platform_accounts_and_offers.sql",
  "0009_lane12_admin_console.sql": "0009_admin_console.sql",
  "0010_lane12_dropoff_backfill.sql": "0010_dropoff_leads_backfill.sql",
  "0011_lane12_payer_chain.sql": "0011_payer_chain.sql",
  "0012_lane9_security.sql": "0012_session_expiry_and_held_sends.sql",
  "0013_lane12b_search_fold.sql": "0013_search_fold.sql",
  "0014_lane12_user_tallies.sql": "0014_user_tallies.sql",
  "0015_lane12_user_tallies_triggers.sql": "0015_user_tallies_triggers.sql",
  "0016_lane14_first_claimed_at.sql": "0016_campaign_message_first_claimed_at.sql",
};

/** Renames the applied migrations recorded in one SQLite database; returns how many rows changed (0 without a record). */
export function renameInDatabase(file: string): number {
  const db = new DatabaseSync(file);
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'd1_migrations'").get();
    if (!table) return 0;
    const rename = db.prepare("UPDATE d1_migrations SET name = ? WHERE name = ?");
    let changed = 0;
    for (const [old, current] of Object.entries(RENAMED_MIGRATIONS)) changed += Number(rename.run(current, old).changes);
    return changed;
  } finally {
    db.close();
  }
}

/**
 * Every local D1 database under a state's d1 directory (miniflare keeps each in
 * miniflare-D1DatabaseObject/<id>.sqlite beside a metadata.sqlite) brought up to the current
 * names; returns how many rows changed. A state that does not exist yet has nothing to change.
 */
export function renameAppliedMigrations(d1Dir: string): number {
  const dir = join(d1Dir, "miniflare-D1DatabaseObject");
  if (!existsSync(dir)) return 0;
  let changed = 0;
  for (const name of readdirSync(dir)) if (name.endsWith(".sqlite") && name !== "metadata.sqlite") changed += renameInDatabase(join(dir, name));
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const changed = renameAppliedMigrations(process.argv[2] ?? ".wrangler/state/v3/d1");
  if (changed) console.log(`The local database's record of ${changed} applied migrations now has their current names.`);
}
