import { and, desc, eq, gte } from "drizzle-orm";
import type { Db } from "../../db/client";
import { outbox } from "../../db/schema";
import type { SendOutcome } from "../outcome";
import type { LookupOutcome, SmsLookup, SmsMessage, SmsProvider } from "./types";

/**
 * The embedded SMS provider for local runs: a message is "sent" by storing it in the outbox table
 * (the admin UI and end-to-end tests read it) and printing it to the dev log.
 */
export class OutboxSms implements SmsProvider {
  readonly name = "outbox";
  readonly sender = null;
  constructor(private readonly db: Db) {}

  async send(message: SmsMessage): Promise<SendOutcome> {
    const providerId = `OB${crypto.randomUUID().replace(/-/g, "")}`;
    await this.db.insert(outbox).values({ channel: "sms", to: message.to, body: message.body, providerId });
    console.log(JSON.stringify({ level: "info", msg: "outbox.sms", to: message.to, body: message.body, providerId }));
    return { ok: true, providerId };
  }

  /** The outbox knows exactly what it stored: a stored message is one the "provider" accepted. */
  async lookup(query: SmsLookup): Promise<LookupOutcome> {
    const found = await this.db
      .select({ providerId: outbox.providerId })
      .from(outbox)
      .where(and(eq(outbox.channel, "sms"), eq(outbox.to, query.to), eq(outbox.body, query.body), gte(outbox.createdAt, query.since)))
      .orderBy(desc(outbox.createdAt))
      .get();
    return found ? { found: true, providerId: found.providerId, status: "accepted", errorCode: null, errorMessage: null } : { found: false };
  }
}
