/**
 * A crash in the middle of a campaign, as an operator would cause one: the local runtime (the
 * production build under `wrangler dev`, its queue, the SendPacer, the Twilio adapter) is killed
 * with SIGKILL, its whole process group at once, while a list campaign is sending to the fake SMS
 * provider (test/fake-provider), then started again on the same persisted state. The queue's
 * messages die with the runtime (the local queue lives in its memory), and the rows caught
 * mid-send stay claimed with nothing recorded, some of them already accepted by the provider (its
 * accept-then-time-out fault keeps such sends open when the kill comes; no status callbacks are
 * posted, so only the lookup at the provider can settle them). The cron sweep, triggered here
 * every two seconds as the dev runner triggers it every minute, must finish the campaign with
 * every recipient texted exactly once: pending rows queued again, rows in doubt settled from the
 * provider's Messages list before any re-send (docs/messaging-rules.md, "Sends that got no answer").
 *
 * Run by e2e/run.ts (it serves the build it made, .wrangler/e2e-build) on a runtime of its own, or
 * alone: `node --test e2e/campaign-crash.test.ts` builds a copy first (CRASH_SKIP_BUILD=1 reuses it).
 * Short settings keep it under two minutes: a lease and a re-queue grace of 6 s instead of 120 s and
 * 180 s, 4 s provider time-outs, 25 messages a second.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildCopy, devVarsOf, freshState, type RunningWorker, signInOwner, startWorker } from "../bench/harness.ts";
import { freePorts } from "../scripts/ports.ts";
import { type AcceptedMessage, startFakeProvider } from "../test/fake-provider/server.ts";

const RECIPIENTS = 300;
const RATE = 25;
/** The runtime is killed once the provider has accepted this many of the campaign's texts. */
const KILL_AFTER = 100;
const STATE = ".wrangler/campaign-crash-state";
const DIR = process.env.E2E_BASE_URL ? ".wrangler/e2e-build" : ".wrangler/campaign-crash-build";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a runtime killed mid-campaign and started again texts every recipient exactly once and finishes the campaign", { timeout: 240_000 }, async () => {
  if (!process.env.E2E_BASE_URL && !process.env.CRASH_SKIP_BUILD) buildCopy(DIR);
  freshState(STATE);
  const port = await freePorts(8830, 2);
  const fake = await startFakeProvider({ port: port + 1 });
  const workerUrl = `http://127.0.0.1:${port}`;
  const dev = devVarsOf(DIR);
  await fetch(`${fake.url}/__control/config`, {
    method: "POST",
    body: JSON.stringify({
      twilio: { accountSid: dev.TWILIO_ACCOUNT_SID, authToken: dev.TWILIO_AUTH_TOKEN },
      rate: null,
      // One send in ten is accepted and never answered: at the kill, some of those are open.
      failAcceptTimeout: 0.1,
      callbackDelayMs: null,
    }),
  });
  const vars = {
    SMS_PROVIDER: "twilio",
    TWILIO_API_BASE: fake.url,
    SEND_RATE_PER_SECOND: String(RATE),
    PROVIDER_TIMEOUT_MS: "4000",
    CALLBACK_WAIT_SECONDS: "4",
    SEND_LEASE_SECONDS: "6",
    REQUEUE_AFTER_SECONDS: "6",
    APP_ORIGIN: workerUrl,
  };
  const started = Date.now();
  let worker: RunningWorker | null = await startWorker({ dir: DIR, port, state: STATE, vars });
  try {
    const { idToken } = await signInOwner(workerUrl);
    const headers = { Authorization: `Bearer ${idToken}`, "Content-Type": "application/json" };
    const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
      const res = await fetch(`${workerUrl}${path}`, { ...init, headers });
      const text = await res.text();
      assert.ok(res.ok, `${path} answered ${res.status}: ${text.slice(0, 300)}`);
      return JSON.parse(text) as T;
    };
    const messages = async () => ((await (await fetch(`${fake.url}/__control/messages`)).json()) as { messages: AcceptedMessage[] }).messages;

    const body = `Crash test ${started}: your blocks are waiting.`;
    const phones = Array.from({ length: RECIPIENTS }, (_, i) => `+164655${String(Math.floor(i / 100) % 10)}${String(i).padStart(4, "0").slice(-4)}`);
    type Campaign = {
      id: number;
      status: string;
      inDoubt: number;
      counts: Record<"pending" | "deferred" | "sending" | "sent" | "delivered" | "failed" | "skipped", number>;
    };
    const created = await api<{ campaign: Campaign }>("/api/admin/campaigns", {
      method: "POST",
      body: JSON.stringify({ idempotencyKey: `crash-${started}`, source: "list", channel: "sms", purpose: "service", message: body, phones }),
    });
    const id = created.campaign.id;

    // Killed mid-send: SIGKILL to the runtime's whole process group, nothing shut down cleanly.
    const sendDeadline = Date.now() + 60_000;
    let sentBeforeKill = 0;
    while (Date.now() < sendDeadline) {
      sentBeforeKill = (await messages()).filter((m) => m.body === body).length;
      if (sentBeforeKill >= KILL_AFTER) break;
      await sleep(100);
    }
    assert.ok(sentBeforeKill >= KILL_AFTER, `only ${sentBeforeKill} texts went out in a minute`);
    worker.kill();
    worker = null;
    await sleep(1_000);
    const atKill = (await messages()).filter((m) => m.body === body).length;
    const unanswered = (await messages()).filter((m) => m.body === body && m.unanswered).length;

    // Started again on the same state; the cron sweep runs every two seconds.
    worker = await startWorker({ dir: DIR, port, state: STATE, vars });
    const afterRestart = (await api<{ campaign: Campaign }>(`/api/admin/campaigns/${id}`)).campaign;
    let campaign = afterRestart;
    let inDoubtSeen = afterRestart.inDoubt;
    const deadline = Date.now() + 120_000;
    while (Date.now() < deadline) {
      await fetch(`${workerUrl}/cdn-cgi/handler/scheduled?cron=*+*+*+*+*`).catch(() => undefined);
      campaign = (await api<{ campaign: Campaign }>(`/api/admin/campaigns/${id}`)).campaign;
      inDoubtSeen = Math.max(inDoubtSeen, campaign.inDoubt);
      if (campaign.status === "done") break;
      await sleep(2_000);
    }

    const texts = (await messages()).filter((m) => m.body === body);
    const perPhone = new Map<string, number>();
    for (const m of texts) perPhone.set(m.to, (perPhone.get(m.to) ?? 0) + 1);
    const duplicates = [...perPhone.values()].reduce((n, k) => n + k - 1, 0);
    const missing = phones.filter((p) => !perPhone.has(p));
    console.log(
      `recipients ${RECIPIENTS}; sent before the kill ${sentBeforeKill} (${atKill} once the runtime was gone, ${unanswered} of them accepted and never answered); ` +
        `after the restart ${afterRestart.counts.pending} pending, ${afterRestart.counts.sending} sending (in doubt at most ${inDoubtSeen}); ` +
        `texts in total ${texts.length} to ${perPhone.size} numbers; duplicates ${duplicates}; missing ${missing.length}; ` +
        `campaign ${campaign.status} ${JSON.stringify(campaign.counts)}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    assert.ok(afterRestart.counts.pending > 0, "the kill came after the last row was claimed: nothing was stranded");
    assert.equal(duplicates, 0, "a recipient was texted twice");
    assert.deepEqual(missing, [], "a recipient was never texted");
    assert.equal(texts.length, RECIPIENTS);
    assert.equal(campaign.status, "done");
    assert.equal(campaign.counts.sent + campaign.counts.delivered, RECIPIENTS);
    assert.equal(campaign.inDoubt, 0);
  } finally {
    worker?.stop();
    await fake.close();
  }
});
