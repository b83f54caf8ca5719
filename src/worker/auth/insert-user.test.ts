import { describe, expect, it } from "vitest";
import { ApiError } from "../errors";
import { db, seedUser, uniquePhone } from "../test/fixtures";
import { insertUser } from "./insert-user";
import { randomInviteCode } from "./random";

const newUser = () => ({ app: "flex" as const, phone: uniquePhone(), name: "New Account", createdAt: Date.now() });

describe("insertUser: the one way an account is written", () => {
  it("draws another invite code when the first clashes with an existing account's (the admin path answered 500 here)", async () => {
    const existing = await seedUser();
    const fresh = randomInviteCode();
    const draws = [existing.inviteCode, fresh];
    const created = await insertUser(db, newUser(), () => draws.shift()!);
    expect(created.inviteCode).toBe(fresh);
    expect(draws).toEqual([]);
  });

  it("gives up after four clashing draws with the database's error, not a wrong account", async () => {
    const existing = await seedUser();
    let draws = 0;
    const clashing = () => {
      draws++;
      return existing.inviteCode;
    };
    const err = await insertUser(db, newUser(), clashing).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(ApiError);
    expect(String((err as Error).cause)).toMatch(/UNIQUE constraint failed: users\.invite_code/);
    expect(draws).toBe(4);
  });

  it("answers a phone already registered in the app with a 409", async () => {
    const existing = await seedUser();
    const err = await insertUser(db, { ...newUser(), phone: existing.phone }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
  });

  it("lets the same phone register in the other app", async () => {
    const existing = await seedUser();
    const created = await insertUser(db, { ...newUser(), app: "spark", phone: existing.phone });
    expect(created).toMatchObject({ app: "spark", phone: existing.phone });
  });
});
