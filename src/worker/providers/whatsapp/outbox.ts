import { and, eq } from "drizzle-orm";
import type { TemplateRef } from "../../../shared/templates";
import type { Db } from "../../db/client";
import { outbox, whatsappTemplates } from "../../db/schema";
import type { SendOutcome } from "../outcome";
import { renderTemplate } from "./template";
import type { WhatsAppProvider } from "./types";

/**
 * The embedded WhatsApp provider for local runs: a send stores the rendered template in the outbox
 * (channel 'whatsapp'). Templates come from our own table (seeded), so the same "template does not
 * exist" failure as Meta's (132001) is possible.
 */
export class OutboxWhatsApp implements WhatsAppProvider {
  readonly name = "outbox";
  readonly sender = null;
  constructor(private readonly db: Db) {}

  async sendTemplate(to: string, template: TemplateRef): Promise<SendOutcome> {
    const row = await this.db
      .select({ components: whatsappTemplates.components })
      .from(whatsappTemplates)
      .where(and(eq(whatsappTemplates.name, template.name), eq(whatsappTemplates.language, template.language)))
      .get();
    if (!row) return { ok: false, retryable: false, errorCode: "132001", errorMessage: `Template ${template.name} (${template.language}) does not exist` };
    return this.store(to, renderTemplate(row.components, template.components));
  }

  sendText(to: string, body: string): Promise<SendOutcome> {
    return this.store(to, body);
  }

  async fetchTemplates(): Promise<null> {
    return null;
  }

  private async store(to: string, body: string): Promise<SendOutcome> {
    const providerId = `wamid.OB${crypto.randomUUID().replace(/-/g, "")}`;
    await this.db.insert(outbox).values({ channel: "whatsapp", to, body, providerId });
    console.log(JSON.stringify({ level: "info", msg: "outbox.whatsapp", to, body, providerId }));
    return { ok: true, providerId };
  }
}
