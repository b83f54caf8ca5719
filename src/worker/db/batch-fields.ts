import { Column, is, SQL, sql } from "drizzle-orm";

type Field = Column | SQL | SQL.Aliased;

/**
 * A select's fields, each named after its key. drizzle maps the rows of a D1 batch by column
 * name (D1 batches answer objects, not arrays), so two fields of the same name — `name` of a user
 * and of an inviter, `status` of a message and of its campaign — would collapse into one and shift
 * every value after them. Naming each field after its key keeps them apart; columns keep their
 * decoding (booleans, JSON).
 */
export function namedFields<T extends Record<string, Field>>(fields: T): { [K in keyof T]: SQL.Aliased<FieldType<T[K]>> } {
  const out: Record<string, SQL.Aliased> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (is(field, Column)) out[key] = sql`${field}`.mapWith(field).as(key);
    else if (is(field, SQL)) out[key] = field.as(key);
    else out[key] = sql`${field.sql}`.as(key);
  }
  return out as { [K in keyof T]: SQL.Aliased<FieldType<T[K]>> };
}

type FieldType<F> = F extends Column
  ? F["_"]["data"] | (F["_"]["notNull"] extends true ? never : null)
  : F extends SQL<infer U>
    ? U
    : F extends SQL.Aliased<infer U>
      ? U
      : never;
