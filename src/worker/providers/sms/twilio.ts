import { callProvider, providerTimeoutMs, readJson, retryAfterSeconds } from "../http-call";
import type { SendOutcome } from "../outcome";
import type { SmsMessage, SmsProvider } from "./provider";

type TwilioConfig = Pick<Env, "TWILIO_API_BASE" | "TWILIO_ACCOUNT_SID" | "TWILIO_AUTH_TOKEN" | "TWILIO_FROM" | "PROVIDER_TIMEOUT_MS">;

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
    const { TWILIO_API_BASE, TWILIO_ACCOUNT_SID, TWILIO_AUTH_TOKEN, TWILIO_FROM } = this.config;
    const form = new URLSearchParams({ To: message.to, From: TWILIO_FROM, Body: message.body });
    if (message.statusCallbackUrl) form.set("StatusCallback", message.statusCallbackUrl);
    const url = `${TWILIO_API_BASE.replace(/\/$/, "")}/2010-04-01/Accounts/${encodeURIComponent(TWILIO_ACCOUNT_SID)}/Messages.json`;
    const call = await callProvider(
      url,
      {
        method: "POST",
        headers: {
          Authorization: `Basic ${btoa(`${TWILIO_ACCOUNT_SID}:${TWILIO_AUTH_TOKEN}`)}`,
          "Content-Type": "application/x-www-form-urlencoded",
          Accept: "application/json",
        },
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
}
