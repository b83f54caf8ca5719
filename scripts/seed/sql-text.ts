/**
 * Drizzle statements written out as SQLite text. The seed runs one file through
 * `wrangler d1 execute --file` (a local database has no other way in from Node), so its statements
 * are built with drizzle against src/worker/db/schema.ts and their values written into the text:
 * a renamed or retyped column breaks the seed when it is type-checked, not when it runs.
 */
import { getTableColumns, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import { SQLiteSyncDialect, type SQLiteTable } from "drizzle-orm/sqlite-core";
import { drizzle } from "drizzle-orm/sqlite-proxy";

const dialect = new SQLiteSyncDialect();

/** A query builder that never runs a query: its statements only become text. */
export const db = drizzle(async () => ({ rows: [] }));

/** The statement as SQLite text, its values written in. */
export function statementText(query: SQLWrapper): string {
  return `${dialect.sqlToQuery(query.getSQL().inlineParams()).sql};`;
}

/**
 * INSERT … ON CONFLICT DO NOTHING of the rows, `chunk` rows per statement (what a re-run finds
 * already there stays as it is). Columns a row leaves out get the schema's default.
 */
export function insertRows<T extends SQLiteTable>(table: T, rows: T["$inferInsert"][], chunk = 200): string[] {
  const out: string[] = [];
  for (let i = 0; i < rows.length; i += chunk)
    out.push(
      statementText(
        db
          .insert(table)
          .values(rows.slice(i, i + chunk))
          .onConflictDoNothing(),
      ),
    );
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
