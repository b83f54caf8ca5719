import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { Hono } from "hono";
import { z } from "zod";
import { phoneSchema } from "../../shared/auth";
import { pageOffset } from "../../shared/paging";
import { requireAdmin, requireUser } from "../auth/middleware";
import type { AppEnv } from "../context";
import { pagingSchema } from "../cross-cutting/paging";
import { outbox } from "../db/schema";
import { validate } from "../validate";

const outboxQuery = pagingSchema.extend({ to: phoneSchema.optional(), channel: z.enum(["sms", "whatsapp"]).optional() });

/**
 * What the embedded providers "sent", newest first: /api/admin/outbox (the e2e tests read codes
 * and messages here). A development route: src/worker/app.ts never mounts it in production, where
 * the outbox would hand every code and temporary password to any administrator.
 */
export const outboxRoutes = new Hono<AppEnv>().get("/", requireUser, requireAdmin, validate("query", outboxQuery), async (c) => {
  const { page, pageSize, to, channel } = c.req.valid("query");
  const db = c.var.db;
  const filters: SQL[] = [];
  if (to) filters.push(eq(outbox.to, to));
  if (channel) filters.push(eq(outbox.channel, channel));
  const where = filters.length > 0 ? and(...filters) : undefined;
  const [total, rows] = await db.batch([
    db.select({ n: count() }).from(outbox).where(where),
    db
      .select({ id: outbox.id, channel: outbox.channel, to: outbox.to, body: outbox.body, providerId: outbox.providerId, createdAt: outbox.createdAt })
      .from(outbox)
      .where(where)
      .orderBy(desc(outbox.id))
      .limit(pageSize)
      .offset(pageOffset(page, pageSize)),
  ]);
  return c.json({ total: total[0]?.n ?? 0, page, pageSize, rows });
});
