import { isProduction } from "../../config";
import { dbFor } from "../../db/client";
import { CloudApiWhatsApp } from "./cloud-api";
import { OutboxWhatsApp } from "./outbox";
import type { WhatsAppProvider } from "./types";

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
