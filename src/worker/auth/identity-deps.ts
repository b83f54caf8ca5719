import type { Context } from "hono";
import type { AppEnv } from "../context";
import type { IdentityDeps } from "./code-delivery";
import { clientAddress } from "./rate-limit";

/** What the identity flows (and other texts sent on someone's request) need from the request. */
export function identityDeps(c: Context<AppEnv>): IdentityDeps {
  return {
    db: c.var.db,
    env: c.env,
    config: c.var.config,
    log: c.var.log,
    address: clientAddress(c.req.header("CF-Connecting-IP")),
    waitUntil: (promise) => c.executionCtx.waitUntil(promise),
    now: Date.now(),
  };
}
