import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { currentMigrations, renameAppliedMigrations } from "./renamed-migrations";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A d1 directory laid out as miniflare keeps it, one database with these applied names (null: no record table). */
function localState(applied: string[] | null): { d1Dir: string; file: string } {
  const d1Dir = mkdtempSync(join(tmpdir(), "bp-renamed-"));
  dirs.push(d1Dir);
  const dir = join(d1Dir, "miniflare-D1DatabaseObject");
  mkdirSync(dir);
  new DatabaseSync(join(dir, "metadata.sqlite")).close();
  const file = join(dir, "0123abcd.sqlite");
  const db = new DatabaseSync(file);
  if (applied) {
    db.exec("CREATE TABLE d1_migrations (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT UNIQUE, applied_at TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL)");
    for (const name of applied) db.prepare("INSERT INTO d1_migrations (name) VALUES (?)").run(name);
  }
  db.close();
  return { d1Dir, file };
}

const namesIn = (file: string) => {
  const db = new DatabaseSync(file);
  const names = db
    .prepare("SELECT name FROM d1_migrations ORDER BY id")
    .all()
    .map((r) => r.name);
  db.close();
  return names;
};

describe("renameAppliedMigrations", () => {
  it.each([
    {
      applied: ["0000_init.sql", "0004_an_older_name.sql", "0009_what_it_was_called.sql"],
      changed: 2,
      after: ["0000_init.sql", "0004_payments.sql", "0009_admin_console.sql"],
    },
    { applied: ["0000_init.sql", "0004_payments.sql"], changed: 0, after: ["0000_init.sql", "0004_payments.sql"] },
    // A name whose number no file has is left for wrangler to report.
    { applied: ["9999_from_another_branch.sql"], changed: 0, after: ["9999_from_another_branch.sql"] },
    { applied: [], changed: 0, after: [] },
  ])("renames $changed of $applied", ({ applied, changed, after }) => {
    const { d1Dir, file } = localState(applied);
    expect(renameAppliedMigrations(d1Dir)).toBe(changed);
    expect(namesIn(file)).toEqual(after);
    // A second run finds nothing left to rename.
    expect(renameAppliedMigrations(d1Dir)).toBe(0);
  });

  it("leaves a database without a record, and a state that does not exist, alone", () => {
    const { d1Dir } = localState(null);
    expect(renameAppliedMigrations(d1Dir)).toBe(0);
    expect(renameAppliedMigrations(join(d1Dir, "nowhere"))).toBe(0);
  });
});

describe("currentMigrations", () => {
  it("names every migration file by its number, as the journal does", () => {
    const root = join(import.meta.dirname, "..");
    const journal = JSON.parse(readFileSync(join(root, "migrations/meta/_journal.json"), "utf8")) as { entries: { tag: string }[] };
    const current = currentMigrations();
    expect([...current.values()]).toEqual(journal.entries.map((e) => `${e.tag}.sql`));
    expect(current.size).toBe(readdirSync(join(root, "migrations")).filter((f) => f.endsWith(".sql")).length);
  });
});
