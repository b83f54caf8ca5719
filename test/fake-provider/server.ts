/**
 * A fake SMS/WhatsApp provider over real HTTP, shaped like Twilio's Messages API and Meta's Cloud
 * API, for the Worker tests and the dispatch bench. It checks what the real ones check (Basic auth,
 * Bearer token, E.164 numbers, known templates), limits throughput with a token bucket answering
 * 429 + Retry-After, injects 429s, 5xx and time-outs (requests it never answers, nothing accepted)
 * and the ambiguous kind: accept the message, then never answer ("accept-timeout"), fails chosen
 * numbers permanently, can post signed delivery callbacks (Twilio's StatusCallback; Meta's status
 * webhook, echoing biz_opaque_callback_data), retries a callback that is refused, fails or times out
 * as the real ones do (Twilio: the connection overrides of the StatusCallback URL's fragment; Meta:
 * anything but a 200, with growing delays, for days), answers Twilio's Messages list (the lookup
 * before a re-send), and records every message it accepted so duplicates and losses can be counted.
 *
 * Tenants keep concurrent tests apart: a base URL of http://host:port/t/<tenant> has its own
 * configuration, bucket and records; without the prefix the tenant is "default".
 *
 * Control API (per tenant): POST /__control/config (JSON, merged), POST /__control/reset,
 * GET /__control/messages, GET /__control/stats.
 *
 * Callback retries, as documented:
 * - Twilio (twilio.com/docs/usage/webhooks/webhooks-connection-overrides): the StatusCallback URL's
 *   fragment may set `rc` (retries, 0–5; default 1), `rp` (when to retry: `4xx`, `5xx`, `ct`
 *   connection failure, `rt` read time-out, `all`; default `ct`), `ct`/`rt` (connect and read
 *   time-outs, ms) and `tt` (all attempts together, ms; at most 15,000). The fragment is not sent;
 *   the signature covers the URL as supplied, fragment included (`twilioSignsFragment`).
 * - Meta (WhatsApp Cloud API webhooks): anything but a 200, or no answer, is delivered again with
 *   growing delays for up to 7 days.
 *
 * Plain Node (type stripping only): run `node test/fake-provider/server.ts --port 8790`.
 */
import { createHmac, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { json, listen, readBody, tenantPath } from "../http.ts";

export type Fault = { kind: "429"; retryAfter?: number } | { kind: "5xx"; status?: number } | { kind: "timeout" } | { kind: "accept-timeout" };
/** Faults a lookup (GET Messages.json) can meet: the accept-timeout kind makes no sense there. */
export type LookupFault = Exclude<Fault, { kind: "accept-timeout" }>;

export type TemplateComponent = { type: string; format?: string; text?: string };
export type FakeTemplate = { id: string; name: string; language: string; status: string; category?: string; components: TemplateComponent[] };

export type FakeConfig = {
  twilio: { accountSid: string; authToken: string };
  whatsapp: { token: string; phoneNumberId: string; businessAccountId: string; appSecret: string };
  /** Messages per second per sender (token bucket); null for no limit. */
  rate: number | null;
  /** Bucket capacity: how many may arrive at once after a quiet spell. */
  burst: number;
  /** Probabilities (0..1) of injected faults per request. */
  fail429: number;
  fail5xx: number;
  failTimeout: number;
  /** Accept the message (and call back), then never answer: the sender cannot know it went out. */
  failAcceptTimeout: number;
  /** Retry-After (seconds) on an injected 429. */
  retryAfter: number;
  /** Faults for the next requests, in order, before any random ones (deterministic tests). */
  script: Fault[];
  /** Numbers that always fail, with the provider's error code (e.g. 21211, 21610, 131026). */
  permanent: Record<string, string>;
  /** Post a signed delivery callback to StatusCallback this long after accepting (null: never). */
  callbackDelayMs: number | null;
  /** Numbers whose delivery callback says undelivered (30003) instead of delivered. */
  undeliverable: string[];
  /** The first delay between deliveries of a refused callback, doubling after each (Twilio within its `tt`, Meta for days). */
  callbackRetryBaseMs: number;
  /** Twilio signs the StatusCallback URL as supplied, connection-override fragment included; false: without it. */
  twilioSignsFragment: boolean;
  /** Faults for the next lookups (GET Messages.json), in order. */
  lookupScript: LookupFault[];
  /** Where Meta-style status webhooks go (signed with whatsapp.appSecret); null: none. */
  whatsappCallbackUrl: string | null;
  templates: FakeTemplate[];
  /** Page size of the template list (to exercise paging). */
  templatePageSize: number;
  /** The origin the template list's `paging.next` links name (a tampered or misrouted answer); null: the request's own. */
  templateNextOrigin: string | null;
};

export type AcceptedMessage = {
  id: string;
  channel: "sms" | "whatsapp";
  to: string;
  from: string;
  body: string;
  at: number;
  statusCallback?: string;
  /** WhatsApp: the sender's biz_opaque_callback_data, echoed in the status webhook. */
  reference?: string;
  /** Accepted, but the answer was never sent (the "accept-timeout" fault). */
  unanswered?: boolean;
  /** Twilio's Message status as the list resource shows it: queued until the delivery callback is generated. */
  status: string;
  errorCode?: number;
  /** When a status callback for it was first taken (2xx), and when a lookup (the Messages list) first showed it. */
  callbackAt?: number;
  listedAt?: number;
};

type Tenant = {
  config: FakeConfig;
  accepted: AcceptedMessage[];
  /** SMS requests the "timeout" fault left unanswered (nothing accepted): when, to whom, what. */
  timedOut: { to: string; body: string; at: number }[];
  buckets: Map<string, { tokens: number; at: number }>;
  rejected: { rateLimited: number; injected429: number; injected5xx: number; timeouts: number; permanent: number; invalid: number; unauthorized: number };
  /** Messages accepted whose answer was withheld. */
  acceptedUnanswered: number;
  /** Callbacks: delivered (2xx), given up on after the provider's retries, and deliveries retried. */
  callbacks: { sent: number; failed: number; retried: number };
  /** The delay each callback retry was scheduled after, in order (what a test asserts, not the clock). */
  callbackRetryDelaysMs: number[];
  /** Lookups answered with a page, and lookups a scripted fault failed. */
  lookups: { answered: number; failed: number };
  /** Template-list requests taken (GET message_templates), on whatever origin they came. */
  templateLists: number;
  /** Pending callback retries, cleared on reset. */
  timers: Set<ReturnType<typeof setTimeout>>;
};

export function defaultConfig(): FakeConfig {
  return {
    twilio: { accountSid: "ACtest", authToken: "test-twilio-token" },
    whatsapp: { token: "test-whatsapp-token", phoneNumberId: "100000000000000", businessAccountId: "200000000000000", appSecret: "test-whatsapp-secret" },
    rate: null,
    burst: 1,
    fail429: 0,
    fail5xx: 0,
    failTimeout: 0,
    failAcceptTimeout: 0,
    retryAfter: 1,
    script: [],
    permanent: {},
    callbackDelayMs: null,
    undeliverable: [],
    callbackRetryBaseMs: 500,
    twilioSignsFragment: true,
    lookupScript: [],
    whatsappCallbackUrl: null,
    templates: [
      {
        id: "tpl_welcome_en",
        name: "welcome_back",
        language: "en_US",
        status: "APPROVED",
        category: "MARKETING",
        components: [
          { type: "HEADER", format: "TEXT", text: "Welcome back" },
          { type: "BODY", text: "Your blocks are waiting." },
        ],
      },
    ],
    templatePageSize: 100,
    templateNextOrigin: null,
  };
}

const newTenant = (): Tenant => ({
  config: defaultConfig(),
  accepted: [],
  timedOut: [],
  buckets: new Map(),
  rejected: { rateLimited: 0, injected429: 0, injected5xx: 0, timeouts: 0, permanent: 0, invalid: 0, unauthorized: 0 },
  acceptedUnanswered: 0,
  callbacks: { sent: 0, failed: 0, retried: 0 },
  callbackRetryDelaysMs: [],
  lookups: { answered: 0, failed: 0 },
  templateLists: 0,
  timers: new Set(),
});

const id = (prefix: string) => `${prefix}${randomBytes(16).toString("hex")}`;

/** Twilio's signature over a callback: the URL, then the sorted parameters' names and values. */
export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  let data = url;
  for (const name of [...new Set(params.keys())].sort()) for (const value of params.getAll(name).sort()) data += name + value;
  return createHmac("sha1", authToken).update(data).digest("base64");
}

export function metaSignature(appSecret: string, body: string): string {
  return `sha256=${createHmac("sha256", appSecret).update(body).digest("hex")}`;
}

export type FakeProvider = { url: string; port: number; close: () => Promise<void> };

export async function startFakeProvider({ port = 0, host = "127.0.0.1" }: { port?: number; host?: string } = {}): Promise<FakeProvider> {
  const tenants = new Map<string, Tenant>();
  const held = new Set<ServerResponse>();
  const tenantOf = (name: string) => {
    let t = tenants.get(name);
    if (!t) {
      t = newTenant();
      tenants.set(name, t);
    }
    return t;
  };

  /** An injected fault for this request, if any (scripted ones first). */
  function injected(t: Tenant): Fault | null {
    const scripted = t.config.script.shift();
    if (scripted) return scripted;
    const roll = Math.random();
    if (roll < t.config.fail429) return { kind: "429" };
    if (roll < t.config.fail429 + t.config.fail5xx) return { kind: "5xx" };
    if (roll < t.config.fail429 + t.config.fail5xx + t.config.failTimeout) return { kind: "timeout" };
    if (roll < t.config.fail429 + t.config.fail5xx + t.config.failTimeout + t.config.failAcceptTimeout) return { kind: "accept-timeout" };
    return null;
  }

  /** Takes a token from the sender's bucket, or answers how many seconds until one is there. */
  function takeToken(t: Tenant, sender: string): number | null {
    const { rate, burst } = t.config;
    if (rate === null) return null;
    const now = Date.now();
    const b = t.buckets.get(sender) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    t.buckets.set(sender, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }

  /** Keeps a request open without ever answering it (the client's time-out ends it). */
  function hold(res: ServerResponse) {
    held.add(res);
    res.on("close", () => held.delete(res));
  }

  /**
   * Applies faults and the rate limit: "answer" when the message is accepted and answered,
   * "withhold" when it is accepted but the answer never comes, false when it was refused (answered or held).
   */
  function admit(t: Tenant, res: ServerResponse, sender: string, errorBody: (code: number, message: string) => unknown): "answer" | "withhold" | false {
    const fault = injected(t);
    if (fault?.kind === "timeout") {
      // Never answered: the client's time-out is what ends it. Nothing was accepted.
      t.rejected.timeouts++;
      hold(res);
      return false;
    }
    if (fault?.kind === "429") {
      t.rejected.injected429++;
      json(res, 429, errorBody(20429, "Too Many Requests"), { "Retry-After": String(fault.retryAfter ?? t.config.retryAfter) });
      return false;
    }
    if (fault?.kind === "5xx") {
      t.rejected.injected5xx++;
      json(res, fault.status ?? 503, errorBody(20500, "Service unavailable"));
      return false;
    }
    const wait = takeToken(t, sender);
    if (wait !== null) {
      t.rejected.rateLimited++;
      json(res, 429, errorBody(20429, "Too Many Requests"), { "Retry-After": String(wait) });
      return false;
    }
    return fault?.kind === "accept-timeout" ? "withhold" : "answer";
  }

  /** Answers an accepted send, or (the "accept-timeout" fault) keeps the sender waiting forever. */
  function answerAccepted(t: Tenant, res: ServerResponse, admitted: "answer" | "withhold", message: AcceptedMessage, status: number, body: unknown) {
    if (admitted === "withhold") {
      message.unanswered = true;
      t.acceptedUnanswered++;
      hold(res);
    } else json(res, status, body);
  }

  /** A timer of the tenant's, cleared when the tenant is reset or the server closes. */
  function later(t: Tenant, ms: number, fn: () => void) {
    const timer = setTimeout(() => {
      t.timers.delete(timer);
      fn();
    }, ms);
    timer.unref();
    t.timers.add(timer);
  }

  /**
   * Posts one callback, retrying as `policy` allows: each failure ("4xx", "5xx", "ct" when the
   * connection fails, "rt" when no answer comes in time) is retried if the policy names it, after a
   * doubling delay, while retries and total time are left.
   */
  function deliverCallback(
    t: Tenant,
    message: AcceptedMessage,
    url: string,
    init: { headers: Record<string, string>; body: string },
    policy: { retries: number; on: Set<string>; readTimeoutMs: number; totalMs: number; maxDelayMs: number },
  ) {
    const started = Date.now();
    const attempt = (n: number) => {
      fetch(url, { method: "POST", ...init, signal: AbortSignal.timeout(policy.readTimeoutMs) }).then(
        async (r) => {
          await r.arrayBuffer().catch(() => undefined);
          if (r.ok) {
            t.callbacks.sent++;
            message.callbackAt ??= Date.now();
          } else retryOr(n, r.status >= 500 ? "5xx" : "4xx");
        },
        (err: unknown) => retryOr(n, err instanceof Error && err.name === "TimeoutError" ? "rt" : "ct"),
      );
    };
    const retryOr = (n: number, failure: string) => {
      const delay = Math.min(policy.maxDelayMs, t.config.callbackRetryBaseMs * 2 ** n);
      if (n < policy.retries && (policy.on.has(failure) || policy.on.has("all")) && Date.now() + delay - started < policy.totalMs) {
        t.callbacks.retried++;
        t.callbackRetryDelaysMs.push(delay);
        later(t, delay, () => attempt(n + 1));
      } else t.callbacks.failed++;
    };
    attempt(0);
  }

  /** Twilio's connection overrides from a StatusCallback URL's fragment, with Twilio's defaults and limits. */
  function twilioPolicy(callbackUrl: string) {
    const hash = callbackUrl.indexOf("#");
    const o = new URLSearchParams(hash >= 0 ? callbackUrl.slice(hash + 1) : "");
    const num = (name: string, fallback: number, min: number, max: number) => {
      const v = Number(o.get(name) ?? Number.NaN);
      return Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : fallback;
    };
    return {
      retries: num("rc", 1, 0, 5),
      on: new Set((o.get("rp") ?? "ct").split(",")),
      readTimeoutMs: num("rt", 15_000, 100, 15_000),
      totalMs: num("tt", 15_000, 100, 15_000),
      maxDelayMs: 15_000,
    };
  }

  function scheduleCallback(t: Tenant, callbackUrl: string, message: AcceptedMessage) {
    if (t.config.callbackDelayMs === null) return;
    const undeliverable = t.config.undeliverable.includes(message.to);
    const params = new URLSearchParams({
      AccountSid: t.config.twilio.accountSid,
      MessageSid: message.id,
      SmsSid: message.id,
      MessageStatus: undeliverable ? "undelivered" : "delivered",
      To: message.to,
      From: message.from,
      ...(undeliverable ? { ErrorCode: "30003" } : {}),
    });
    const requested = callbackUrl.replace(/#.*$/, "");
    const signedUrl = t.config.twilioSignsFragment ? callbackUrl : requested;
    later(t, t.config.callbackDelayMs, () => {
      message.status = undeliverable ? "undelivered" : "delivered";
      if (undeliverable) message.errorCode = 30003;
      deliverCallback(
        t,
        message,
        requested,
        {
          headers: { "Content-Type": "application/x-www-form-urlencoded", "X-Twilio-Signature": twilioSignature(t.config.twilio.authToken, signedUrl, params) },
          body: params.toString(),
        },
        twilioPolicy(callbackUrl),
      );
    });
  }

  /** Meta's status webhook for an accepted WhatsApp message: signed, naming our number, echoing biz_opaque_callback_data. */
  function scheduleWhatsAppCallback(t: Tenant, message: AcceptedMessage) {
    const url = t.config.whatsappCallbackUrl;
    if (t.config.callbackDelayMs === null || !url) return;
    const undeliverable = t.config.undeliverable.includes(message.to);
    const status = {
      id: message.id,
      status: undeliverable ? "failed" : "delivered",
      timestamp: String(Math.floor(Date.now() / 1000)),
      recipient_id: message.to.slice(1),
      ...(message.reference ? { biz_opaque_callback_data: message.reference } : {}),
      ...(undeliverable ? { errors: [{ code: 131026, title: "Message undeliverable" }] } : {}),
    };
    const body = JSON.stringify({
      object: "whatsapp_business_account",
      entry: [
        {
          id: t.config.whatsapp.businessAccountId,
          changes: [
            {
              field: "messages",
              value: { messaging_product: "whatsapp", metadata: { phone_number_id: t.config.whatsapp.phoneNumberId }, statuses: [status] },
            },
          ],
        },
      ],
    });
    later(t, t.config.callbackDelayMs, () => {
      message.status = undeliverable ? "failed" : "delivered";
      // Meta: anything but a 200 (or no answer) is delivered again, with growing delays, for up to 7 days.
      const week = 7 * 24 * 3_600_000;
      deliverCallback(
        t,
        message,
        url,
        { headers: { "Content-Type": "application/json", "X-Hub-Signature-256": metaSignature(t.config.whatsapp.appSecret, body) }, body },
        { retries: Number.POSITIVE_INFINITY, on: new Set(["all"]), readTimeoutMs: 20_000, totalMs: week, maxDelayMs: 3_600_000 },
      );
    });
  }

  /**
   * Twilio's Messages list (GET Messages.json): Basic auth, filtered by To and From, newest first,
   * PageSize per page (one page is all the Worker reads). Scripted faults apply (lookupScript).
   */
  function twilioList(t: Tenant, req: IncomingMessage, res: ServerResponse, sid: string, query: URLSearchParams) {
    const twilioError = (code: number, message: string, status: number) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status });
    const expected = `Basic ${Buffer.from(`${t.config.twilio.accountSid}:${t.config.twilio.authToken}`).toString("base64")}`;
    if (req.headers.authorization !== expected || sid !== t.config.twilio.accountSid) {
      t.rejected.unauthorized++;
      return json(res, 401, twilioError(20003, "Authenticate", 401));
    }
    const fault = t.config.lookupScript.shift();
    if (fault) {
      t.lookups.failed++;
      if (fault.kind === "timeout") return hold(res);
      if (fault.kind === "429") return json(res, 429, twilioError(20429, "Too Many Requests", 429), { "Retry-After": String(fault.retryAfter ?? 1) });
      return json(res, fault.status ?? 503, twilioError(20500, "Service unavailable", fault.status ?? 503));
    }
    const to = query.get("To");
    const from = query.get("From");
    const size = Math.min(1000, Math.max(1, Number(query.get("PageSize") ?? 50) || 50));
    const matching = t.accepted.filter((m) => m.channel === "sms" && (!to || m.to === to) && (!from || m.from === from)).reverse();
    const now = Date.now();
    for (const m of matching.slice(0, size)) m.listedAt ??= now;
    const messages = matching.slice(0, size).map((m) => ({
      sid: m.id,
      account_sid: sid,
      to: m.to,
      from: m.from,
      body: m.body,
      status: m.status,
      error_code: m.errorCode ?? null,
      error_message: null,
      num_segments: "1",
      direction: "outbound-api",
      date_created: new Date(m.at).toUTCString(),
      date_updated: new Date(m.at).toUTCString(),
      date_sent: null,
    }));
    t.lookups.answered++;
    json(res, 200, { messages, page: 0, page_size: size, next_page_uri: null, previous_page_uri: null });
  }

  async function twilioSend(t: Tenant, req: IncomingMessage, res: ServerResponse, sid: string) {
    const twilioError = (code: number, message: string) => ({ code, message, more_info: `https://www.twilio.com/docs/errors/${code}`, status: 0 });
    const expected = `Basic ${Buffer.from(`${t.config.twilio.accountSid}:${t.config.twilio.authToken}`).toString("base64")}`;
    const raw = await readBody(req);
    if (req.headers.authorization !== expected || sid !== t.config.twilio.accountSid) {
      t.rejected.unauthorized++;
      return json(res, 401, { ...twilioError(20003, "Authenticate"), status: 401 });
    }
    const form = new URLSearchParams(raw);
    const to = form.get("To") ?? "";
    const from = form.get("From") ?? "";
    const body = form.get("Body") ?? "";
    if (!/^\+[1-9]\d{7,14}$/.test(to)) {
      t.rejected.invalid++;
      return json(res, 400, { ...twilioError(21211, `The 'To' number ${to} is not a valid phone number.`), status: 400 });
    }
    if (!body) {
      t.rejected.invalid++;
      return json(res, 400, { ...twilioError(21602, "Message body is required."), status: 400 });
    }
    const permanent = t.config.permanent[to];
    if (permanent) {
      t.rejected.permanent++;
      return json(res, 400, { ...twilioError(Number(permanent), `Permanent failure for ${to}`), status: 400 });
    }
    const timeoutsBefore = t.rejected.timeouts;
    const admitted = admit(t, res, `sms:${from}`, (code, message) => ({ ...twilioError(code, message), status: 429 }));
    if (t.rejected.timeouts > timeoutsBefore) t.timedOut.push({ to, body, at: Date.now() });
    if (!admitted) return;
    const callback = form.get("StatusCallback");
    const message: AcceptedMessage = {
      id: id("SM"),
      channel: "sms",
      to,
      from,
      body,
      at: Date.now(),
      status: "queued",
      ...(callback ? { statusCallback: callback } : {}),
    };
    t.accepted.push(message);
    if (callback) scheduleCallback(t, callback, message);
    const answer = { sid: message.id, account_sid: sid, to, from, body, status: "queued", num_segments: "1", date_created: new Date().toUTCString() };
    answerAccepted(t, res, admitted, message, 201, answer);
  }

  async function whatsappSend(t: Tenant, req: IncomingMessage, res: ServerResponse, phoneNumberId: string) {
    const graphError = (code: number, message: string) => ({ error: { message, type: "OAuthException", code, fbtrace_id: id("A") } });
    const raw = await readBody(req);
    if (req.headers.authorization !== `Bearer ${t.config.whatsapp.token}` || phoneNumberId !== t.config.whatsapp.phoneNumberId) {
      t.rejected.unauthorized++;
      return json(res, 401, graphError(190, "Invalid OAuth access token."));
    }
    let payload: {
      messaging_product?: string;
      to?: string;
      type?: string;
      template?: { name?: string; language?: { code?: string }; components?: { type?: string; parameters?: { text?: string }[] }[] };
      text?: { body?: string };
      biz_opaque_callback_data?: string;
    };
    try {
      payload = JSON.parse(raw) as typeof payload;
    } catch {
      t.rejected.invalid++;
      return json(res, 400, graphError(100, "Invalid parameter"));
    }
    const to = `+${payload.to ?? ""}`;
    if (payload.messaging_product !== "whatsapp" || !/^\+[1-9]\d{7,14}$/.test(to)) {
      t.rejected.invalid++;
      return json(res, 400, graphError(100, "Invalid parameter"));
    }
    let body: string;
    if (payload.type === "template") {
      const tpl = t.config.templates.find((x) => x.name === payload.template?.name && x.language === payload.template?.language?.code);
      if (!tpl) {
        t.rejected.invalid++;
        return json(res, 404, graphError(132001, "Template name does not exist in the translation"));
      }
      // The placeholders' values, when the send gave any, as "header=…|body=…".
      const values = (payload.template?.components ?? []).flatMap((c) => (c.parameters ?? []).map((p) => `${c.type}=${p.text}`));
      body = `template:${tpl.name}:${tpl.language}${values.length > 0 ? `:${values.join("|")}` : ""}`;
    } else if (payload.type === "text" && payload.text?.body) {
      body = payload.text.body;
    } else {
      t.rejected.invalid++;
      return json(res, 400, graphError(100, "Invalid parameter"));
    }
    const permanent = t.config.permanent[to];
    if (permanent) {
      t.rejected.permanent++;
      return json(res, 400, graphError(Number(permanent), `Message undeliverable to ${to}`));
    }
    const admitted = admit(t, res, `whatsapp:${phoneNumberId}`, (code, message) => graphError(code === 20429 ? 130429 : 131000, message));
    if (!admitted) return;
    const reference = payload.biz_opaque_callback_data;
    const message: AcceptedMessage = {
      id: id("wamid."),
      channel: "whatsapp",
      to,
      from: phoneNumberId,
      body,
      at: Date.now(),
      status: "sent",
      ...(reference ? { reference } : {}),
    };
    t.accepted.push(message);
    scheduleWhatsAppCallback(t, message);
    answerAccepted(t, res, admitted, message, 200, {
      messaging_product: "whatsapp",
      contacts: [{ input: payload.to, wa_id: payload.to }],
      messages: [{ id: message.id }],
    });
  }

  function whatsappTemplates(t: Tenant, req: IncomingMessage, res: ServerResponse, base: string, wabaId: string, query: URLSearchParams) {
    t.templateLists++;
    if (req.headers.authorization !== `Bearer ${t.config.whatsapp.token}` || wabaId !== t.config.whatsapp.businessAccountId) {
      t.rejected.unauthorized++;
      return json(res, 401, { error: { message: "Invalid OAuth access token.", type: "OAuthException", code: 190 } });
    }
    const size = Math.min(Number(query.get("limit") ?? 25), t.config.templatePageSize);
    const after = Number(query.get("after") ?? 0);
    const data = t.config.templates.slice(after, after + size);
    const next = after + size < t.config.templates.length ? `${base}/${wabaId}/message_templates?limit=${size}&after=${after + size}` : undefined;
    json(res, 200, { data, paging: { cursors: { before: String(after), after: String(after + size) }, ...(next ? { next } : {}) } });
  }

  function stats(t: Tenant) {
    const seen = new Map<string, number>();
    for (const m of t.accepted) seen.set(`${m.channel}|${m.to}|${m.body}`, (seen.get(`${m.channel}|${m.to}|${m.body}`) ?? 0) + 1);
    const times = t.accepted.map((m) => m.at);
    return {
      accepted: t.accepted.length,
      distinct: seen.size,
      duplicates: t.accepted.length - seen.size,
      firstAt: times.length ? Math.min(...times) : null,
      lastAt: times.length ? Math.max(...times) : null,
      rejected: t.rejected,
      acceptedUnanswered: t.acceptedUnanswered,
      callbacks: t.callbacks,
      callbackRetryDelaysMs: t.callbackRetryDelaysMs,
      lookups: t.lookups,
      templateLists: t.templateLists,
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
    const { tenant: tenantName, path, prefix } = tenantPath(url.pathname);
    const t = tenantOf(tenantName);
    const origin = `http://${req.headers.host}${prefix}`;

    if (path === "/__control/config" && req.method === "POST") {
      Object.assign(t.config, JSON.parse((await readBody(req)) || "{}") as Partial<FakeConfig>);
      return json(res, 200, t.config);
    }
    if (path === "/__control/reset" && req.method === "POST") {
      for (const timer of t.timers) clearTimeout(timer);
      tenants.set(tenantName, newTenant());
      return json(res, 200, { reset: true });
    }
    if (path === "/__control/messages" && req.method === "GET") return json(res, 200, { messages: t.accepted, timedOut: t.timedOut });
    if (path === "/__control/stats" && req.method === "GET") return json(res, 200, stats(t));

    const twilio = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path);
    if (twilio && req.method === "POST") return twilioSend(t, req, res, decodeURIComponent(twilio[1]!));
    if (twilio && req.method === "GET") return twilioList(t, req, res, decodeURIComponent(twilio[1]!), url.searchParams);
    const version = /^(\/v\d+\.\d+)?\/([^/]+)\/(messages|message_templates)$/.exec(path);
    if (version?.[3] === "messages" && req.method === "POST") return whatsappSend(t, req, res, decodeURIComponent(version[2]!));
    if (version?.[3] === "message_templates" && req.method === "GET") {
      const linkOrigin = t.config.templateNextOrigin === null ? origin : `${t.config.templateNextOrigin}${prefix}`;
      return whatsappTemplates(t, req, res, `${linkOrigin}${version[1] ?? ""}`, decodeURIComponent(version[2]!), url.searchParams);
    }
    json(res, 404, { error: `no route for ${req.method} ${path}` });
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, { error: String(err) });
    });
  });
  const listening = await listen(server, port, host, held);
  return {
    ...listening,
    close: () => {
      for (const t of tenants.values()) for (const timer of t.timers) clearTimeout(timer);
      return listening.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portArg = process.argv.indexOf("--port");
  const fake = await startFakeProvider({ port: portArg >= 0 ? Number(process.argv[portArg + 1]) : 8790 });
  console.log(`fake provider listening on ${fake.url}`);
}
