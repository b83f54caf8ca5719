import type { SessionUser } from "./auth/middleware";
import type { Db } from "./db/client";
import type { Logger } from "./log";

/** The Hono environment every sub-app shares: generated bindings plus what middleware puts on `c.var`. */
export type AppEnv = {
  Bindings: Env;
  Variables: {
    db: Db;
    log: Logger;
    requestId: string;
    user: SessionUser;
  };
};
