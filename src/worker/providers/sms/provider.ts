import type { SendOutcome } from "../outcome";
import { OutboxSms } from "./outbox";

export type SmsMessage = { to: string; body: string; statusCallbackUrl?: string };

export interface SmsProvider {
  readonly name: string;
  send(message: SmsMessage): Promise<SendOutcome>;
}

type Factory = (env: Env) => SmsProvider;
const factories: Record<string, Factory> = {
  outbox: (env) => new OutboxSms(env.DB),
};

/** Real adapters register themselves here (keyed by the SMS_PROVIDER setting). */
export function registerSmsProvider(name: string, factory: Factory) {
  factories[name] = factory;
}

/** The SMS provider the SMS_PROVIDER setting names: "outbox" (embedded default) or a registered real one. */
export function createSmsProvider(env: Env): SmsProvider {
  const factory = factories[env.SMS_PROVIDER];
  if (!factory) throw new Error(`Unknown SMS_PROVIDER "${env.SMS_PROVIDER}"`);
  return factory(env);
}
