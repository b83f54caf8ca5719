import type { TemplateRef, WhatsAppTemplate } from "../../../shared/templates";
import { isProduction } from "../../config";
import { dbFor } from "../../db/client";
import type { SendOutcome } from "../outcome";
import { CloudApiWhatsApp } from "./cloud-api";
import { OutboxWhatsApp } from "./outbox";

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

type Factory = (env: Env) => WhatsAppProvider;
const factories: Record<string, Factory> = {
  outbox: (env) => {
    // Belt and braces behind src/worker/config.ts: the outbox keeps codes where admins can read them.
    if (isProduction(env)) throw new Error("The outbox provider is not available in production");
    return new OutboxWhatsApp(dbFor(env.DB));
  },
  "cloud-api": (env) => new CloudApiWhatsApp(env),
};

/** The WhatsApp provider the WHATSAPP_PROVIDER setting names: "outbox" (embedded default) or "cloud-api". */
export function createWhatsAppProvider(env: Env): WhatsAppProvider {
  const factory = factories[env.WHATSAPP_PROVIDER];
  if (!factory) throw new Error(`Unknown WHATSAPP_PROVIDER "${env.WHATSAPP_PROVIDER}"`);
  return factory(env);
}
