import type { Config } from "./config";
import type { Db } from "./db/client";
import type { users } from "./db/schema";
import type { Logger } from "./log";

/** The signed-in caller as requireUser (src/worker/auth/middleware.ts) puts it on `c.var.user`: their user row, read fresh. */
export type SessionUser = typeof users.$inferSelect;

/** The Hono environment every sub-app shares: generated bindings plus what middleware puts on `c.var`. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    /** The validated configuration (src/worker/config.ts). */
    config: Config;
    db: Db;
    log: Logger;
    requestId: string;
    user: SessionUser;
    /** The caller's session (the ID token's `sid`, a refresh-token family), set with `user`. */
    sessionId: string;
    /** When the caller's ID token expires (epoch ms), set with `user`: what the caller may do lasts until then at most. */
    tokenExpiresAt: number;
  };
};
