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

/** The migration files as they are named now, by their four-digit number. */
export function currentMigrations(dir = join(import.meta.dirname, "..", "migrations")): ReadonlyMap<string, string> {
  return new Map(
    readdirSync(dir)
      .filter((f) => /^\d{4}_.+\.sql$/.test(f))
      .map((f) => [f.slice(0, 4), f] as const),
  );
}

/**
 * Renames the applied migrations recorded in one SQLite database: a recorded name that is no
 * longer a file, whose number is, takes the file's name. Returns how many rows changed (0 without a record).
 */
export function renameInDatabase(file: string, current = currentMigrations()): number {
  const db = new DatabaseSync(file);
  try {
    const table = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'd1_migrations'").get();
    if (!table) return 0;
    const rename = db.prepare("UPDATE d1_migrations SET name = ? WHERE name = ?");
    const files = new Set(current.values());
    let changed = 0;
    for (const { name } of db.prepare("SELECT name FROM d1_migrations").all() as { name: string }[]) {
      const now = current.get(name.slice(0, 4));
      if (!files.has(name) && now) changed += Number(rename.run(now, name).changes);
    }
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
export function renameAppliedMigrations(d1Dir: string, current = currentMigrations()): number {
  const dir = join(d1Dir, "miniflare-D1DatabaseObject");
  if (!existsSync(dir)) return 0;
  let changed = 0;
  for (const name of readdirSync(dir)) if (name.endsWith(".sqlite") && name !== "metadata.sqlite") changed += renameInDatabase(join(dir, name), current);
  return changed;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const changed = renameAppliedMigrations(process.argv[2] ?? ".wrangler/state/v3/d1");
  if (changed) console.log(`The local database's record of ${changed} applied migrations now has their current names.`);
}
