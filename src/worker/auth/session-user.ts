import type { users } from "../db/schema";

/** The signed-in caller as requireUser (src/worker/auth/middleware.ts) puts it on `c.var.user`: their user row, read fresh. */
export type SessionUser = typeof users.$inferSelect;
