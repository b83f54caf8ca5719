/**
 * `npm run bench:dispatch`: a 10,000-recipient marketing SMS campaign to a mixed-zone audience
 * (docs/messaging-rules.md) through the real Worker (the built
 * bundle under `wrangler dev`, its queue consumer, the SendPacer Durable Object, the Twilio
 * adapter) against the fake provider of test/fake-provider, which allows R messages per second
 * (token bucket) and injects 429s, 5xx answers, time-outs and ambiguous sends (accepted, then no
 * answer: the Worker must settle the row from the status callback naming it, or from a lookup at the
 * provider before sending again, never send it twice). Refused callbacks are retried as Twilio's
 * connection overrides (#rc=5&rp=all) say.
 * It prints the achieved rate against
 * R (goal ≥ 95 %), duplicates (goal 0) and lost messages (goal 0), checked against both the
 * provider's records and the campaign ledger. The audience spans area codes from Hawaii to
 * Newfoundland: most in zones inside their allowed hours when the run starts, the rest in zones
 * outside them, which must end deferred (queued with a delay), never sent; and no message may reach
 * a number outside its allowed hours in any of its zones (checked here independently, with Intl). In the few
 * hours when no zone of the audience is open (about 07:00–10:30 UTC), the campaign is a service
 * notice instead (transactional: no quiet hours), so the run still measures the pipeline.
 *
 *   --recipients N   (default 10000; 200 with --short)
 *   --rate R         messages/s allowed (default 50)
 *   --fail429 p      (default 0.005)      --fail5xx p    (default 0.005)
 *   --timeouts p     (default 0.002)      --accept-timeouts p  accepted, never answered (default 0.002)
 *   --permanent N    numbers that always fail (default 5; 2 with --short)
 *   --callback-wait S  the Worker's CALLBACK_WAIT_SECONDS (default 5: the fake calls back after 300 ms)
 *   --clock-offset-hours H  move the messaging rules' clock (the Worker's COMPLIANCE_CLOCK_OFFSET_MS,
 *                    and this bench's own hours check) by H hours, so a mixed-zone run with zones
 *                    closed can be made at any hour (from 18:00 to 23:30 UTC every zone is open)
 *   --port P         the Worker's port (default: the first two free ports from 8793); --fake-port P  the fake provider's (default port + 1)
 *   --short          the small run of `npm test`: the rate line is printed, not enforced (the rest is)
 *   --skip-build     reuse the last private build copy (or the one --build-dir names)
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { type AcceptedMessage, startFakeProvider } from "../test/fake-provider/server.ts";
import { benchOptions, devVarsOf, freshState, numberArg, prepareBuild, run, signInOwner, startWorker } from "./harness.ts";
import { d1Bytes, difference, per, saveUnits, WorkerLog, workerdCpuSeconds } from "./units.ts";

const options = await benchOptions(8793, 2);
const RECIPIENTS = numberArg("recipients", options.short ? 200 : 10_000);
const RATE = numberArg("rate", 50);
const FAIL_429 = numberArg("fail429", 0.005);
const FAIL_5XX = numberArg("fail5xx", 0.005);
const TIMEOUTS = numberArg("timeouts", 0.002);
const ACCEPT_TIMEOUTS = numberArg("accept-timeouts", 0.002);
const CALLBACK_WAIT_SECONDS = numberArg("callback-wait", 5);
const PERMANENT = numberArg("permanent", options.short ? 2 : 5);
const PORT = options.port;
const FAKE_PORT = numberArg("fake-port", PORT + 1);
const PROVIDER_TIMEOUT_MS = 3_000;
const CLOCK_OFFSET_MS = Math.round(numberArg("clock-offset-hours", 0) * 3_600_000);
const STATE = `.wrangler/bench-dispatch-state${options.short ? "-short" : ""}`;
if (RECIPIENTS > 10_000) throw new Error("the +1 NXX 55x xxxx numbering gives at most 10,000 recipients");

/**
 * Area codes from Hawaii (UTC−10) to Newfoundland (UTC−3:30), in states held to the federal
 * 8 am–9 pm only and in Canada (telemarketing 9:00–21:30 on weekdays, 10:00–18:00 on weekends): we
 * text only the 50 states, DC and Canada (src/shared/phone.ts). An area code that spans zones
 * (Alaska's 907 reaches the Aleutians, an hour behind Anchorage) is open only when it is open in
 * every one of them, as the law binds at the recipient's location. The windows are written here
 * again, on purpose, so the check does not trust the code it checks. A code counts as open (or
 * closed) only if it stays so for the next 20 minutes, so no zone changes state during the run.
 */
const ZONES: Record<string, { zones: string[]; country: "US" | "CA" }> = {
  "646": { zones: ["America/New_York"], country: "US" },
  "617": { zones: ["America/New_York"], country: "US" },
  "312": { zones: ["America/Chicago"], country: "US" },
  "612": { zones: ["America/Chicago"], country: "US" },
  "303": { zones: ["America/Denver"], country: "US" },
  "801": { zones: ["America/Denver"], country: "US" },
  "602": { zones: ["America/Phoenix"], country: "US" },
  "415": { zones: ["America/Los_Angeles"], country: "US" },
  "702": { zones: ["America/Los_Angeles"], country: "US" },
  "808": { zones: ["Pacific/Honolulu"], country: "US" },
  "907": { zones: ["America/Anchorage", "America/Adak"], country: "US" },
  "902": { zones: ["America/Halifax"], country: "CA" },
  "709": { zones: ["America/St_Johns"], country: "CA" },
};
const localClock = (t: number, zone: string) => {
  const parts = Object.fromEntries(
    new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", hour: "numeric", minute: "numeric", weekday: "short" })
      .formatToParts(new Date(t))
      .map((p) => [p.type, p.value]),
  );
  return { minute: Number(parts.hour) * 60 + Number(parts.minute), weekend: parts.weekday === "Sat" || parts.weekday === "Sun" };
};
// Every hours check reads the rules' clock, moved as the Worker's is (--clock-offset-hours).
const isOpen = (t: number, where: { zones: string[]; country: "US" | "CA" }) =>
  where.zones.every((zone) => {
    const { minute, weekend } = localClock(t + CLOCK_OFFSET_MS, zone);
    const [from, to] = where.country === "US" ? [8 * 60, 21 * 60] : weekend ? [10 * 60, 18 * 60] : [9 * 60, 21 * 60 + 30];
    return minute >= from && minute < to;
  });
const runStart = Date.now();
const steady = (code: string, open: boolean) => [0, 5, 10, 15, 20].every((m) => isOpen(runStart + m * 60_000, ZONES[code]!) === open);
const openCodes = Object.keys(ZONES).filter((c) => steady(c, true));
const closedCodes = Object.keys(ZONES).filter((c) => steady(c, false));
// With no zone open, a service notice (transactional: no quiet hours) still measures the pipeline.
const marketing = openCodes.length > 0;
if (!marketing) console.log("No area code of the audience is inside its allowed hours now: the campaign is a service notice instead.");
const sendCodes = marketing ? openCodes : Object.keys(ZONES);
const isReachable = (t: number, where: { zones: string[]; country: "US" | "CA" }) => !marketing || isOpen(t, where);
// Four in five recipients can be reached now; one in five must wait (when some zone is closed).
const closedShare = marketing && closedCodes.length > 0 ? Math.floor(RECIPIENTS / 5) : 0;
const phoneOf = (codes: string[], i: number) =>
  `+1${codes[i % codes.length]}55${String(Math.floor(i / codes.length) % 10)}${String(i).padStart(4, "0").slice(-4)}`;
const phones = [
  ...Array.from({ length: RECIPIENTS - closedShare }, (_, i) => phoneOf(sendCodes, i)),
  ...Array.from({ length: closedShare }, (_, i) => phoneOf(closedCodes, i)),
];
if (new Set(phones).size !== phones.length) throw new Error("bench numbering collided");
const zoneOf = (phone: string) => ZONES[phone.slice(2, 5)]!;
const reachable = phones.filter((p) => isReachable(runStart, zoneOf(p)));

const DIR = prepareBuild(options, ".wrangler/bench-dispatch-build");
freshState(STATE);
// Marketing needs a consent basis: every bench number ticked the registration box.
mkdirSync(".wrangler", { recursive: true });
writeFileSync(
  ".wrangler/bench-dispatch-consent.sql",
  phones
    .map(
      (p) =>
        `INSERT INTO consent_events (phone, kind, channel, basis, source, text_version, language, at) VALUES ('${p}', 'consent', 'all', 'express', 'registration', 'bench', 'en', ${runStart});`,
    )
    .join("\n"),
);
run("wrangler", ["d1", "execute", "DB", "--local", `--persist-to=${STATE}`, "--file=.wrangler/bench-dispatch-consent.sql"]);
const vars = devVarsOf(DIR);
const fake = await startFakeProvider({ port: FAKE_PORT });
const permanent = Object.fromEntries(
  phones
    .filter((p, i) => i % Math.floor(RECIPIENTS / Math.max(1, PERMANENT)) === 7 && reachable.includes(p))
    .slice(0, PERMANENT)
    .map((p) => [p, "21211"]),
);
await fetch(`${fake.url}/__control/config`, {
  method: "POST",
  body: JSON.stringify({
    twilio: { accountSid: vars.TWILIO_ACCOUNT_SID, authToken: vars.TWILIO_AUTH_TOKEN },
    rate: RATE,
    burst: RATE,
    fail429: FAIL_429,
    fail5xx: FAIL_5XX,
    failTimeout: TIMEOUTS,
    failAcceptTimeout: ACCEPT_TIMEOUTS,
    retryAfter: 1,
    permanent,
    callbackDelayMs: 300,
  }),
});

const workerUrl = `http://127.0.0.1:${PORT}`;
// The Worker's worker.usage lines (USAGE_LOG=1): D1 statements, Durable Object calls and queue messages per recipient.
const workerLog = new WorkerLog();
const worker = await startWorker({
  onLog: workerLog.onLog,
  dir: DIR,
  port: PORT,
  state: STATE,
  vars: {
    SMS_PROVIDER: "twilio",
    TWILIO_API_BASE: fake.url,
    SEND_RATE_PER_SECOND: String(RATE),
    PROVIDER_TIMEOUT_MS: String(PROVIDER_TIMEOUT_MS),
    CALLBACK_WAIT_SECONDS: String(CALLBACK_WAIT_SECONDS),
    ...(CLOCK_OFFSET_MS !== 0 ? { COMPLIANCE_CLOCK_OFFSET_MS: String(CLOCK_OFFSET_MS) } : {}),
    // Delivery receipts come back to this Worker, signed, through the webhook route.
    APP_ORIGIN: workerUrl,
    USAGE_LOG: "1",
  },
});
const { idToken } = await signInOwner(workerUrl);
const headers = { Authorization: `Bearer ${idToken}`, "Content-Type": "application/json" };
const api = async <T>(path: string, init?: RequestInit): Promise<T> => {
  const res = await fetch(`${workerUrl}${path}`, { ...init, headers });
  const text = await res.text();
  if (!res.ok) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 300)}`);
  return (path.endsWith(".csv") ? text : JSON.parse(text)) as T;
};

type Counts = Record<"pending" | "deferred" | "sending" | "sent" | "delivered" | "failed" | "skipped", number>;
type Campaign = { id: number; status: string; total: number; counts: Counts; deferred: { first: number; last: number } | null };

const body = `Bench ${Date.now()}: your blocks are waiting. Reply STOP to opt out.`;
await new Promise((r) => setTimeout(r, 500));
const usageBefore = { line: workerLog.last("worker.usage"), bytes: d1Bytes(STATE), cpu: workerdCpuSeconds() };
let statusPolls = 0;
const started = Date.now();
const created = await api<{ campaign: Campaign; message: string }>("/api/admin/campaigns", {
  method: "POST",
  body: JSON.stringify({
    idempotencyKey: `bench-${started}`,
    source: "list",
    channel: "sms",
    purpose: marketing ? "marketing" : "service",
    message: body,
    phones,
  }),
});
console.log(
  `${created.message} (campaign ${created.campaign.id}); provider allows ${RATE}/s, injects 429 ${FAIL_429 * 100}%, 5xx ${FAIL_5XX * 100}%, time-outs ${TIMEOUTS * 100}%, accepted-then-time-out ${ACCEPT_TIMEOUTS * 100}%`,
);

let campaign = created.campaign;
const deadline = started + (RECIPIENTS / RATE) * 3_000 + 180_000;
let lastPrint = 0;
for (;;) {
  statusPolls++;
  campaign = (await api<{ campaign: Campaign }>(`/api/admin/campaigns/${campaign.id}`)).campaign;
  if (Date.now() - lastPrint > 10_000) {
    lastPrint = Date.now();
    console.log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: ${campaign.status} ${JSON.stringify(campaign.counts)}`);
  }
  // Deferred rows wait for the morning in the queue: the run is over when nothing else is left.
  const settledNow = campaign.status !== "queued" && campaign.status !== "expanding" && campaign.counts.pending + campaign.counts.sending === 0;
  if (campaign.status === "done" || campaign.status === "failed" || settledNow || Date.now() > deadline) break;
  await new Promise((r) => setTimeout(r, 1_000));
}
const finished = Date.now();
// Let the last delivery receipts arrive.
await new Promise((r) => setTimeout(r, 2_000));
statusPolls++;
campaign = (await api<{ campaign: Campaign }>(`/api/admin/campaigns/${campaign.id}`)).campaign;
await unitsPerRecipient();

/**
 * What a recipient costs (docs/capacity.md): the Worker's counters and the D1 file over the
 * campaign, less the bench's own status polls (each priced by five more polls afterwards), per
 * recipient. Delivery receipts and retries of the injected faults are part of it.
 */
async function unitsPerRecipient() {
  const after = { line: workerLog.last("worker.usage"), bytes: d1Bytes(STATE), cpu: workerdCpuSeconds() };
  for (let i = 0; i < 5; i++) await api(`/api/admin/campaigns/${campaign.id}`);
  await new Promise((r) => setTimeout(r, 500));
  const poll = difference(after.line, workerLog.last("worker.usage"));
  const run = difference(usageBefore.line, after.line);
  const less = (key: string) => (run[key] ?? 0) - (statusPolls * (poll[key] ?? 0)) / 5;
  const units = {
    recipients: RECIPIENTS,
    faults: { fail429: FAIL_429, fail5xx: FAIL_5XX, timeouts: TIMEOUTS, acceptTimeouts: ACCEPT_TIMEOUTS },
    perRecipient: {
      requests: per(less("requests"), RECIPIENTS),
      d1Reads: per(less("d1Reads"), RECIPIENTS),
      d1Writes: per(less("d1Writes"), RECIPIENTS),
      d1RowsRead: per(less("d1RowsRead"), RECIPIENTS),
      d1RowsWritten: per(less("d1RowsWritten"), RECIPIENTS),
      d1BytesUsed: per(after.bytes.usedBytes - usageBefore.bytes.usedBytes, RECIPIENTS),
      d1FileBytes: per(after.bytes.fileBytes - usageBefore.bytes.fileBytes, RECIPIENTS),
      queueMessagesSent: per(run.queueMessagesSent ?? 0, RECIPIENTS),
      queueMessagesReceived: per(run.queueMessagesReceived ?? 0, RECIPIENTS),
      doCalls: per(run["doCalls.SEND_PACER"] ?? 0, RECIPIENTS),
      workerdCpuMs: per((after.cpu - usageBefore.cpu) * 1000, RECIPIENTS),
    },
  };
  const u = units.perRecipient;
  const n = (x: number) => x.toFixed(2);
  console.log(
    `\nper recipient (the Worker's counters, less the bench's ${statusPolls} status polls; delivery receipts and fault retries included)\n` +
      "| requests | D1 statements read / write | D1 rows read / written (meta) | D1 bytes in use / file | queue messages sent / received | pacer calls | workerd CPU (upper bound) |\n|---|---|---|---|---|---|---|\n" +
      `| ${n(u.requests)} | ${n(u.d1Reads)} / ${n(u.d1Writes)} | ${n(u.d1RowsRead)} / ${n(u.d1RowsWritten)} | ${u.d1BytesUsed.toFixed(0)} / ${u.d1FileBytes.toFixed(0)} | ${n(u.queueMessagesSent)} / ${n(u.queueMessagesReceived)} | ${n(u.doCalls)} | ${u.workerdCpuMs.toFixed(2)} ms |`,
  );
  console.log(`unit costs written to ${saveUnits("dispatch", units)}`);
  return units;
}

const stats = (await (await fetch(`${fake.url}/__control/stats`)).json()) as {
  accepted: number;
  duplicates: number;
  firstAt: number;
  lastAt: number;
  rejected: Record<string, number>;
  acceptedUnanswered: number;
  callbacks: { sent: number; failed: number; retried: number };
  lookups: { answered: number; failed: number };
};
const { messages, timedOut } = (await (await fetch(`${fake.url}/__control/messages`)).json()) as {
  messages: AcceptedMessage[];
  timedOut: { to: string; body: string; at: number }[];
};
const csv = await api<string>(`/api/admin/campaigns/${campaign.id}/export.csv`);
worker.stop();
await fake.close();

// The ledger: phone, name, status, provider_id, error_code, … (no commas in these phones or ids).
// Every cell starting with "+" is defused with an apostrophe (src/worker/cross-cutting/csv.ts): the
// phone is the cell without it.
const ledger = csv
  .trim()
  .split("\r\n")
  .slice(1)
  .map((line) => {
    const [phone, , status, providerId, errorCode] = line.split(",");
    return { phone: phone!.replace(/^'/, ""), status: status!, providerId: providerId!, errorCode: errorCode! };
  });
const accepted = new Map<string, AcceptedMessage[]>();
for (const m of messages.filter((m) => m.body === body)) accepted.set(m.to, [...(accepted.get(m.to) ?? []), m]);
const acceptedIds = new Set(messages.map((m) => m.id));
const failedVisibly = ledger.filter((r) => r.status === "failed");
const duplicates = [...accepted.values()].reduce((n, list) => n + list.length - 1, 0);
// Lost: a recipient the provider never accepted and whose row does not say it failed, or a row
// claiming a send the provider has no record of, or a row still unsettled.
const deferredRows = ledger.filter((r) => r.status === "deferred");
const lostPhones = reachable.filter((p) => !accepted.has(p) && !failedVisibly.some((r) => r.phone === p));
const phantom = ledger.filter((r) => (r.status === "sent" || r.status === "delivered") && !acceptedIds.has(r.providerId));
const unsettled = ledger.filter((r) => r.status === "pending" || r.status === "sending");
// Quiet hours: the closed zones' numbers are all deferred and none was sent; nothing reached anyone outside its allowed hours.
const closedPhones = phones.filter((p) => !isReachable(runStart, zoneOf(p)));
const notDeferred = closedPhones.filter((p) => !deferredRows.some((r) => r.phone === p));
const outsideHours = messages.filter((m) => m.body === body && !isReachable(m.at, zoneOf(m.to)));
const unrecorded = messages.filter((m) => m.body === body && !ledger.some((r) => r.providerId === m.id));
const lost = lostPhones.length + phantom.length + unsettled.length + notDeferred.length;
// Ambiguous sends (accepted, never answered): settled by their callback if it was taken before any
// lookup showed the message, else by the lookup (the Worker asked because the row was still held).
const unanswered = messages.filter((m) => m.unanswered);
const byLookup = unanswered.filter((m) => m.listedAt !== undefined && (m.callbackAt === undefined || m.listedAt < m.callbackAt));
// Plain time-outs (nothing accepted): how long after the request that got no answer the message was
// accepted on a later try. The tail of a run is made of these.
const resendDelays = timedOut
  .filter((x) => x.body === body)
  .flatMap((x) => {
    const next = (accepted.get(x.to) ?? []).find((m) => m.at > x.at);
    return next ? [(next.at - x.at) / 1000] : [];
  })
  .sort((a, b) => a - b);
const quantile = (q: number) => (resendDelays.length ? resendDelays[Math.min(resendDelays.length - 1, Math.floor(q * resendDelays.length))]!.toFixed(1) : "-");
// The last 20 s of acceptances, per second: where the window's end went.
const acceptedTimes = messages.map((m) => m.at).sort((a, b) => a - b);
const lastSeconds = Array.from(
  { length: 20 },
  (_, i) => acceptedTimes.filter((at) => at > stats.lastAt - (20 - i) * 1000 && at <= stats.lastAt - (19 - i) * 1000).length,
);

const windowSeconds = (stats.lastAt - stats.firstAt) / 1000;
const achieved = (stats.accepted - 1) / windowSeconds;
const attempts = stats.accepted + Object.values(stats.rejected).reduce((a, b) => a + b, 0);
const pct = (achieved / RATE) * 100;
const rows: [string, string, string][] = [
  [
    "recipients",
    RECIPIENTS.toLocaleString("en-US"),
    marketing ? `marketing; open now ${openCodes.join(" ")}; closed now ${closedCodes.join(" ") || "none"}` : "service notice (no zone open now)",
  ],
  [
    "deferred (quiet hours)",
    `${deferredRows.length} of ${closedPhones.length} outside their hours`,
    `queued until ${campaign.deferred ? new Date(campaign.deferred.first).toISOString() : "-"}${CLOCK_OFFSET_MS ? " on the rules' clock" : ""}; goal: all of them`,
  ],
  ["sent outside allowed local hours", String(outsideHours.length), "goal 0, checked with Intl per message"],
  ["provider limit R", `${RATE} msg/s`, "token bucket, burst R"],
  ["achieved rate", `${achieved.toFixed(2)} msg/s (${pct.toFixed(1)} % of R)`, "goal ≥ 95 %"],
  ["send window", `${windowSeconds.toFixed(1)} s first to last accepted`, `campaign done after ${((finished - started) / 1000).toFixed(1)} s`],
  [
    "provider requests",
    `${attempts} (${(attempts / windowSeconds).toFixed(2)}/s)`,
    `rate-limited ${stats.rejected.rateLimited}, injected 429 ${stats.rejected.injected429}, 5xx ${stats.rejected.injected5xx}, time-outs ${stats.rejected.timeouts}, permanent ${stats.rejected.permanent}`,
  ],
  [
    "ambiguous sends",
    `${stats.acceptedUnanswered} accepted with no answer`,
    `settled by their status callback ${unanswered.length - byLookup.length}, by a lookup ${byLookup.length}; lookups answered ${stats.lookups.answered}, failed ${stats.lookups.failed}`,
  ],
  [
    "time-out to re-send",
    `median ${quantile(0.5)} s, min ${quantile(0)} s, max ${quantile(1)} s`,
    `${resendDelays.length} plain time-outs: 3 s time-out, held 3 s, looked up, sent; a retried job queues behind the backlog, so mid-run this is mostly the wait in the queue`,
  ],
  [
    "tail",
    `${((stats.lastAt - acceptedTimes[Math.max(0, Math.floor(acceptedTimes.length * 0.999) - 1)]!) / 1000).toFixed(1)} s`,
    "from the first 99.9 % of acceptances to the last (retries of faults near the end)",
  ],
  ["last 20 s, accepted per second", lastSeconds.join(" "), "oldest first; the window ends at the last acceptance"],
  ["duplicates", String(duplicates), "goal 0"],
  [
    "lost",
    String(lost),
    `goal 0 (never accepted and not failed ${lostPhones.length}, phantom sends ${phantom.length}, unsettled ${unsettled.length}, closed but not deferred ${notDeferred.length})`,
  ],
  ["sent but unrecorded", String(unrecorded.length), "provider accepted, ledger has no id"],
  ["ledger", JSON.stringify(campaign.counts), `failed = the ${PERMANENT} permanent numbers (21211) plus any dead letters`],
  [
    "delivery receipts",
    `${stats.callbacks.sent} taken, ${stats.callbacks.failed} given up`,
    `signed X-Twilio-Signature callbacks; ${stats.callbacks.retried} deliveries retried (#rc=5&rp=all)`,
  ],
];
console.log(`\n| measure | value | note |\n|---|---|---|`);
for (const [a, b, c] of rows) console.log(`| ${a} | ${b} | ${c} |`);
mkdirSync("bench/results", { recursive: true });
writeFileSync(
  `bench/results/dispatch-${started}.json`,
  JSON.stringify({
    RECIPIENTS,
    RATE,
    FAIL_429,
    FAIL_5XX,
    TIMEOUTS,
    ACCEPT_TIMEOUTS,
    achieved,
    pct,
    duplicates,
    lost,
    stats,
    ambiguous: { unanswered: unanswered.length, byLookup: byLookup.length },
    resendDelays,
    counts: campaign.counts,
    acceptedAt: messages.map((m) => m.at).sort((a, b) => a - b),
  }),
);
const correct = duplicates === 0 && lost === 0 && outsideHours.length === 0;
const ok = correct && pct >= 95;
console.log(`\n${ok ? "Within the goals." : "OUTSIDE THE GOALS."}${options.short && correct && !ok ? " (short run: the rate is informative only)" : ""}`);
process.exit(correct && (ok || options.short) ? 0 : 1);
