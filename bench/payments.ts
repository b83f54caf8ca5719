/**
 * `npm run bench:payments`: the money path through the built Worker under `wrangler dev` with the
 * embedded provider (PAYMENTS_PROVIDER = "local"), signed in as the demo driver.
 *
 * 1. Checkout → local card page → 4242 4242 4242 4242: the time to open a checkout and the time
 *    for a payment to be taken, its signed event handled and the days added, per payment.
 * 2. A redelivery storm: N payments, each `checkout.session.completed` posted 5 times at once
 *    (5N concurrent webhook calls, signed like Stripe's). It prints the answers, their latency and
 *    checks the service time grew by exactly N plans: every event acted on once.
 *
 *   --payments N   per part (default 8; checkouts are limited to 20 an hour per driver)
 *   --short        2 per part (the mode npm test runs: bench/short.ts)
 *   --port P       the Worker's port (default: the first free port from 8841)
 *   --skip-build   reuse the last private build copy (or the one --build-dir names)
 */

import { DEMO } from "../scripts/seed.ts";
import { stripeSignatureHeader } from "../src/worker/providers/payments/stripe-signature.ts";
import { benchOptions, devVarsOf, freshState, median, numberArg, percentile, prepareBuild, startWorker } from "./harness.ts";

const options = await benchOptions(8841);
const SHORT = options.short;
const N = SHORT ? 2 : numberArg("payments", 8);
if (2 * N > 20) throw new Error("at most 10 payments per part: a driver may open 20 checkouts an hour");
const PORT = options.port;
const STATE = `.wrangler/bench-payments-state${SHORT ? "-short" : ""}`;
const DAY = 86_400_000;

const DIR = prepareBuild(options, ".wrangler/bench-payments-build");
freshState(STATE);
const vars = devVarsOf(DIR);
const worker = await startWorker({ dir: DIR, port: PORT, state: STATE });

async function call<T>(path: string, init: { method?: string; body?: unknown; token?: string; headers?: Record<string, string>; raw?: string } = {}) {
  const headers: Record<string, string> = { "Content-Type": "application/json", ...init.headers };
  if (init.token) headers.Authorization = `Bearer ${init.token}`;
  const started = performance.now();
  const res = await fetch(`${worker.url}${path}`, {
    method: init.method ?? (init.body === undefined && init.raw === undefined ? "GET" : "POST"),
    headers,
    body: init.raw ?? (init.body === undefined ? undefined : JSON.stringify(init.body)),
  });
  const ms = performance.now() - started;
  const text = await res.text();
  return { status: res.status, ms, data: (text ? JSON.parse(text) : undefined) as T };
}

let failed = false;
function check(ok: boolean, what: string) {
  console.log(`${ok ? "ok  " : "FAIL"} ${what}`);
  if (!ok) failed = true;
}

try {
  const signIn = await call<{ tokens: { idToken: string } }>("/api/auth/sign-in", {
    body: { phoneNumber: DEMO.driver.phone, app: "flex", password: DEMO.driver.password },
  });
  const token = signIn.data.tokens.idToken;
  const plans = await call<{ Items: { id: number; days: number }[] }>("/api/plans?app=flex");
  const week = plans.data.Items.find((p) => p.days === 7)!;
  const expiration = async () => (await call<{ Item: { expirationDateTimestamp: number } }>("/api/flex/v1/user", { token })).data.Item.expirationDateTimestamp;
  const ledgerTotal = async () => (await call<{ total: number }>("/api/payments/service-time", { token })).data.total;
  const checkout = () =>
    call<{ paymentId: number; url: string }>("/api/payments/checkout", { token, body: { planId: week.id, idempotencyKey: crypto.randomUUID() } });

  // 1. Checkout, then the card page's Pay (which hands the signed event to the webhook handler).
  const checkoutMs: number[] = [];
  const payMs: number[] = [];
  const before = await expiration();
  for (let i = 0; i < N; i++) {
    const opened = await checkout();
    checkoutMs.push(opened.ms);
    const session = opened.data.url.split("/").at(-1)!;
    const paid = await call<{ status: string }>(`/api/local-stripe/checkout/${session}/pay`, {
      body: { number: "4242 4242 4242 4242", expiry: "12 / 40", cvc: "123" },
    });
    payMs.push(paid.ms);
    if (paid.data.status !== "complete") throw new Error(`payment ${i} answered ${paid.status} ${JSON.stringify(paid.data)}`);
  }
  const afterPaying = await expiration();
  check(afterPaying - before === N * 7 * DAY, `${N} payments added ${(afterPaying - before) / DAY} days (expected ${N * 7})`);

  // 2. The storm: N payments whose completed events arrive 5 times each, all at once.
  const sessions: { paymentId: number; sessionId: string }[] = [];
  for (let i = 0; i < N; i++) {
    const opened = await checkout();
    sessions.push({ paymentId: opened.data.paymentId, sessionId: opened.data.url.split("/").at(-1)! });
  }
  const ledgerBefore = await ledgerTotal();
  const events = sessions.map(({ paymentId, sessionId }) =>
    JSON.stringify({
      id: `evt_bench_${paymentId}`,
      object: "event",
      type: "checkout.session.completed",
      created: Math.floor(Date.now() / 1000),
      livemode: false,
      data: {
        object: {
          id: sessionId,
          object: "checkout.session",
          payment_status: "paid",
          payment_intent: `pi_bench_${paymentId}`,
          metadata: { paymentId: String(paymentId) },
        },
      },
    }),
  );
  const started = performance.now();
  const answers = await Promise.all(
    events.flatMap((payload) =>
      Array.from({ length: 5 }, async () =>
        call<{ result?: string }>("/api/webhooks/stripe", {
          raw: payload,
          headers: { "Stripe-Signature": await stripeSignatureHeader(payload, vars.STRIPE_WEBHOOK_SECRET!) },
        }),
      ),
    ),
  );
  const stormMs = performance.now() - started;
  const byResult = new Map<string, number>();
  for (const a of answers) {
    const key = a.status === 200 ? (a.data.result ?? "ok") : String(a.status);
    byResult.set(key, (byResult.get(key) ?? 0) + 1);
  }
  const afterStorm = await expiration();
  const ledgerAfter = await ledgerTotal();
  check(afterStorm - afterPaying === N * 7 * DAY, `${5 * N} deliveries of ${N} events added ${(afterStorm - afterPaying) / DAY} days (expected ${N * 7})`);
  check(ledgerAfter - ledgerBefore === N, `${ledgerAfter - ledgerBefore} ledger rows for ${N} payments`);
  check(
    answers.every((a) => a.status === 200 || a.status === 409),
    "every delivery answered 200 (processed or duplicate) or 409 (in flight, Stripe retries)",
  );

  const ms = (xs: number[]) => `median ${median(xs).toFixed(0)} ms, p95 ${percentile(xs, 95).toFixed(0)} ms`;
  console.log(`
| what | figure |
|---|---|
| open a checkout (payment row + local session), ${N}× | ${ms(checkoutMs)} |
| pay on the local page (card, signed event, webhook, ledger), ${N}× | ${ms(payMs)} |
| redelivery storm: ${5 * N} concurrent deliveries of ${N} events | ${stormMs.toFixed(0)} ms in all; answers ${[...byResult].map(([k, v]) => `${k} ${v}`).join(", ")} |
| storm delivery latency | ${ms(answers.map((a) => a.ms))} |
| days added by the storm | ${(afterStorm - afterPaying) / DAY} (expected ${N * 7}) |
`);
} finally {
  worker.stop();
}
process.exit(failed ? 1 : 0);
