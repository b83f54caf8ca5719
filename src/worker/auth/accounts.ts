import { and, eq } from "drizzle-orm";
import type { App } from "../../shared/auth";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import type { User } from "./sign-in-flow";

/** An account as the identity flows name it: one phone number in one app. */
export type Account = { app: App; phone: string };

/** The key the per-account limits and logs use. */
export const accountKey = (account: Account) => `${account.app}:${account.phone}`;

export function findAccountUser(db: Db, app: App, phone: string): Promise<User | undefined> {
  return db.query.users.findFirst({ where: and(eq(users.app, app), eq(users.phone, phone)) });
}

export function findUserById(db: Db, id: number): Promise<User | undefined> {
  return db.query.users.findFirst({ where: eq(users.id, id) });
}
