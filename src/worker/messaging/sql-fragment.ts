/**
 * Composable SQL with positional parameters, for the audience queries that are built from filters
 * and reused three ways (page, count, INSERT … SELECT). Values become `?` parameters; fragments
 * nest. D1 allows 100 bound parameters per statement, so lists travel as one JSON parameter read
 * with json_each, never as one parameter per item.
 */
export class Sql {
  constructor(
    readonly text: string,
    readonly params: readonly unknown[],
  ) {}
}

export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  let text = strings[0] ?? "";
  const params: unknown[] = [];
  values.forEach((value, i) => {
    if (value instanceof Sql) {
      text += value.text;
      params.push(...value.params);
    } else {
      text += "?";
      params.push(value === undefined ? null : typeof value === "boolean" ? Number(value) : value);
    }
    text += strings[i + 1] ?? "";
  });
  return new Sql(text, params);
}

/** Trusted SQL text (column names and keywords chosen by our code, never by input). */
export function raw(text: string): Sql {
  return new Sql(text, []);
}

export function join(parts: readonly Sql[], separator: string): Sql {
  return new Sql(
    parts.map((p) => p.text).join(separator),
    parts.flatMap((p) => p.params),
  );
}

/** All conditions, or a true condition when there are none. */
export function and(conditions: readonly Sql[]): Sql {
  return conditions.length === 0
    ? raw("1 = 1")
    : join(
        conditions.map((c) => sql`(${c})`),
        " AND ",
      );
}

export const D1_MAX_PARAMS = 100;

export function prepare(db: D1Database, query: Sql): D1PreparedStatement {
  if (query.params.length > D1_MAX_PARAMS) throw new Error(`A statement with ${query.params.length} parameters exceeds D1's limit of ${D1_MAX_PARAMS}`);
  return db.prepare(query.text).bind(...query.params);
}
