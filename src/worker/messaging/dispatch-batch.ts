import { eq, inArray, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { restoreErasedOptOuts } from "../compliance/erased-opt-outs";
import { type Db, jsonList } from "../db/client";
import { campaignMessages, campaigns, optOuts, users } from "../db/schema";
import type { Job, JobContext } from "../queue";
import { pacerFor, sendRate } from "./pacer";

/**
 * What the dispatch jobs of one queue batch share: they all start at once, so their rows are read
 * in one query and their send slots asked of each sender's pacer in one call.
 */

const recipient = alias(users, "recipient");

/** Messages with their campaign's content and whether their number opted out of the channel since: one query for a whole batch. */
const loadMessages = async (db: Db, pepper: string, ids: readonly number[]) => {
  const m = campaignMessages;
  const optedOut = sql<boolean>`(EXISTS (SELECT 1 FROM ${optOuts} WHERE ${optOuts.phone} = ${m.phone} AND ${optOuts.channel} = ${campaigns.channel})
    OR coalesce((SELECT CASE ${campaigns.channel} WHEN 'sms' THEN ${recipient.smsOptOut} ELSE ${recipient.whatsappOptOut} END
      FROM ${users} ${recipient} WHERE ${recipient.id} = ${m.userId}), 0) = 1)`.mapWith(Boolean);
  const found = await db
    .select({
      id: m.id,
      campaignId: m.campaignId,
      phone: m.phone,
      status: m.status,
      attempts: m.attempts,
      updatedAt: m.updatedAt,
      heldUntil: m.heldUntil,
      firstClaimedAt: m.firstClaimedAt,
      deferredUntil: m.deferredUntil,
      channel: campaigns.channel,
      category: campaigns.category,
      message: campaigns.message,
      template: campaigns.template,
      optedOut,
    })
    .from(m)
    .innerJoin(campaigns, eq(campaigns.id, m.campaignId))
    .where(inArray(m.id, jsonList(ids)));
  // A number whose erased account had opted out (kept only as a keyed hash) is opted out again here.
  const restored = await restoreErasedOptOuts(
    db,
    pepper,
    found.filter((r) => r.status === "pending" || r.status === "deferred").map((r) => r.phone),
  );
  for (const r of found) if (restored.get(r.phone)?.has(r.channel)) r.optedOut = true;
  return new Map(found.map((r) => [r.id, r]));
};
export type MessageRecord = Awaited<ReturnType<typeof loadMessages>> extends Map<number, infer R> ? R : never;

/** The rows of one queue batch, loaded once for all its dispatch jobs (they start together). */
const batchRows = new WeakMap<readonly Job[], Promise<Map<number, MessageRecord>>>();

/**
 * A dispatch job's row. The jobs of a batch all start at once: read one by one, their hundred
 * reads would queue in D1 ahead of the batch's first send. One set-based read serves them all.
 */
export function messageOf(db: Db, ctx: JobContext, id: number): Promise<MessageRecord | undefined> {
  const jobs = ctx.batch;
  if (!jobs) return loadMessages(db, ctx.env.PASSWORD_PEPPER, [id]).then((rows) => rows.get(id));
  let rows = batchRows.get(jobs);
  if (!rows) {
    const ids = [...new Set(jobs.flatMap((j) => (j.kind === "dispatch" ? [j.messageId] : [])))];
    rows = loadMessages(db, ctx.env.PASSWORD_PEPPER, ids.length > 0 ? ids : [id]);
    batchRows.set(jobs, rows);
  }
  return rows.then((found) => found.get(id));
}

/**
 * Send slots asked for by the jobs of one batch in the same turn go to the sender's pacer as one
 * call (SendPacer.reserveMany), in the order they were asked for: one round trip instead of one
 * per message, so the first send of a batch does not wait behind a hundred pacer calls.
 */
type SlotAsk = { resolve: (at: number) => void; reject: (err: unknown) => void };
const slotAsks = new WeakMap<readonly Job[], Map<string, SlotAsk[]>>();

export function reserveSlot(env: Env, ctx: JobContext, sender: string): Promise<number> {
  const jobs = ctx.batch;
  if (!jobs) return pacerFor(env, sender).reserve(sendRate(env));
  let bySender = slotAsks.get(jobs);
  if (!bySender) {
    bySender = new Map();
    slotAsks.set(jobs, bySender);
  }
  const waiting = bySender;
  return new Promise<number>((resolve, reject) => {
    const asks = waiting.get(sender);
    if (asks) {
      asks.push({ resolve, reject });
      return;
    }
    waiting.set(sender, [{ resolve, reject }]);
    // Asks made before this timer fires join the same call.
    setTimeout(() => {
      const all = waiting.get(sender) ?? [];
      waiting.delete(sender);
      pacerFor(env, sender)
        .reserveMany(sendRate(env), all.length)
        .then(
          (slots) => {
            for (const [i, ask] of all.entries()) ask.resolve(slots[i]!);
          },
          (err: unknown) => {
            for (const ask of all) ask.reject(err);
          },
        );
    }, 0);
  });
}
