import type { SendOutcome } from "../outcome";
import type { SmsMessage, SmsProvider } from "./provider";

/**
 * The embedded SMS provider for local runs: a message is "sent" by storing it in the outbox table
 * (the admin UI and end-to-end tests read it) and printing it to the dev log.
 */
export class OutboxSms implements SmsProvider {
  readonly name = "outbox";
  readonly sender = null;
  constructor(private readonly db: D1Database) {}

  async send(message: SmsMessage): Promise<SendOutcome> {
    const providerId = `OB${crypto.randomUUID().replace(/-/g, "")}`;
    await this.db.prepare("INSERT INTO outbox (channel, \"to\", body, provider_id) VALUES ('sms', ?, ?, ?)").bind(message.to, message.body, providerId).run();
    console.log(JSON.stringify({ level: "info", msg: "outbox.sms", to: message.to, body: message.body, providerId }));
    return { ok: true, providerId };
  }
}
