import { env } from "cloudflare:test";
import { count } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { dbFor } from "./client";
import { users } from "./schema";

describe("dbFor", () => {
  it("builds the drizzle client once per binding (building it walks the whole schema)", async () => {
    const db = dbFor(env.DB);
    expect(dbFor(env.DB)).toBe(db);
    const [row] = await db.select({ n: count() }).from(users);
    expect(typeof row?.n).toBe("number");
  });
});
