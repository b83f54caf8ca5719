/** Signed requests to the providers' webhooks, and the rows they act on (routes/webhooks*.test.ts). */
import { env } from "cloudflare:test";
import { twilioSignature } from "../providers/webhook-signatures";
import { api, createUser, uniquePhone, uniqueTag } from "./fixtures";

export const TOKEN = "test-twilio-token";
export const APP_SECRET = "test-whatsapp-secret";

export async function hubSignature(secret: string, body: string) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(body));
  return `sha256=${[...new Uint8Array(mac)].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export async function twilioPost(path: string, params: Record<string, string>, signature?: string | null) {
  const url = `https://bp.test${path}`;
  const form = new URLSearchParams(params);
  const sig = signature === undefined ? await twilioSignature(TOKEN, url, form) : signature;
  return api(path, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded", ...(sig ? { "X-Twilio-Signature": sig } : {}) },
    body: form.toString(),
  });
}

export async function metaPost(payload: unknown, signature?: string | null) {
  const body = typeof payload === "string" ? payload : JSON.stringify(payload);
  const sig = signature === undefined ? await hubSignature(APP_SECRET, body) : signature;
  return api("/api/webhooks/whatsapp", {
    method: "POST",
    headers: { "Content-Type": "application/json", ...(sig ? { "X-Hub-Signature-256": sig } : {}) },
    body,
  });
}

/** A sent campaign row with a provider id, to receive receipts for. */
export async function sentRow(providerId: string, channel: "sms" | "whatsapp" = "sms") {
  const author = await createUser({ isAdmin: true, roleName: "owner" });
  const campaign = await env.DB.prepare(
    "INSERT INTO campaigns (app, channel, source, message, audience, author_id, idempotency_key, status) VALUES ('flex', ?, 'list', 'x', '{}', ?, ?, 'done') RETURNING id",
  )
    .bind(channel, author.id, uniqueTag("k"))
    .first<{ id: number }>();
  const row = await env.DB.prepare("INSERT INTO campaign_messages (campaign_id, phone, status, provider_id, attempts) VALUES (?, ?, 'sent', ?, 1) RETURNING id")
    .bind(campaign!.id, uniquePhone(), providerId)
    .first<{ id: number }>();
  return row!.id;
}
/** A row whose send got no answer: claimed ('sending') and waiting for its callback. */
export async function sendingRow(channel: "sms" | "whatsapp") {
  const id = await sentRow(`${channel === "sms" ? "SM" : "wamid."}${uniqueTag("x")}`, channel);
  await env.DB.prepare("UPDATE campaign_messages SET status = 'sending', provider_id = NULL, held_until = ? WHERE id = ?")
    .bind(Date.now() + 30_000, id)
    .run();
  return id;
}

export const PHONE_NUMBER_ID = "100000000000000";
export const nowSeconds = () => String(Math.floor(Date.now() / 1000));

export const rowOf = (id: number) =>
  env.DB.prepare("SELECT status, error_code, error_message FROM campaign_messages WHERE id = ?")
    .bind(id)
    .first<{ status: string; error_code: string | null; error_message: string | null }>();
export const optOutOf = (phone: string, channel: string) =>
  env.DB.prepare("SELECT keyword FROM opt_outs WHERE phone = ? AND channel = ?").bind(phone, channel).first<{ keyword: string }>();
