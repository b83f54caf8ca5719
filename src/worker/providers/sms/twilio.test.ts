import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { fakeTenant, uniquePhone } from "../../test/fixtures";
import { retryAfterSeconds } from "../http-call";
import { createSmsProvider } from "./provider";
import { TwilioSms } from "./twilio";

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
        statusCallback: "https://bp.example/api/webhooks/twilio/status",
      },
    ]);
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
