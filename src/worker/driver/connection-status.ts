import { desc, eq } from "drizzle-orm";
import type { SessionUser } from "../context";
import type { Db } from "../db/client";
import { platformAccounts, platformSignIns } from "../db/schema";

/**
 * The driver's platform connection as the settings screen shows it: connected or not (and since
 * when, or why it ended), and the sign-in attempt still open, if any (docs/engine.md).
 */
export async function connectionStatus(db: Db, user: Pick<SessionUser, "id" | "accountConnected">, now = Date.now()) {
  const [account, attempt] = await Promise.all([
    db.select().from(platformAccounts).where(eq(platformAccounts.userId, user.id)).get(),
    db.select().from(platformSignIns).where(eq(platformSignIns.userId, user.id)).orderBy(desc(platformSignIns.createdAt)).get(),
  ]);
  const live = attempt && attempt.expiresAt > now ? attempt : null;
  return {
    connected: user.accountConnected && Boolean(account?.sealedTokens),
    accountName: account?.accountName ?? null,
    connectedAt: account?.connectedAt ?? null,
    disconnectedAt: account?.disconnectedAt ?? null,
    disconnectReason: account?.disconnectReason ?? null,
    pending: !live
      ? null
      : live.kind === "handoff"
        ? { attemptId: live.id, kind: live.kind, signInUrl: live.signInUrl ?? "", expiresAt: live.expiresAt }
        : { attemptId: live.id, kind: live.kind, destination: live.destination, email: live.email ?? "", expiresAt: live.expiresAt },
  };
}
