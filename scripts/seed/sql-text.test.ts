import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { leads, users } from "../../src/worker/db/schema";
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
    for (const s of out) expect(s).toMatch(/^insert or ignore into "users" \("app", "phone", "name", "invite_code", "phone_verified"\) values \(.*\);$/s);
  });

  it.each([
    { name: "quotes strings, doubling quotes", rows: [row(2)], values: `('flex', '+13055550002', 'O''Brien 2', 'C2', 1)` },
    { name: "writes booleans as 0/1", rows: [row(3)], values: `('flex', '+13055550003', 'O''Brien 3', 'C3', 0)` },
    {
      name: "names every column a row sets, NULL where another leaves it out",
      rows: [{ ...row(4), email: "a@b.c" }, row(5)],
      values: `('flex', '+13055550004', 'O''Brien 4', 'C4', 1, 'a@b.c'),\n('flex', '+13055550005', 'O''Brien 5', 'C5', 0, null)`,
    },
    { name: "writes a json column as its JSON text", rows: [{ ...row(6), roleProperties: { billingDetails: true } }], values: `'{"billingDetails":true}'` },
  ])("$name", ({ rows, values }) => {
    const [text] = insertRows(users, rows);
    expect(text).toContain(values);
    expect(text).not.toContain("?");
  });

  it("refuses a key that is not a column", () => {
    expect(() => insertRows(leads, [{ app: "flex", phone: "+1", source: "x", nope: 1 } as never])).toThrow("nope is not a column of leads");
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
