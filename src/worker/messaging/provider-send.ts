import { dbFor } from "../db/client";
import type { SendOutcome } from "../providers/outcome";
import { createSmsProvider } from "../providers/sms/provider";
import type { LookupOutcome } from "../providers/sms/types";
import { createWhatsAppProvider } from "../providers/whatsapp/provider";
import { type JobContext, RetryLater } from "../queue";
import type { MessageRecord } from "./dispatch-batch";
import { failMessage, holdMessage, recordSent, retryMessage } from "./message-ledger";
import { applyStatusCallback } from "./receipts";
import { callbackWaitMs, leaseMs, resendWaitMs } from "./waits";

/**
 * One ledger row at its channel's provider: the send, bound to the row's content and tagged with
 * it; what the provider answered, written to the row; and, for a send whose answer never came, the
 * question whether the provider has it (docs/messaging-rules.md, "Sends that got no answer").
 */

/**
 * A lookup at the provider (reconcile) counts messages created this long before the row was first
 * claimed: clocks differ a little, and Twilio's date_created has whole seconds.
 */
export const LOOKUP_CLOCK_ALLOWANCE_MS = 5_000;

/**
 * What a send carries to name its ledger row in the provider's status callbacks: `m` in Twilio's
 * StatusCallback URL (covered by its signature), WhatsApp's biz_opaque_callback_data "m:<id>".
 */
export const callbackReference = (messageId: number) => `m:${messageId}`;

/** A provider for the campaign's channel, bound to one message's content and tagged with its row. */
export function senderFor(env: Env, m: MessageRecord): { sender: string | null; send: () => Promise<SendOutcome> } {
  if (m.channel === "sms") {
    const sms = createSmsProvider(env);
    const statusCallbackUrl = `${env.APP_ORIGIN.replace(/\/$/, "")}/api/webhooks/twilio/status?m=${m.id}`;
    return { sender: sms.sender ?? null, send: () => sms.send({ to: m.phone, body: m.message ?? "", statusCallbackUrl }) };
  }
  const whatsapp = createWhatsAppProvider(env);
  const template = m.template;
  return {
    sender: whatsapp.sender,
    send: () =>
      template
        ? whatsapp.sendTemplate(m.phone, template, callbackReference(m.id))
        : Promise.resolve<SendOutcome>({ ok: false, retryable: false, errorCode: "no_template", errorMessage: "The campaign has no template" }),
  };
}

/**
 * Records what the provider said, on a row this consumer still holds, in one transaction with
 * what follows from it (message-ledger.ts): a delivery receipt that beat us here is applied, and a
 * campaign whose last row this was is closed.
 */
export async function record(
  env: Pick<Env, "DB" | "CALLBACK_WAIT_SECONDS">,
  m: { id: number; campaignId: number },
  outcome: SendOutcome,
  holdMs: number = callbackWaitMs(env),
): Promise<void> {
  const db = dbFor(env.DB);
  const now = Date.now();
  if (outcome.ok) await recordSent(db, m, outcome.providerId, now);
  // The provider may have accepted it: the row stays ours ('sending') for `holdMs`; its callback
  // settles it meanwhile, or after the wait the returning job asks the provider (SMS) and sends it
  // again only if the provider has no such message (reconcile).
  else if (isAmbiguous(outcome)) await holdMessage(db, m.id, now + holdMs, outcome, now);
  // A transient failure hands the row back (pending) with the error visible until the retry.
  else if (outcome.retryable) await retryMessage(db, m.id, outcome, now);
  else await failMessage(db, m, outcome, now);
}

/** No answer at all: a time-out or a dropped connection, after which the provider may or may not have the message. */
export function isAmbiguous(outcome: SendOutcome): boolean {
  return !outcome.ok && outcome.retryable && (outcome.errorCode === "timeout" || outcome.errorCode === "network_error");
}

/**
 * Before a held SMS (or one whose consumer died mid-send) is sent again: does the provider have
 * it (same number, our sender, same text, created since the row was first claimed)? Found: the row is settled from the provider's record,
 * as its callback would have settled it, and nothing is sent. Not found: false, the caller sends.
 * The question failing: the row is held again (RetryLater), within the queue's retries; past them
 * the dead-letter queue fails the row visibly.
 */
export async function reconcile(env: Env, ctx: JobContext, m: MessageRecord): Promise<boolean> {
  const since = (m.firstClaimedAt ?? m.updatedAt - leaseMs(env)) - LOOKUP_CLOCK_ALLOWANCE_MS;
  let answer: LookupOutcome;
  try {
    answer = await createSmsProvider(env).lookup({ to: m.phone, body: m.message ?? "", since });
  } catch (err) {
    answer = { found: null, errorCode: "lookup_error", errorMessage: err instanceof Error ? err.message : String(err) };
  }
  if (answer.found === false) return false;
  if (answer.found) {
    const { providerId, status, errorCode, errorMessage } = answer;
    await applyStatusCallback(env, { messageId: m.id, providerId, status, errorCode, errorMessage });
    ctx.log.info("dispatch.reconciled", { messageId: m.id, providerId: answer.providerId, status: answer.status });
    return true;
  }
  const now = Date.now();
  const holdMs = resendWaitMs(env, "sms");
  await holdMessage(
    dbFor(env.DB),
    m.id,
    now + holdMs,
    { errorCode: "lookup_failed", errorMessage: `Could not ask the provider whether it has the message (${answer.errorCode}: ${answer.errorMessage})` },
    now,
  );
  throw new RetryLater(`lookup for message ${m.id} failed: ${answer.errorCode}`, Math.ceil(holdMs / 1000));
}
