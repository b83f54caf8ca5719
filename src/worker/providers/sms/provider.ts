import { isProduction } from "../../config";
import { dbFor } from "../../db/client";
import { OutboxSms } from "./outbox";
import { TwilioSms } from "./twilio";
import type { SmsProvider } from "./types";

type Factory = (env: Env) => SmsProvider;
const factories: Readonly<Record<string, Factory>> = {
  outbox: (env) => {
    // Belt and braces behind src/worker/config.ts: the outbox keeps codes where admins can read them.
    if (isProduction(env)) throw new Error("The outbox provider is not available in production");
    return new OutboxSms(dbFor(env.DB));
  },
  twilio: (env) => new TwilioSms(env),
};

/** The SMS provider the SMS_PROVIDER setting names: "outbox" (embedded default), or "twilio". */
export function createSmsProvider(env: Env): SmsProvider {
  const factory = factories[env.SMS_PROVIDER];
  if (!factory) throw new Error(`Unknown SMS_PROVIDER "${env.SMS_PROVIDER}"`);
  return factory(env);
}
