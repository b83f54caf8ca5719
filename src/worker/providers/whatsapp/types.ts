import type { TemplateRef, WhatsAppTemplate } from "../../../shared/templates";
import type { SendOutcome } from "../outcome";

/** What every WhatsApp adapter does (the Cloud API, the embedded outbox); provider.ts picks the one WHATSAPP_PROVIDER names. */
export interface WhatsAppProvider {
  readonly name: string;
  /** Pacing key ("whatsapp:{phone-number-id}"); null for the embedded outbox. */
  readonly sender: string | null;
  /**
   * `reference` travels with the message and comes back in its status webhooks (Meta's
   * biz_opaque_callback_data): the ledger row a send belongs to, so its outcome can be settled
   * from the webhook when the answer to the send itself never came.
   */
  sendTemplate(to: string, template: TemplateRef, reference?: string): Promise<SendOutcome>;
  /** Free text, allowed inside the 24-hour window after the user wrote to us (the HELP reply). */
  sendText(to: string, body: string): Promise<SendOutcome>;
  /** The provider's approved-or-not template list, or null when our table is the source (the outbox). */
  fetchTemplates(): Promise<WhatsAppTemplate[] | null>;
}
