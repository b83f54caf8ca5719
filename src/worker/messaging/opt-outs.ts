import { and, eq, notExists, sql } from "drizzle-orm";
import { type Db, excluded } from "../db/client";
import { campaignMessages, deliveryReceipts, optOuts, users } from "../db/schema";
import type { Channel } from "./audience";

/**
 * Inbound keywords (the carriers' and Twilio's standard set). A message counts as a keyword when,
 * trimmed of spaces and punctuation, it is exactly that word in any case: "Stop." opts out,
 * "please don't stop" does not.
 */
export const STOP_KEYWORDS = ["STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "REVOKE", "OPTOUT"] as const;
export const START_KEYWORDS = ["START", "UNSTOP"] as const;
export const HELP_KEYWORDS = ["HELP"] as const;

export type Keyword = { kind: "stop" | "start" | "help"; word: string };

export function inboundKeyword(body: string | null | undefined): Keyword | null {
  const word = (body ?? "").replace(/^[\s\p{P}]+|[\s\p{P}]+$/gu, "").toUpperCase();
  if ((STOP_KEYWORDS as readonly string[]).includes(word)) return { kind: "stop", word };
  if ((START_KEYWORDS as readonly string[]).includes(word)) return { kind: "start", word };
  if ((HELP_KEYWORDS as readonly string[]).includes(word)) return { kind: "help", word };
  return null;
}

export function helpReply(env: Pick<Env, "APP_ORIGIN">): string {
  return `Blockpilot: help at ${env.APP_ORIGIN.replace(/\/$/, "")}/contact, 7 am to 10 pm EST. Reply STOP to opt out, START to opt back in.`;
}

/** The account's own opt-out flag for a channel. */
const optOutFlag = (channel: Channel, value: boolean) => (channel === "sms" ? { smsOptOut: value } : { whatsappOptOut: value });

/** The opt-out row (numbers without an account included) and the account's flag, in one transaction. */
export async function optOut(db: Db, phone: string, channel: Channel, keyword: string, at = Date.now()) {
  await db.batch([
    db
      .insert(optOuts)
      .values({ phone, channel, keyword, at })
      .onConflictDoUpdate({ target: [optOuts.phone, optOuts.channel], set: { keyword, at } }),
    db.update(users).set(optOutFlag(channel, true)).where(eq(users.phone, phone)),
  ]);
}

export async function optIn(db: Db, phone: string, channel: Channel) {
  await db.batch([
    db.delete(optOuts).where(and(eq(optOuts.phone, phone), eq(optOuts.channel, channel))),
    db.update(users).set(optOutFlag(channel, false)).where(eq(users.phone, phone)),
  ]);
}

/**
 * A delivery receipt moves a sent row to delivered or failed; a row already settled otherwise is
 * left as it is. A receipt for a send not recorded yet (the provider called back before the
 * consumer wrote the provider id) is kept for the consumer to apply. Both statements run as one
 * transaction, so the receipt is either applied here or kept, never lost between the two.
 */
export async function recordDeliveryStatus(db: Db, providerId: string, status: "delivered" | "failed", errorCode: string | null, errorMessage: string | null) {
  const now = Date.now();
  const sentRow = and(eq(campaignMessages.providerId, providerId), eq(campaignMessages.status, "sent"));
  const apply =
    status === "delivered"
      ? db.update(campaignMessages).set({ status: "delivered", updatedAt: now }).where(sentRow)
      : db.update(campaignMessages).set({ status: "failed", errorCode, errorMessage, updatedAt: now }).where(sentRow);
  const r = deliveryReceipts;
  // Kept only while no row carries the provider id; a kept "failed" is final.
  const receipt = db
    .select({
      providerId: sql<string>`${providerId}`.as("provider_id"),
      status: sql<"delivered" | "failed">`${status}`.as("status"),
      errorCode: sql<string | null>`${errorCode}`.as("error_code"),
      errorMessage: sql<string | null>`${errorMessage}`.as("error_message"),
      receivedAt: sql<number>`${now}`.as("received_at"),
    })
    .from(sql`(SELECT 1)`)
    .where(notExists(db.select({ one: sql`1` }).from(campaignMessages).where(eq(campaignMessages.providerId, providerId))));
  const keep = db
    .insert(r)
    .select(receipt)
    .onConflictDoUpdate({
      target: r.providerId,
      set: { status: excluded(r.status), errorCode: excluded(r.errorCode), errorMessage: excluded(r.errorMessage) },
      setWhere: sql`${r.status} <> 'failed'`,
    });
  await db.batch([apply, keep]);
}
