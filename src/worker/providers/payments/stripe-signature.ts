const encoder = new TextEncoder();

/**
 * A Stripe-Signature header for a payload: `t=<unix seconds>,v1=<hex HMAC-SHA256 of "t.payload">`
 * keyed with the endpoint's signing secret (the whole whsec_… string), as Stripe signs its events.
 * The Stripe emulator signs its events with it, so they pass the same verification as Stripe's.
 */
export async function stripeSignatureHeader(payload: string, secret: string, timestampSeconds = Math.floor(Date.now() / 1000)): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${timestampSeconds}.${payload}`)));
  return `t=${timestampSeconds},v1=${Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
