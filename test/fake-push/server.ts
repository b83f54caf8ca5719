/**
 * A fake Web Push service over real HTTP, playing the browser's push service for the Worker tests:
 * it makes subscriptions (a P-256 key pair and a 16-byte auth secret per endpoint it hands out,
 * `/push/<id>`), and for each message sent to an endpoint checks what a real one checks: the VAPID
 * header (RFC 8292: `vapid t=<JWT>, k=<public key>`, an ES256 signature by that key, `aud` the
 * endpoint's origin, `exp` in the future and at most 24 hours away, a `sub`), `TTL`, and
 * `Content-Encoding: aes128gcm`. It then DECRYPTS the body with the subscription's private key
 * (RFC 8291 and RFC 8188, written here with node:crypto, apart from the Worker's code) and keeps
 * the plaintext and headers for tests to read. A message with the `Topic` of one still kept for the
 * endpoint replaces it, as RFC 8030 section 5.4 says. An endpoint can be told to answer 404, 410,
 * 429 (with Retry-After) or 503 to its next messages.
 *
 * Control API: POST /__control/subscriptions → { endpoint, keys: { p256dh, auth } };
 * GET /__control/subscriptions/<id>/messages → { messages, accepted, refused };
 * POST /__control/subscriptions/<id>/faults (JSON { status, times?, retryAfter? }).
 *
 * Plain Node (type stripping only): run `node test/fake-push/server.ts --port 8793`.
 */
import { createDecipheriv, createECDH, createPublicKey, hkdfSync, randomBytes, randomUUID, verify } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { json, listen } from "../http.ts";

export type PushedMessage = {
  /** The decrypted body, as text. */
  plaintext: string;
  ttl: number;
  urgency: string | null;
  topic: string | null;
  receivedAt: number;
};

type Fault = { status: 404 | 410 | 429 | 503; times: number; retryAfter?: number };

type Subscription = {
  id: string;
  ecdh: ReturnType<typeof createECDH>;
  auth: Buffer;
  /** What a browser would be shown (replaced ones gone). */
  messages: PushedMessage[];
  /** Messages accepted (201), replaced ones counted too. */
  accepted: number;
  /** Messages refused, with the status answered. */
  refused: { status: number; reason: string }[];
  faults: Fault[];
};

const b64 = (buf: Buffer) => buf.toString("base64url");

async function readRaw(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Checks a VAPID Authorization header (RFC 8292) for an endpoint of `origin`; null when it holds, else why not. */
export function vapidProblem(header: string | undefined, origin: string, now = Date.now()): string | null {
  const match = /^vapid t=([\w-]+\.[\w-]+\.[\w-]+), k=([\w-]+)$/.exec(header ?? "");
  if (!match) return "Authorization is not `vapid t=…, k=…`";
  const [headerPart, payloadPart, signaturePart] = match[1]!.split(".") as [string, string, string];
  const point = Buffer.from(match[2]!, "base64url");
  if (point.length !== 65 || point[0] !== 4) return "k is not an uncompressed P-256 point";
  const jwtHeader = JSON.parse(Buffer.from(headerPart, "base64url").toString("utf8")) as { alg?: string };
  if (jwtHeader.alg !== "ES256") return "the JWT is not ES256";
  const key = createPublicKey({ key: { kty: "EC", crv: "P-256", x: b64(point.subarray(1, 33)), y: b64(point.subarray(33)) }, format: "jwk" });
  const signed = verify("sha256", Buffer.from(`${headerPart}.${payloadPart}`), { key, dsaEncoding: "ieee-p1363" }, Buffer.from(signaturePart, "base64url"));
  if (!signed) return "the JWT's signature does not verify with k";
  const claims = JSON.parse(Buffer.from(payloadPart, "base64url").toString("utf8")) as { aud?: string; exp?: number; sub?: string };
  if (claims.aud !== origin) return `aud is ${claims.aud}, not the endpoint's origin ${origin}`;
  const seconds = Math.floor(now / 1000);
  if (typeof claims.exp !== "number" || claims.exp <= seconds) return "exp is missing or past";
  if (claims.exp > seconds + 86_400) return "exp is more than 24 hours away";
  if (typeof claims.sub !== "string" || !/^(mailto:|https:)/.test(claims.sub)) return "sub is not a mailto: or https: contact";
  return null;
}

/** The browser's side of RFC 8291: the plaintext of an aes128gcm body for this subscription. */
export function decryptPushBody(body: Buffer, ecdh: ReturnType<typeof createECDH>, auth: Buffer): string {
  const salt = body.subarray(0, 16);
  const recordSize = body.readUInt32BE(16);
  const keyLength = body[20]!;
  const asPublic = body.subarray(21, 21 + keyLength);
  const record = body.subarray(21 + keyLength);
  if (record.length > recordSize) throw new Error("more than one record");
  const uaPublic = ecdh.getPublicKey();
  const shared = ecdh.computeSecret(asPublic);
  const info = (label: string) => Buffer.from(`Content-Encoding: ${label}\0`);
  const ikm = Buffer.from(hkdfSync("sha256", shared, auth, Buffer.concat([Buffer.from("WebPush: info\0"), uaPublic, asPublic]), 32));
  const cek = Buffer.from(hkdfSync("sha256", ikm, salt, info("aes128gcm"), 16));
  const nonce = Buffer.from(hkdfSync("sha256", ikm, salt, info("nonce"), 12));
  const decipher = createDecipheriv("aes-128-gcm", cek, nonce);
  decipher.setAuthTag(record.subarray(record.length - 16));
  const padded = Buffer.concat([decipher.update(record.subarray(0, record.length - 16)), decipher.final()]);
  let end = padded.length - 1;
  while (end >= 0 && padded[end] === 0) end--;
  if (padded[end] !== 2) throw new Error("the last record's delimiter is not 2");
  return padded.subarray(0, end).toString("utf8");
}

export async function startFakePush(options: { port?: number; host?: string } = {}) {
  const subscriptions = new Map<string, Subscription>();
  let origin = "";

  async function push(req: IncomingMessage, res: ServerResponse, subscription: Subscription | undefined) {
    const body = await readRaw(req);
    if (!subscription) return json(res, 404, { error: "no such subscription" });
    const refuse = (status: number, reason: string, headers: Record<string, string> = {}) => {
      subscription.refused.push({ status, reason });
      json(res, status, { error: reason }, headers);
    };
    const fault = subscription.faults[0];
    if (fault) {
      fault.times -= 1;
      if (fault.times <= 0) subscription.faults.shift();
      return refuse(fault.status, "injected fault", fault.retryAfter !== undefined ? { "Retry-After": String(fault.retryAfter) } : {});
    }
    const problem = vapidProblem(req.headers.authorization, origin);
    if (problem) return refuse(403, problem);
    const ttl = Number(req.headers.ttl);
    if (req.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0) return refuse(400, "TTL is missing or not a whole number");
    if (req.headers["content-encoding"] !== "aes128gcm") return refuse(415, "Content-Encoding is not aes128gcm");
    const topic = (req.headers.topic as string | undefined) ?? null;
    if (topic !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(topic)) return refuse(400, "Topic is not 1–32 url-safe characters");
    let plaintext: string;
    try {
      plaintext = decryptPushBody(body, subscription.ecdh, subscription.auth);
    } catch (err) {
      return refuse(400, `the body does not decrypt: ${err instanceof Error ? err.message : String(err)}`);
    }
    const message: PushedMessage = { plaintext, ttl, urgency: (req.headers.urgency as string | undefined) ?? null, topic, receivedAt: Date.now() };
    // RFC 8030, 5.4: a message with the topic of one still undelivered replaces it.
    const replaced = topic === null ? -1 : subscription.messages.findIndex((m) => m.topic === topic);
    if (replaced >= 0) subscription.messages[replaced] = message;
    else subscription.messages.push(message);
    subscription.accepted += 1;
    res.writeHead(201, { Location: `${origin}/message/${randomUUID()}` });
    res.end();
  }

  async function control(req: IncomingMessage, res: ServerResponse, path: string) {
    if (req.method === "POST" && path === "/__control/subscriptions") {
      const id = randomBytes(12).toString("base64url");
      const ecdh = createECDH("prime256v1");
      ecdh.generateKeys();
      const subscription: Subscription = { id, ecdh, auth: randomBytes(16), messages: [], accepted: 0, refused: [], faults: [] };
      subscriptions.set(id, subscription);
      return json(res, 201, { endpoint: `${origin}/push/${id}`, keys: { p256dh: b64(ecdh.getPublicKey()), auth: b64(subscription.auth) } });
    }
    const match = /^\/__control\/subscriptions\/([\w-]+)\/(messages|faults)$/.exec(path);
    const subscription = match ? subscriptions.get(match[1]!) : undefined;
    if (!match || !subscription) return json(res, 404, { error: "no such subscription" });
    if (req.method === "GET" && match[2] === "messages") {
      return json(res, 200, { messages: subscription.messages, accepted: subscription.accepted, refused: subscription.refused });
    }
    if (req.method === "POST" && match[2] === "faults") {
      const fault = JSON.parse((await readRaw(req)).toString("utf8") || "{}") as Partial<Fault>;
      if (![404, 410, 429, 503].includes(fault.status as number)) return json(res, 400, { error: "status must be 404, 410, 429 or 503" });
      subscription.faults.push({ status: fault.status!, times: fault.times ?? 1, retryAfter: fault.retryAfter });
      return json(res, 200, { faults: subscription.faults.length });
    }
    return json(res, 405, { error: "method not allowed" });
  }

  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://fake").pathname;
    const pushed = /^\/push\/([\w-]+)$/.exec(path);
    const handled = pushed && req.method === "POST" ? push(req, res, subscriptions.get(pushed[1]!)) : control(req, res, path);
    handled.catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    });
  });
  const listening = await listen(server, options.port ?? 0, options.host ?? "127.0.0.1");
  origin = listening.url;
  return listening;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portFlag = process.argv.indexOf("--port");
  const fake = await startFakePush({ port: portFlag > 0 ? Number(process.argv[portFlag + 1]) : 8793 });
  console.log(`Fake push service on ${fake.url}`);
}
