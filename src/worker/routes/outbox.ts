import { Hono } from "hono";
import { z } from "zod";
import { phoneSchema } from "../../shared/auth";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { pagingSchema } from "../cross-cutting/paging";
import { outboxPage } from "../providers/outbox-page";
import { validate } from "../validate";

const outboxQuery = pagingSchema.extend({ to: phoneSchema.optional(), channel: z.enum(["sms", "whatsapp"]).optional() });

/**
 * What the embedded providers "sent", newest first: /api/admin/outbox (the e2e tests read codes
 * and messages here). A development route: src/worker/app.ts never mounts it in production, where
 * the outbox would hand every code and temporary password to any administrator.
 */
export const outboxRoutes = new Hono<AppEnv>().get("/", requireUser, requireAdmin, validate("query", outboxQuery), async (c) =>
  c.json(await outboxPage(c.var.db, c.req.valid("query"))),
);
