import type { SendOutcome } from "../outcome";

export type SmsMessage = { to: string; body: string; statusCallbackUrl?: string };

/** What the provider holds that matches a send whose answer never came (src/worker/messaging/provider-send.ts, reconcile). */
export type SmsLookup = {
  to: string;
  body: string;
  /** Only messages the provider created at or after this instant count (epoch ms; the caller has already allowed for clock skew). */
  since: number;
};

/**
 * The provider's answer: it has the message (with its id and where it stands), it has none, or the
 * question itself failed (a time-out, 429, 5xx: ask again later).
 */
export type LookupOutcome =
  | { found: true; providerId: string; status: "accepted" | "delivered" | "failed"; errorCode: string | null; errorMessage: string | null }
  | { found: false }
  | { found: null; errorCode: string; errorMessage: string };

/** What every SMS adapter does (Twilio, the embedded outbox); provider.ts picks the one SMS_PROVIDER names. */
export interface SmsProvider {
  readonly name: string;
  /**
   * Who the provider's throughput limit applies to (e.g. "sms:+15005550006"), the key of its send
   * pacer; null for the embedded outbox, which has no limit to respect.
   */
  readonly sender?: string | null;
  send(message: SmsMessage): Promise<SendOutcome>;
  /**
   * Whether the provider has a message like this one (same recipient, our sender, same text,
   * created since `since`): asked before sending again a message whose send got no answer, so a
   * message the provider did accept is settled from its record instead of going out twice.
   */
  lookup(query: SmsLookup): Promise<LookupOutcome>;
}
