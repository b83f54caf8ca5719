import { createServer, type IncomingMessage } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listen, readBody } from "../http.ts";
import { type FakeProvider, metaSignature, startFakeProvider, twilioSignature } from "./server.ts";

/** A webhook receiver answering each request with the next status of `answers` (then 200), recording what came. */
async function receiver(answers: number[]) {
  const got: { url: string; headers: IncomingMessage["headers"]; body: string }[] = [];
  const server = createServer(async (req, res) => {
    got.push({ url: req.url ?? "", headers: req.headers, body: await readBody(req) });
    res.writeHead(answers.shift() ?? 200).end();
  });
  const l = await listen(server, 0, "127.0.0.1");
  return { ...l, got };
}

const until = async (check: () => boolean, ms = 5_000) => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
};

/** Longer than a first callback retry waits (callbackRetryBaseMs, 0.5 s): a retry that was coming has come. */
const NO_RETRY_WAIT_MS = 800;

let fake: FakeProvider;
beforeAll(async () => {
  fake = await startFakeProvider();
});
afterAll(() => fake.close());

let n = 0;
/** A private tenant configured for fast callbacks and quick retries. */
async function tenant(config: Record<string, unknown> = {}) {
  const base = `${fake.url}/t/fake-test-${++n}`;
  await fetch(`${base}/__control/config`, { method: "POST", body: JSON.stringify({ callbackDelayMs: 0, callbackRetryBaseMs: 20, ...config }) });
  const auth = `Basic ${Buffer.from("ACtest:test-twilio-token").toString("base64")}`;
  return {
    base,
    auth,
    stats: async () =>
      (await (await fetch(`${base}/__control/stats`)).json()) as {
        callbacks: { sent: number; failed: number; retried: number };
        callbackRetryDelaysMs: number[];
      },
    sms: (form: Record<string, string>) =>
      fetch(`${base}/2010-04-01/Accounts/ACtest/Messages.json`, {
        method: "POST",
        headers: { Authorization: auth, "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams(form).toString(),
      }).then((r) => r.json() as Promise<{ sid: string }>),
  };
}

describe("fake provider: Twilio status callbacks honour the connection overrides", () => {
  it("retries a refused callback as `#rc=5&rp=all` says, signing the URL as supplied, fragment included", async () => {
    const hook = await receiver([503, 500, 404]);
    const t = await tenant();
    const callback = `${hook.url}/status?m=7#rc=5&rp=all`;
    const { sid } = await t.sms({ To: "+13055550100", From: "+15005550006", Body: "x", StatusCallback: callback });
    await until(() => hook.got.length >= 4);
    await new Promise((r) => setTimeout(r, 100));
    expect(hook.got).toHaveLength(4);
    // The fragment is not sent; the signature covers it.
    expect(hook.got.every((g) => g.url === "/status?m=7")).toBe(true);
    const params = new URLSearchParams(hook.got[0]!.body);
    expect(params.get("MessageSid")).toBe(sid);
    expect(hook.got[0]!.headers["x-twilio-signature"]).toBe(twilioSignature("test-twilio-token", callback, params));
    // Doubling delays between attempts, as scheduled (the clock's gaps depend on the machine's load).
    const stats = await t.stats();
    expect(stats.callbackRetryDelaysMs).toEqual([20, 40, 80]);
    expect(stats.callbacks).toEqual({ sent: 1, failed: 0, retried: 3 });
    await hook.close();
  });

  it("gives up after `rc` retries, and retries only what `rp` names", async () => {
    const hook = await receiver([503, 503, 503, 503, 404]);
    const t = await tenant();
    await t.sms({ To: "+13055550101", From: "+15005550006", Body: "x", StatusCallback: `${hook.url}/a#rc=2&rp=5xx` });
    await until(() => hook.got.length >= 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(hook.got).toHaveLength(3);
    expect((await t.stats()).callbacks).toEqual({ sent: 0, failed: 1, retried: 2 });
    // A 4xx is not a 5xx: not retried under rp=5xx.
    const other = await receiver([404]);
    await t.sms({ To: "+13055550102", From: "+15005550006", Body: "x", StatusCallback: `${other.url}/b#rc=5&rp=5xx` });
    // The first delivery, then longer than the first retry would wait (0.5 s): nothing more comes.
    await until(() => other.got.length >= 1);
    await new Promise((r) => setTimeout(r, NO_RETRY_WAIT_MS));
    expect(other.got).toHaveLength(1);
    await hook.close();
    await other.close();
  });

  it("without overrides, as Twilio by default: an answered failure is not retried", async () => {
    const hook = await receiver([503]);
    const t = await tenant();
    await t.sms({ To: "+13055550103", From: "+15005550006", Body: "x", StatusCallback: `${hook.url}/plain` });
    await until(() => hook.got.length >= 1);
    await new Promise((r) => setTimeout(r, NO_RETRY_WAIT_MS));
    expect(hook.got).toHaveLength(1);
    expect((await t.stats()).callbacks).toEqual({ sent: 0, failed: 1, retried: 0 });
    await hook.close();
  });

  it("can sign without the fragment instead (twilioSignsFragment: false)", async () => {
    const hook = await receiver([]);
    const t = await tenant({ twilioSignsFragment: false });
    await t.sms({ To: "+13055550104", From: "+15005550006", Body: "x", StatusCallback: `${hook.url}/s#rc=5&rp=all` });
    await until(() => hook.got.length >= 1);
    const params = new URLSearchParams(hook.got[0]!.body);
    expect(hook.got[0]!.headers["x-twilio-signature"]).toBe(twilioSignature("test-twilio-token", `${hook.url}/s`, params));
    await hook.close();
  });
});

describe("fake provider: Meta status webhooks", () => {
  it("are delivered again after anything but a 200, with growing delays, until one is taken", async () => {
    const hook = await receiver([500, 503, 429, 400]);
    const t = await tenant({ whatsappCallbackUrl: `${hook.url}/wa` });
    await fetch(`${t.base}/v21.0/100000000000000/messages`, {
      method: "POST",
      headers: { Authorization: "Bearer test-whatsapp-token", "Content-Type": "application/json" },
      body: JSON.stringify({ messaging_product: "whatsapp", to: "13055550105", type: "text", text: { body: "hi" }, biz_opaque_callback_data: "m:9" }),
    });
    await until(() => hook.got.length >= 5, 10_000);
    expect(hook.got).toHaveLength(5);
    expect(hook.got[4]!.headers["x-hub-signature-256"]).toBe(metaSignature("test-whatsapp-secret", hook.got[4]!.body));
    expect(hook.got[4]!.body).toContain('"biz_opaque_callback_data":"m:9"');
    expect((await t.stats()).callbacks).toEqual({ sent: 1, failed: 0, retried: 4 });
    await hook.close();
  });
});

describe("fake provider: Twilio's Messages list", () => {
  it("answers the messages to a number from a sender, newest first, behind Basic auth", async () => {
    const t = await tenant({ callbackDelayMs: null });
    const a = await t.sms({ To: "+13055550106", From: "+15005550006", Body: "first" });
    const b = await t.sms({ To: "+13055550106", From: "+15005550006", Body: "second" });
    await t.sms({ To: "+13055550107", From: "+15005550006", Body: "other number" });
    await t.sms({ To: "+13055550106", From: "+15005550099", Body: "other sender" });
    const url = `${t.base}/2010-04-01/Accounts/ACtest/Messages.json?To=%2B13055550106&From=%2B15005550006&PageSize=20`;
    expect((await fetch(url)).status).toBe(401);
    const page = (await (await fetch(url, { headers: { Authorization: t.auth } })).json()) as { messages: { sid: string; body: string; status: string }[] };
    expect(page.messages.map((m) => [m.sid, m.body, m.status])).toEqual([
      [b.sid, "second", "queued"],
      [a.sid, "first", "queued"],
    ]);
  });
});
