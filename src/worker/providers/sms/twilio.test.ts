import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fakeTenant, uniquePhone } from "../../test/fixtures";
import { retryAfterSeconds } from "../http-call";
import { createSmsProvider } from "./provider";
import { TWILIO_CALLBACK_OVERRIDES, TwilioSms, withCallbackOverrides } from "./twilio";

/** The real adapter, over HTTP, against a private tenant of the fake provider. */
function twilio(overrides: Partial<Env> = {}) {
  const tenant = fakeTenant();
  return { tenant, sms: new TwilioSms(tenant.env(overrides)) };
}

describe("TwilioSms", () => {
  it("is what SMS_PROVIDER = twilio builds, paced per from-number", () => {
    const sms = createSmsProvider({ ...env, SMS_PROVIDER: "twilio", TWILIO_FROM: "+15005550006" });
    expect(sms).toBeInstanceOf(TwilioSms);
    expect(sms.sender).toBe("sms:+15005550006");
    expect(createSmsProvider(env).sender).toBeNull();
  });

  it("posts the form with Basic auth and answers the message SID", async () => {
    const { tenant, sms } = twilio();
    const to = uniquePhone();
    const outcome = await sms.send({ to, body: "Olá & bienvenue — 😀", statusCallbackUrl: "https://bp.example/api/webhooks/twilio/status" });
    expect(outcome).toMatchObject({ ok: true, providerId: expect.stringMatching(/^SM[0-9a-f]{32}$/) });
    const { messages } = await tenant.messages();
    expect(messages).toEqual([
      {
        id: (outcome as { providerId: string }).providerId,
        channel: "sms",
        to,
        from: env.TWILIO_FROM,
        body: "Olá & bienvenue — 😀",
        at: expect.any(Number),
        status: "queued",
        // Connection overrides: Twilio retries a callback we refuse or fail, up to 5 times.
        statusCallback: "https://bp.example/api/webhooks/twilio/status#rc=5&rp=all",
      },
    ]);
  });

  it("puts its connection overrides on a StatusCallback URL, replacing any fragment", () => {
    expect(TWILIO_CALLBACK_OVERRIDES).toBe("#rc=5&rp=all");
    expect(withCallbackOverrides("https://bp.example/s?m=4")).toBe("https://bp.example/s?m=4#rc=5&rp=all");
    expect(withCallbackOverrides("https://bp.example/s?m=4#ct=100")).toBe("https://bp.example/s?m=4#rc=5&rp=all");
  });

  it("treats bad credentials and bad numbers as final, keeping Twilio's code", async () => {
    const { sms: wrongToken } = twilio({ TWILIO_AUTH_TOKEN: "nope" });
    expect(await wrongToken.send({ to: uniquePhone(), body: "x" })).toEqual({ ok: false, retryable: false, errorCode: "20003", errorMessage: "Authenticate" });
    const { sms } = twilio();
    expect(await sms.send({ to: "+1", body: "x" })).toMatchObject({ ok: false, retryable: false, errorCode: "21211" });
  });

  it("fails unsubscribed recipients permanently (21610)", async () => {
    const { tenant, sms } = twilio();
    const to = uniquePhone();
    await tenant.configure({ permanent: { [to]: "21610" } });
    expect(await sms.send({ to, body: "x" })).toMatchObject({ ok: false, retryable: false, errorCode: "21610" });
  });

  it("retries 429 with its Retry-After, 5xx and time-outs", async () => {
    const { tenant, sms } = twilio();
    await tenant.configure({ script: [{ kind: "429", retryAfter: 9 }, { kind: "5xx", status: 500 }, { kind: "timeout" }] });
    expect(await sms.send({ to: uniquePhone(), body: "x" })).toEqual({
      ok: false,
      retryable: true,
      errorCode: "20429",
      errorMessage: "Too Many Requests",
      retryAfterSeconds: 9,
    });
    expect(await sms.send({ to: uniquePhone(), body: "x" })).toMatchObject({ ok: false, retryable: true, errorCode: "20500" });
    // The fake never answers: only the adapter's own time-out ends the call.
    expect(await sms.send({ to: uniquePhone(), body: "x" })).toEqual({
      ok: false,
      retryable: true,
      errorCode: "timeout",
      errorMessage: "No answer within 1000 ms",
    });
    expect((await tenant.stats()).accepted).toBe(0);
  });

  it("meets the provider's own rate limit as a retryable 429", async () => {
    const { tenant, sms } = twilio();
    await tenant.configure({ rate: 1, burst: 1 });
    expect((await sms.send({ to: uniquePhone(), body: "x" })).ok).toBe(true);
    expect(await sms.send({ to: uniquePhone(), body: "x" })).toMatchObject({ ok: false, retryable: true, errorCode: "20429", retryAfterSeconds: 1 });
    expect((await tenant.stats()).rejected.rateLimited).toBe(1);
  });
});

describe("retryAfterSeconds", () => {
  it("reads delta-seconds and HTTP dates, and nothing else", () => {
    const now = Date.UTC(2026, 0, 1, 12, 0, 0);
    expect(retryAfterSeconds("120", now)).toBe(120);
    expect(retryAfterSeconds(" 0 ", now)).toBe(0);
    expect(retryAfterSeconds("Thu, 01 Jan 2026 12:00:30 GMT", now)).toBe(30);
    expect(retryAfterSeconds("Thu, 01 Jan 2026 11:00:00 GMT", now)).toBe(0);
    expect(retryAfterSeconds(null, now)).toBeUndefined();
    expect(retryAfterSeconds("soon", now)).toBeUndefined();
    expect(retryAfterSeconds("-5", now)).toBeUndefined();
  });
});

describe("TwilioSms.lookup (the Messages list, before a re-send)", () => {
  it("finds our message to the number with the same text, created since the given instant, and says where it stands", async () => {
    const { tenant, sms } = twilio();
    const to = uniquePhone();
    const before = Date.now() - 1_000;
    const sent = await sms.send({ to, body: "Your blocks are waiting" });
    expect(sent.ok).toBe(true);
    const sid = (sent as { providerId: string }).providerId;
    expect(await sms.lookup({ to, body: "Your blocks are waiting", since: before })).toEqual({
      found: true,
      providerId: sid,
      status: "accepted",
      errorCode: null,
      errorMessage: null,
    });
    // Another text, another number, or only messages created later: not ours.
    expect(await sms.lookup({ to, body: "Something else", since: before })).toEqual({ found: false });
    expect(await sms.lookup({ to: uniquePhone(), body: "Your blocks are waiting", since: before })).toEqual({ found: false });
    expect(await sms.lookup({ to, body: "Your blocks are waiting", since: Date.now() + 5_000 })).toEqual({ found: false });
    expect((await tenant.stats()).accepted).toBe(1);
  });

  it("reports a delivered or undelivered message as the list resource says, with Twilio's error code", async () => {
    const { tenant, sms } = twilio();
    const [ok, bad] = [uniquePhone(), uniquePhone()];
    await tenant.configure({ callbackDelayMs: 0, undeliverable: [bad] });
    const since = Date.now() - 1_000;
    await sms.send({ to: ok, body: "x", statusCallbackUrl: "http://127.0.0.1:9/nowhere" });
    await sms.send({ to: bad, body: "x", statusCallbackUrl: "http://127.0.0.1:9/nowhere" });
    await new Promise((r) => setTimeout(r, 50));
    expect(await sms.lookup({ to: ok, body: "x", since })).toMatchObject({ found: true, status: "delivered", errorCode: null });
    expect(await sms.lookup({ to: bad, body: "x", since })).toMatchObject({ found: true, status: "failed", errorCode: "30003" });
  });

  it("says the question failed on a time-out, a 5xx, a 429 or bad credentials, rather than 'not found'", async () => {
    const { tenant, sms } = twilio();
    const to = uniquePhone();
    await tenant.configure({ lookupScript: [{ kind: "timeout" }, { kind: "5xx", status: 500 }, { kind: "429" }] });
    expect(await sms.lookup({ to, body: "x", since: 0 })).toEqual({ found: null, errorCode: "timeout", errorMessage: "No answer within 1000 ms" });
    expect(await sms.lookup({ to, body: "x", since: 0 })).toMatchObject({ found: null, errorCode: "20500" });
    expect(await sms.lookup({ to, body: "x", since: 0 })).toMatchObject({ found: null, errorCode: "20429" });
    const { sms: wrongToken } = twilio({ TWILIO_AUTH_TOKEN: "nope" });
    expect(await wrongToken.lookup({ to, body: "x", since: 0 })).toMatchObject({ found: null, errorCode: "20003" });
  });
});
