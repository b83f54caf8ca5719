import { eq } from "drizzle-orm";
import type { UserItem } from "../../shared/auth";
import type { Db } from "../db/client";
import { users } from "../db/schema";
import { ApiError } from "../errors";
import type { MeRequest } from "./requests";
import type { User } from "./sign-in-flow";
import { toUserItem } from "./user-item";

/** The signed-in user's own name, email and language; the answer is their user item as it now is. */
export async function updateOwnProfile(db: Db, userId: number, body: MeRequest): Promise<{ Item: UserItem }> {
  const changes: Partial<Pick<User, "name" | "email" | "language">> = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.email !== undefined) changes.email = body.email;
  if (body.language !== undefined) changes.language = body.language;
  const updated = await db.update(users).set(changes).where(eq(users.id, userId)).returning().get();
  if (!updated) throw new ApiError("unauthorized", "Invalid token");
  return { Item: toUserItem(updated) };
}
