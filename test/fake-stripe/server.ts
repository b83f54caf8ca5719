/**
 * A fake Stripe API over real HTTP, for the Worker tests of the real adapter (the official `stripe`
 * package with its fetch client, pointed here by STRIPE_API_BASE). It answers the calls we make —
 * checkout sessions (create, retrieve, expire), refunds, Connect Express accounts, account links,
 * transfers and transfer reversals — with Stripe's shapes and error envelope, checks the Bearer
 * secret key, decodes Stripe's bracketed form bodies, replays a repeated Idempotency-Key (and
 * refuses one reused with other parameters, as Stripe does), and can inject 429s and 5xx.
 *
 * Tenants keep concurrent tests apart: each secret key (sk_test_<anything>) is its own account.
 *
 * Control API (per key, `/__control/<secret key>/…`): POST sessions/<id>/pay (the customer pays:
 * a payment intent and a charge appear; answers the session), POST accounts/<id>/enable
 * (onboarding finished), POST faults (JSON `{ script: [{ status }] }` for the next
 * requests), GET requests (every API request: method, path, idempotency key, params),
 * GET objects/<id>.
 *
 * Plain Node (type stripping only): `node test/fake-stripe/server.ts --port 8791`.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { json, listen, readBody } from "../http.ts";

type Params = Record<string, unknown>;
type StripeObject = { id: string; object: string } & Params;
export type RecordedRequest = { method: string; path: string; idempotencyKey: string | null; params: Params };

type Tenant = {
  objects: Map<string, StripeObject>;
  idempotency: Map<string, { fingerprint: string; status: number; body: unknown }>;
  requests: RecordedRequest[];
  faults: { status: number }[];
};

export type FakeStripe = { url: string; port: number; close: () => Promise<void> };

const newId = (prefix: string) => `${prefix}_test_${randomBytes(12).toString("hex")}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

/** Stripe's form encoding: a[b][0][c]=v → { a: { b: [{ c: "v" }] } } (numeric keys become arrays). */
export function decodeStripeForm(body: string): Params {
  const root: Params = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const parts = rawKey.split(/\[|\]\[|\]/).filter((p) => p !== "");
    let node: Record<string, unknown> = root;
    parts.forEach((part, i) => {
      const last = i === parts.length - 1;
      if (last) node[part] = value;
      else {
        const nextIsIndex = /^\d+$/.test(parts[i + 1]!);
        node[part] ??= nextIsIndex ? [] : {};
        node = node[part] as Record<string, unknown>;
      }
    });
  }
  return root;
}

/** Every Stripe answer carries a Request-Id. */
function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  json(res, status, body, { "Request-Id": newId("req"), ...headers });
}

const stripeError = (type: string, message: string, code?: string, param?: string) => ({
  error: { type, message, ...(code ? { code } : {}), ...(param ? { param } : {}) },
});

export async function startFakeStripe({ port = 0, host = "127.0.0.1" }: { port?: number; host?: string } = {}): Promise<FakeStripe> {
  const tenants = new Map<string, Tenant>();
  const tenantOf = (key: string) => {
    const found = tenants.get(key);
    if (found) return found;
    const t: Tenant = { objects: new Map(), idempotency: new Map(), requests: [], faults: [] };
    tenants.set(key, t);
    return t;
  };
  let origin = "";

  function get(t: Tenant, id: string, object: string): StripeObject | undefined {
    const found = t.objects.get(id);
    return found?.object === object ? found : undefined;
  }
  const missing = (what: string, id: string): [number, unknown] => [
    404,
    stripeError("invalid_request_error", `No such ${what}: '${id}'`, "resource_missing", "id"),
  ];

  /** One API call: [status, body]. */
  function api(t: Tenant, method: string, path: string, p: Params): [number, unknown] {
    if (method === "POST" && path === "/v1/checkout/sessions") {
      const items = (p.line_items as { quantity: string; price_data: { currency: string; unit_amount: string; product_data: { name: string } } }[]) ?? [];
      if (p.mode !== "payment" || items.length === 0)
        return [400, stripeError("invalid_request_error", "mode=payment and line_items are required", "parameter_missing")];
      if (!p.success_url || !p.cancel_url)
        return [400, stripeError("invalid_request_error", "Missing required param: success_url.", "parameter_missing", "success_url")];
      const id = newId("cs");
      const session: StripeObject = {
        id,
        object: "checkout.session",
        mode: "payment",
        status: "open",
        payment_status: "unpaid",
        amount_total: items.reduce((sum, item) => sum + Number(item.price_data.unit_amount) * Number(item.quantity), 0),
        currency: items[0]!.price_data.currency,
        client_reference_id: p.client_reference_id ?? null,
        customer_email: p.customer_email ?? null,
        metadata: p.metadata ?? {},
        payment_intent: null,
        payment_intent_data: p.payment_intent_data ?? {},
        success_url: p.success_url,
        cancel_url: p.cancel_url,
        expires_at: Number(p.expires_at ?? nowSeconds() + 86_400),
        created: nowSeconds(),
        url: `${origin}/pay/${id}`,
      };
      t.objects.set(id, session);
      return [200, session];
    }
    let m = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path);
    if (m) {
      const session = get(t, m[1]!, "checkout.session");
      if (!session) return missing("checkout.session", m[1]!);
      if (method === "GET" && !m[2]) return [200, session];
      if (method === "POST" && m[2]) {
        if (session.status !== "open") return [400, stripeError("invalid_request_error", 'Only Checkout Sessions with a status in ["open"] can be expired.')];
        session.status = "expired";
        return [200, session];
      }
    }
    if (method === "POST" && path === "/v1/refunds") {
      const intent = get(t, String(p.payment_intent), "payment_intent");
      if (!intent) return missing("payment_intent", String(p.payment_intent));
      const charge = get(t, String(intent.latest_charge), "charge")!;
      const amount = Number(p.amount ?? Number(charge.amount) - Number(charge.amount_refunded));
      if (amount < 1 || Number(charge.amount_refunded) + amount > Number(charge.amount)) {
        return [400, stripeError("invalid_request_error", "Refund amount is greater than unrefunded amount on charge", "amount_too_large", "amount")];
      }
      charge.amount_refunded = Number(charge.amount_refunded) + amount;
      charge.refunded = charge.amount_refunded === charge.amount;
      const refund: StripeObject = {
        id: newId("re"),
        object: "refund",
        amount,
        charge: charge.id,
        payment_intent: intent.id,
        metadata: p.metadata ?? {},
        status: "succeeded",
      };
      t.objects.set(refund.id, refund);
      return [200, refund];
    }
    if (method === "POST" && path === "/v1/accounts") {
      if (p.type !== "express") return [400, stripeError("invalid_request_error", "Only express accounts here", "parameter_invalid", "type")];
      const account: StripeObject = {
        id: newId("acct"),
        object: "account",
        type: "express",
        country: p.country ?? "US",
        email: p.email ?? null,
        details_submitted: false,
        payouts_enabled: false,
        charges_enabled: false,
        capabilities: { transfers: (p.capabilities as Params | undefined)?.transfers ? "inactive" : undefined },
        metadata: p.metadata ?? {},
      };
      t.objects.set(account.id, account);
      return [200, account];
    }
    m = /^\/v1\/accounts\/([^/]+)$/.exec(path);
    if (m && method === "GET") {
      const account = get(t, m[1]!, "account");
      return account ? [200, account] : missing("account", m[1]!);
    }
    if (method === "POST" && path === "/v1/account_links") {
      if (!get(t, String(p.account), "account")) return missing("account", String(p.account));
      if (p.type !== "account_onboarding" || !p.refresh_url || !p.return_url)
        return [400, stripeError("invalid_request_error", "refresh_url, return_url and type are required", "parameter_missing")];
      return [200, { object: "account_link", created: nowSeconds(), expires_at: nowSeconds() + 300, url: `${origin}/onboard/${p.account}` }];
    }
    if (method === "POST" && path === "/v1/transfers") {
      const account = get(t, String(p.destination), "account");
      if (!account) return missing("destination", String(p.destination));
      if ((account.capabilities as Params).transfers !== "active") {
        return [
          400,
          stripeError(
            "invalid_request_error",
            "Your destination account needs to have the transfers capability enabled",
            "insufficient_capabilities_for_transfer",
          ),
        ];
      }
      const transfer: StripeObject = {
        id: newId("tr"),
        object: "transfer",
        amount: Number(p.amount),
        amount_reversed: 0,
        currency: p.currency,
        destination: account.id,
        transfer_group: p.transfer_group ?? null,
        metadata: p.metadata ?? {},
      };
      t.objects.set(transfer.id, transfer);
      return [200, transfer];
    }
    m = /^\/v1\/transfers\/([^/]+)\/reversals$/.exec(path);
    if (m && method === "POST") {
      const transfer = get(t, m[1]!, "transfer");
      if (!transfer) return missing("transfer", m[1]!);
      const amount = Number(p.amount ?? Number(transfer.amount) - Number(transfer.amount_reversed));
      if (amount < 1 || Number(transfer.amount_reversed) + amount > Number(transfer.amount)) {
        return [400, stripeError("invalid_request_error", "Amount exceeds the transfer's unreversed amount", "amount_too_large", "amount")];
      }
      transfer.amount_reversed = Number(transfer.amount_reversed) + amount;
      const reversal: StripeObject = { id: newId("trr"), object: "transfer_reversal", amount, transfer: transfer.id };
      t.objects.set(reversal.id, reversal);
      return [200, reversal];
    }
    return [404, stripeError("invalid_request_error", `Unrecognized request URL (${method}: ${path}).`)];
  }

  function control(t: Tenant, method: string, path: string, body: string): [number, unknown] {
    let m = /^sessions\/([^/]+)\/pay$/.exec(path);
    if (m && method === "POST") {
      const session = get(t, m[1]!, "checkout.session");
      if (session?.status !== "open") return [409, { error: "session is not open" }];
      const intentId = newId("pi");
      const charge: StripeObject = {
        id: newId("ch"),
        object: "charge",
        amount: session.amount_total,
        amount_refunded: 0,
        refunded: false,
        payment_intent: intentId,
      };
      t.objects.set(charge.id, charge);
      t.objects.set(intentId, { id: intentId, object: "payment_intent", amount: session.amount_total, latest_charge: charge.id, status: "succeeded" });
      Object.assign(session, { status: "complete", payment_status: "paid", payment_intent: intentId });
      return [200, session];
    }
    m = /^accounts\/([^/]+)\/enable$/.exec(path);
    if (m && method === "POST") {
      const account = get(t, m[1]!, "account");
      if (!account) return [404, { error: "no such account" }];
      Object.assign(account, { details_submitted: true, payouts_enabled: true, charges_enabled: true, capabilities: { transfers: "active" } });
      return [200, account];
    }
    if (path === "faults" && method === "POST") {
      t.faults.push(...((JSON.parse(body || "{}") as { script?: Tenant["faults"] }).script ?? []));
      return [200, { queued: t.faults.length }];
    }
    if (path === "requests" && method === "GET") return [200, { requests: t.requests }];
    m = /^objects\/([^/]+)$/.exec(path);
    if (m && method === "GET") {
      const found = t.objects.get(m[1]!);
      return found ? [200, found] : [404, { error: "no such object" }];
    }
    return [404, { error: `no control route ${method} ${path}` }];
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", origin);
    const body = await readBody(req);
    const method = req.method ?? "GET";
    const ctl = /^\/__control\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (ctl) {
      const [status, answer] = control(tenantOf(decodeURIComponent(ctl[1]!)), method, ctl[2]!, body);
      return send(res, status, answer);
    }
    const auth = req.headers.authorization ?? "";
    const key = auth.startsWith("Bearer ") ? auth.slice(7) : "";
    if (!/^sk_test_\w+$/.test(key)) return send(res, 401, stripeError("invalid_request_error", "Invalid API Key provided"));
    const t = tenantOf(key);
    const params = method === "GET" ? Object.fromEntries(url.searchParams) : decodeStripeForm(body);
    const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) ?? null;
    t.requests.push({ method, path: url.pathname, idempotencyKey, params });

    const fault = t.faults.shift();
    if (fault) {
      // Stripe marks the answers a client may retry; the library retries a 429 only when told so.
      if (fault.status === 429) return send(res, 429, stripeError("rate_limit_error", "Too many requests"), { "Stripe-Should-Retry": "true" });
      return send(res, fault.status, stripeError("api_error", "Something went wrong on Stripe's end."));
    }
    if (idempotencyKey && method === "POST") {
      const fingerprint = `${url.pathname} ${body}`;
      const seen = t.idempotency.get(idempotencyKey);
      if (seen) {
        if (seen.fingerprint !== fingerprint) {
          return send(
            res,
            400,
            stripeError("idempotency_error", "Keys for idempotent requests can only be used with the same parameters they were first used with."),
          );
        }
        return send(res, seen.status, seen.body, { "Idempotent-Replayed": "true" });
      }
      const [status, answer] = api(t, method, url.pathname, params);
      t.idempotency.set(idempotencyKey, { fingerprint, status, body: answer });
      return send(res, status, answer);
    }
    const [status, answer] = api(t, method, url.pathname, params);
    return send(res, status, answer);
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, stripeError("api_error", String(err)));
    });
  });
  const listening = await listen(server, port, host);
  origin = listening.url;
  return listening;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portArg = process.argv.indexOf("--port");
  const fake = await startFakeStripe({ port: portArg >= 0 ? Number(process.argv[portArg + 1]) : 8791 });
  console.log(`fake Stripe listening on ${fake.url}`);
}
