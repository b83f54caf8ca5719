import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { campaigns, leads, users } from "../../src/worker/db/schema";
import { db, excluded, insertRows, insertSelect, statementText } from "./sql-text";

describe("insertRows", () => {
  const row = (i: number) => ({ app: "flex" as const, phone: `+1305555000${i}`, name: `O'Brien ${i}`, inviteCode: `C${i}`, phoneVerified: i % 2 === 0 });

  it.each([
    { rows: 0, chunk: 200, statements: 0 },
    { rows: 1, chunk: 200, statements: 1 },
    { rows: 5, chunk: 2, statements: 3 },
    { rows: 4, chunk: 2, statements: 2 },
  ])("writes $rows rows in $statements statements of at most $chunk", ({ rows, chunk, statements }) => {
    const out = insertRows(
      users,
      Array.from({ length: rows }, (_, i) => row(i)),
      chunk,
    );
    expect(out).toHaveLength(statements);
    for (const s of out) expect(s).toMatch(/^insert into "users" \(.*\) values .* on conflict do nothing;$/s);
  });

  it("writes the values in, quoted, booleans as 0/1, left-out columns as the schema's default", () => {
    const [text] = insertRows(users, [row(2), row(3)]);
    expect(text).toContain("'O''Brien 2'");
    expect(text).toContain("'+13055550003'");
    // phone_verified, then email and password_hash (no default), language 'en', is_admin 0.
    expect(text).toMatch(/'\+13055550002', 1, 'O''Brien 2', null, null, 'en', 0,/);
    expect(text).toMatch(/'\+13055550003', 0, 'O''Brien 3', null, null, 'en', 0,/);
    expect(text).not.toContain("?");
  });

  it("writes a json column as its JSON text", () => {
    const [text] = insertRows(leads, [{ app: "spark", phone: "+1", source: "contact" }]);
    expect(text).toContain("'spark', '+1', null, null, 'contact'");
    const [campaign] = insertRows(campaigns, [{ app: "flex", channel: "sms", source: "drivers", audience: { app: "flex" }, authorId: 1, idempotencyKey: "k" }]);
    expect(campaign).toContain(`'{"app":"flex"}'`);
  });
});

describe("statementText and excluded", () => {
  it("writes an upsert's SET from the conflicting row", () => {
    const text = statementText(
      db
        .insert(users)
        .values({ app: "flex", phone: "+1", name: "A", inviteCode: "A" })
        .onConflictDoUpdate({ target: [users.app, users.phone], set: { name: excluded(users.name), isAdmin: true } }),
    );
    expect(text).toMatch(/on conflict \("users"\."app", "users"\."phone"\) do update set "name" = excluded\."name", "is_admin" = 1;$/);
  });
});

describe("insertSelect", () => {
  it.each([
    {
      name: "columns by schema key, constants written in",
      text: insertSelect(leads, { app: users.app, source: "drop-off", userId: users.id }, sql`from ${users} where ${users.id} < ${10}`),
      expected: `insert or ignore into "leads" ("app", "source", "user_id") select "users"."app", 'drop-off', "users"."id" from "users" where "users"."id" < 10;`,
    },
    {
      name: "a WITH clause before the insert",
      text: insertSelect(leads, { phone: sql`'+1' || k.n` }, sql`from k`, sql.raw("with recursive k(n) as (select 0)")),
      expected: `with recursive k(n) as (select 0) insert or ignore into "leads" ("phone") select '+1' || k.n from k;`,
    },
  ])("$name", ({ text, expected }) => {
    expect(text).toBe(expected);
  });

  it("refuses a key that is not a column", () => {
    expect(() => insertSelect(leads, { nope: 1 } as never, sql`from users`)).toThrow("nope is not a column of the table");
  });
});
