import type { TemplateComponent, TemplateRef } from "../../../shared/templates";
import type { SendOutcome } from "../outcome";
import type { WhatsAppProvider } from "./provider";
import { renderTemplate } from "./template";

/**
 * The embedded WhatsApp provider for local runs: a send stores the rendered template in the outbox
 * (channel 'whatsapp'). Templates come from our own table (seeded), so the same "template does not
 * exist" failure as Meta's (132001) is possible.
 */
export class OutboxWhatsApp implements WhatsAppProvider {
  readonly name = "outbox";
  readonly sender = null;
  constructor(private readonly db: D1Database) {}

  async sendTemplate(to: string, template: TemplateRef): Promise<SendOutcome> {
    const row = await this.db
      .prepare("SELECT components FROM whatsapp_templates WHERE name = ? AND language = ?")
      .bind(template.name, template.language)
      .first<{ components: string }>();
    if (!row) return { ok: false, retryable: false, errorCode: "132001", errorMessage: `Template ${template.name} (${template.language}) does not exist` };
    return this.store(to, renderTemplate(JSON.parse(row.components) as TemplateComponent[]));
  }

  sendText(to: string, body: string): Promise<SendOutcome> {
    return this.store(to, body);
  }

  async fetchTemplates(): Promise<null> {
    return null;
  }

  private async store(to: string, body: string): Promise<SendOutcome> {
    const providerId = `wamid.OB${crypto.randomUUID().replace(/-/g, "")}`;
    await this.db.prepare("INSERT INTO outbox (channel, \"to\", body, provider_id) VALUES ('whatsapp', ?, ?, ?)").bind(to, body, providerId).run();
    console.log(JSON.stringify({ level: "info", msg: "outbox.whatsapp", to, body, providerId }));
    return { ok: true, providerId };
  }
}
