import type { SessionUser } from "./auth/session-user";
import type { Config } from "./config";
import type { Db } from "./db/client";
import type { Logger } from "./log";

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
  };
};
