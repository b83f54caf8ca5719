import { and, eq, gt, inArray, ne } from "drizzle-orm";
import { dbFor } from "../db/client";
import { inboundEvents } from "../db/schema";
import type { Channel } from "./audience";
import type { Keyword } from "./opt-outs";

export type InboundEvent = {
  provider: "twilio" | "whatsapp";
  /** The provider's message id (Twilio's MessageSid, Meta's wamid). */
  eventId: string;
  /** When the message was sent, epoch ms: Meta's timestamp, or the arrival time (Twilio sends none). */
  eventAt: number;
  phone: string;
  channel: Channel;
  keyword: Keyword;
};

/**
 * Whether an inbound keyword is to be acted on. A webhook delivered twice, or captured and sent
 * again, carries the same message id and is refused. A STOP or START older than the last one
 * already applied to that number and channel is refused too: a START captured before a STOP, sent
 * again after it, cannot undo the opt-out. Every event is recorded either way.
 */
export async function admitInboundEvent(db: D1Database, event: InboundEvent): Promise<"apply" | "replayed" | "stale"> {
  const drizzle = dbFor(db);
  const inserted = await drizzle
    .insert(inboundEvents)
    .values({
      provider: event.provider,
      eventId: event.eventId,
      phone: event.phone,
      channel: event.channel,
      kind: event.keyword.kind,
      eventAt: event.eventAt,
      receivedAt: Date.now(),
    })
    .onConflictDoNothing()
    .returning({ eventId: inboundEvents.eventId })
    .get();
  if (!inserted) return "replayed";
  if (event.keyword.kind === "help") return "apply";
  const later = await drizzle
    .select({ eventId: inboundEvents.eventId })
    .from(inboundEvents)
    .where(
      and(
        eq(inboundEvents.phone, event.phone),
        eq(inboundEvents.channel, event.channel),
        inArray(inboundEvents.kind, ["stop", "start"]),
        gt(inboundEvents.eventAt, event.eventAt),
        ne(inboundEvents.eventId, event.eventId),
      ),
    )
    .limit(1)
    .get();
  return later ? "stale" : "apply";
}
