import { and, count, desc, eq, type SQL } from "drizzle-orm";
import { pageOffset } from "../../shared/paging";
import type { Db } from "../db/client";
import { outbox } from "../db/schema";

/** One page of what the embedded providers "sent" (sms/outbox.ts, whatsapp/outbox.ts), newest first, to one number and of one channel if asked. */
export async function outboxPage(db: Db, query: { page: number; pageSize: number; to?: string; channel?: "sms" | "whatsapp" }) {
  const { page, pageSize, to, channel } = query;
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
  return { total: total[0]?.n ?? 0, page, pageSize, rows };
}
