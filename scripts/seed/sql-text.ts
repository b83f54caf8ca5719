/**
 * Drizzle statements written out as SQLite text. The seed runs one file through
 * `wrangler d1 execute --file` (a local database has no other way in from Node), so its statements
 * are built with drizzle against src/worker/db/schema.ts and their values written into the text:
 * a renamed or retyped column breaks the seed when it is type-checked, not when it runs.
 */
import { getTableColumns, getTableName, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { type SQLiteColumn, SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { drizzle } from "drizzle-orm/sqlite-proxy";

const dialect = new SQLiteSyncDialect();

/** A query builder that never runs a query: its statements only become text. */
export const db = drizzle(async () => ({ rows: [] }));

/** A drizzle statement as SQLite text, its values written in. */
export function statementText(query: SQLWrapper): string {
  return `${dialect.sqlToQuery(query.getSQL().inlineParams()).sql};`;
}

/** A value as SQLite text: NULL, a number, 0/1 for a boolean, or a quoted string. */
function literal(value: unknown): string {
  if (value === null || value === undefined) return "null";
  if (typeof value === "number") return String(value);
  if (typeof value === "boolean") return value ? "1" : "0";
  return dialect.escapeString(String(value));
}

/**
 * INSERT OR IGNORE of the rows, `chunk` rows per statement (what a re-run finds already there
 * stays as it is). The rows are typed by the schema; each statement names the columns its rows
 * set (a column one row leaves out is NULL in it, one all leave out gets the database's default),
 * and each value goes through its column's own mapping (booleans, JSON), as drizzle's insert does.
 * Written by hand rather than by drizzle's builder: the benches' 100,000 drivers took ten times as
 * long through it, and every column spelled out made the file half as large again.
 */
export function insertRows<T extends SQLiteTable>(table: T, rows: T["$inferInsert"][], chunk = 200): string[] {
  const columns = getTableColumns(table) as Record<string, SQLiteColumn>;
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk) as Record<string, unknown>[];
    const keys = [...new Set(part.flatMap((row) => Object.keys(row)))];
    const targets = keys.map((key) => {
      const column = columns[key];
      if (!column) throw new Error(`${key} is not a column of ${getTableName(table)}`);
      return column;
    });
    const values = part.map(
      (row) => `(${keys.map((key, k) => (row[key] === undefined || row[key] === null ? "null" : literal(targets[k]!.mapToDriverValue(row[key])))).join(", ")})`,
    );
    out.push(
      `insert or ignore into ${dialect.escapeName(getTableName(table))} (${targets.map((c) => dialect.escapeName(c.name)).join(", ")}) values ${values.join(",\n")};`,
    );
  }
  return out;
}

/** `excluded.<column>` in an upsert's SET: the value the conflicting insert brought. */
export const excluded = (column: { name: string }) => sql`excluded.${sql.identifier(column.name)}`;

/** The value of each named column of the insert: an expression over the query's sources, or a constant. */
export type InsertExpressions<T extends SQLiteTable> = { [K in keyof T["$inferInsert"]]?: SQLWrapper | string | number };

/**
 * `[WITH …] INSERT OR IGNORE INTO table (columns) SELECT expressions <rest>`: rows made inside
 * SQLite from other rows. Columns are named by the schema's keys and expressions refer to columns
 * through the schema (`${users.id}` is "users"."id"), so renames reach these too.
 */
export function insertSelect<T extends SQLiteTable>(table: T, values: InsertExpressions<T>, rest: SQL, withClause?: SQL): string {
  const columns = getTableColumns(table) as Record<string, { name: string }>;
  const keys = Object.keys(values) as (keyof typeof values & string)[];
  const names = sql.join(
    keys.map((k) => {
      const column = columns[k];
      if (!column) throw new Error(`${k} is not a column of the table`);
      return sql.identifier(column.name);
    }),
    sql`, `,
  );
  const expressions = sql.join(
    keys.map((k) => sql`${values[k]!}`),
    sql`, `,
  );
  return statementText(sql`${withClause ? sql`${withClause} ` : sql``}insert or ignore into ${table} (${names}) select ${expressions} ${rest}`);
}
