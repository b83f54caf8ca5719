import { callProvider, providerTimeoutMs, readJson, retryAfterSeconds } from "../http-call";
import type { SendOutcome } from "../outcome";
import type { LookupOutcome, SmsLookup, SmsMessage, SmsProvider } from "./types";

type TwilioConfig = Pick<Env, "TWILIO_API_BASE" | "TWILIO_ACCOUNT_SID" | "TWILIO_AUTH_TOKEN" | "TWILIO_FROM" | "PROVIDER_TIMEOUT_MS">;

/**
 * Webhook connection overrides (twilio.com/docs/usage/webhooks/webhooks-connection-overrides) on
 * every StatusCallback URL: a callback our Worker refuses, fails (any status) or does not answer in
 * time is tried again, up to 5 times (Twilio's maximum; without it Twilio tries once more, and only
 * when it cannot connect). A fragment never travels in an HTTP request, so the webhook route adds
 * it back when it checks X-Twilio-Signature (src/worker/routes/webhooks.ts).
 */
export const TWILIO_CALLBACK_OVERRIDES = "#rc=5&rp=all";

/** How many of the newest messages to the number a lookup reads: one page. */
const LOOKUP_PAGE_SIZE = 50;

type TwilioMessageResource = {
  sid?: unknown;
  to?: unknown;
  from?: unknown;
  body?: unknown;
  status?: unknown;
  date_created?: unknown;
  error_code?: unknown;
  error_message?: unknown;
};

/** Where a Message resource's status leaves it: still on its way (accepted), delivered, or failed. */
function lookupStatus(status: string): "accepted" | "delivered" | "failed" {
  if (status === "delivered" || status === "read") return "delivered";
  if (status === "failed" || status === "undelivered" || status === "canceled") return "failed";
  return "accepted";
}

/**
 * Twilio Messages API: POST {base}/2010-04-01/Accounts/{sid}/Messages.json, form-encoded, Basic
 * auth. 429, 5xx and time-outs are worth retrying; any other 4xx is final and keeps Twilio's
 * error code (21211 invalid number, 21610 unsubscribed recipient, 21614 not a mobile number …).
 */
export class TwilioSms implements SmsProvider {
  readonly name = "twilio";
  readonly sender: string;

  constructor(private readonly config: TwilioConfig) {
    this.sender = `sms:${config.TWILIO_FROM}`;
  }

  async send(message: SmsMessage): Promise<SendOutcome> {
    const { TWILIO_FROM } = this.config;
    const form = new URLSearchParams({ To: message.to, From: TWILIO_FROM, Body: message.body });
    if (message.statusCallbackUrl) form.set("StatusCallback", withCallbackOverrides(message.statusCallbackUrl));
    const call = await callProvider(
      this.messagesUrl(),
      {
        method: "POST",
        headers: { Authorization: this.authorization(), "Content-Type": "application/x-www-form-urlencoded", Accept: "application/json" },
        body: form.toString(),
      },
      providerTimeoutMs(this.config),
    );
    if (!call.ok) return { ok: false, retryable: true, errorCode: call.errorCode, errorMessage: call.errorMessage };
    const { response } = call;
    const body = (await readJson(response)) as { sid?: unknown; code?: unknown; message?: unknown } | null;
    if (response.ok && typeof body?.sid === "string") return { ok: true, providerId: body.sid };
    const errorCode = typeof body?.code === "number" || typeof body?.code === "string" ? String(body.code) : `http_${response.status}`;
    const errorMessage = typeof body?.message === "string" ? body.message : `Twilio answered ${response.status}`;
    if (response.status === 429 || response.status >= 500) {
      return { ok: false, retryable: true, errorCode, errorMessage, retryAfterSeconds: retryAfterSeconds(response.headers.get("Retry-After")) };
    }
    if (response.ok) return { ok: false, retryable: false, errorCode: "bad_response", errorMessage: "Twilio accepted the message without a message SID" };
    return { ok: false, retryable: false, errorCode, errorMessage };
  }

  /**
   * The Messages list resource, filtered by To and From, newest first: the first message created
   * since `since` with our text is ours. One page; a number gets at most a few messages from us in
   * the minutes a lookup looks back over.
   */
  async lookup(query: SmsLookup): Promise<LookupOutcome> {
    const params = new URLSearchParams({ To: query.to, From: this.config.TWILIO_FROM, PageSize: String(LOOKUP_PAGE_SIZE) });
    const call = await callProvider(
      `${this.messagesUrl()}?${params}`,
      { method: "GET", headers: { Authorization: this.authorization(), Accept: "application/json" } },
      providerTimeoutMs(this.config),
    );
    if (!call.ok) return { found: null, errorCode: call.errorCode, errorMessage: call.errorMessage };
    const { response } = call;
    const body = (await readJson(response)) as { messages?: unknown; code?: unknown; message?: unknown } | null;
    if (!response.ok || !Array.isArray(body?.messages)) {
      const errorCode = typeof body?.code === "number" || typeof body?.code === "string" ? String(body.code) : `http_${response.status}`;
      return { found: null, errorCode, errorMessage: typeof body?.message === "string" ? body.message : `Twilio answered ${response.status} to the lookup` };
    }
    for (const m of body.messages as TwilioMessageResource[]) {
      const created = typeof m.date_created === "string" ? Date.parse(m.date_created) : Number.NaN;
      if (typeof m.sid !== "string" || m.to !== query.to || m.from !== this.config.TWILIO_FROM || m.body !== query.body) continue;
      if (!(created >= query.since)) continue;
      const status = lookupStatus(typeof m.status === "string" ? m.status : "");
      return {
        found: true,
        providerId: m.sid,
        status,
        errorCode: status === "failed" ? (m.error_code !== null && m.error_code !== undefined ? String(m.error_code) : String(m.status)) : null,
        errorMessage: status === "failed" ? (typeof m.error_message === "string" ? m.error_message : `Twilio reports the message ${String(m.status)}`) : null,
      };
    }
    return { found: false };
  }

  private messagesUrl(): string {
    return `${this.config.TWILIO_API_BASE.replace(/\/$/, "")}/2010-04-01/Accounts/${encodeURIComponent(this.config.TWILIO_ACCOUNT_SID)}/Messages.json`;
  }

  private authorization(): string {
    return `Basic ${btoa(`${this.config.TWILIO_ACCOUNT_SID}:${this.config.TWILIO_AUTH_TOKEN}`)}`;
  }
}

/** The StatusCallback URL with our connection overrides (any fragment it had is replaced). */
export function withCallbackOverrides(url: string): string {
  const hash = url.indexOf("#");
  return `${hash >= 0 ? url.slice(0, hash) : url}${TWILIO_CALLBACK_OVERRIDES}`;
}
