import { z } from "zod";
import { callProvider, readJson, retryAfterSeconds } from "../providers/http-call";
import { FlexPlatform, type FlexPlatformOptions } from "./flex-platform";
import {
  type AcceptOutcome,
  type ApprovalStep,
  type DeliveryPlatform,
  type ModelledSignIn,
  PlatformError,
  type PlatformOffer,
  type PlatformStation,
  type PlatformTokens,
  type ScheduledBlock,
  type SignInStep,
} from "./platform";
import { requestSignerFor } from "./request-signer";

// The platform's answers, as much of them as we read. Times are epoch seconds, pay is dollars.
const tokensAnswer = z.object({ access_token: z.string().min(1), refresh_token: z.string().min(1).optional(), expires_in: z.number().positive() });
const challengeAnswer = z.object({ challenge: z.enum(["OTP", "APPROVAL"]), session: z.string().min(1), destination: z.string().nullish() });
const stationsAnswer = z.object({
  serviceAreas: z.array(z.object({ serviceAreaId: z.string().min(1), name: z.string(), region: z.string(), timeZone: z.string().min(1) })),
});
const rateInfo = z.object({ priceAmount: z.number().nonnegative() });
const offersAnswer = z.object({
  offerList: z.array(
    z.object({
      offerId: z.string().min(1),
      serviceAreaId: z.string().min(1),
      startTime: z.number(),
      endTime: z.number(),
      expirationDate: z.number(),
      rateInfo,
      hidden: z.boolean().optional(),
    }),
  ),
});
const blockShape = z.object({
  blockId: z.string().min(1),
  offerId: z.string().nullish(),
  serviceAreaId: z.string().min(1),
  startTime: z.number(),
  endTime: z.number(),
  rateInfo,
  arrivedAt: z.number().nullish(),
});

const ms = (epochSeconds: number) => Math.round(epochSeconds * 1000);
const cents = (dollars: number) => Math.round(dollars * 100);
const toBlock = (b: z.infer<typeof blockShape>): ScheduledBlock => ({
  id: b.blockId,
  offerId: b.offerId ?? null,
  stationId: b.serviceAreaId,
  startsAt: ms(b.startTime),
  endsAt: ms(b.endTime),
  payCents: cents(b.rateInfo.priceAmount),
  arrivedAt: b.arrivedAt == null ? null : ms(b.arrivedAt),
});

export type HttpPlatformOptions = {
  baseUrl: string;
  timeoutMs: number;
  /**
   * How many times a rate-limited call waits as the platform asks and tries again, and the
   * longest wait it accepts. The engine passes 0: it schedules its own next poll instead.
   */
  rateLimitRetries?: number;
  maxRetryWaitMs?: number;
  now?: () => number;
  /** How a wait is waited (tests record it instead of sleeping). */
  sleep?: (ms: number) => Promise<void>;
};

type Call = { method: "GET" | "POST"; path: string; body?: unknown; accessToken?: string };

/**
 * Spark's adapter: a modelled protocol (nothing public describes Spark's API; docs/engine.md),
 * JSON over HTTPS with a hard time-out per call, 429s honoured with back-off, email and password
 * sign-in with a code or an approval.
 */
export class HttpPlatform implements DeliveryPlatform, ModelledSignIn {
  private readonly base: string;
  private readonly retries: number;
  private readonly maxWait: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly options: HttpPlatformOptions) {
    this.base = options.baseUrl.replace(/\/+$/, "");
    this.retries = options.rateLimitRetries ?? 2;
    this.maxWait = options.maxRetryWaitMs ?? 3000;
    this.now = options.now ?? Date.now;
    this.sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** One call; answers the response for any status but 429 and 5xx, which become errors (after retries for 429). */
  private async send(call: Call): Promise<Response> {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = { Accept: "application/json" };
      if (call.body !== undefined) headers["Content-Type"] = "application/json";
      if (call.accessToken) headers.Authorization = `Bearer ${call.accessToken}`;
      const result = await callProvider(
        `${this.base}${call.path}`,
        { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) },
        this.options.timeoutMs,
      );
      if (!result.ok) throw new PlatformError("unavailable", result.errorMessage);
      const res = result.response;
      if (res.status === 429) {
        await res.body?.cancel();
        // Back off as asked; without a Retry-After, exponentially from one second.
        const waitMs = (retryAfterSeconds(res.headers.get("Retry-After"), this.now()) ?? 2 ** attempt) * 1000;
        if (attempt >= this.retries || waitMs > this.maxWait) throw new PlatformError("rate_limited", "The platform asked to slow down", waitMs, 429);
        await this.sleep(waitMs);
        continue;
      }
      if (res.status >= 500) {
        await res.body?.cancel();
        throw new PlatformError("unavailable", `The platform answered ${res.status}`, undefined, res.status);
      }
      return res;
    }
  }

  private async parse<T>(res: Response, schema: z.ZodType<T>): Promise<T> {
    const parsed = schema.safeParse(await readJson(res));
    if (!parsed.success) throw new PlatformError("unavailable", `Unexpected answer from the platform (${res.status})`, undefined, res.status);
    return parsed.data;
  }

  /** A non-2xx answer as an error: 401 refused, the rest rejected with the platform's message. */
  private async failure(res: Response, refusedMessage: string): Promise<PlatformError> {
    const body = (await readJson(res)) as { message?: unknown } | null;
    const message = typeof body?.message === "string" ? body.message : `The platform answered ${res.status}`;
    if (res.status === 401) return new PlatformError("refused", refusedMessage, undefined, 401);
    return new PlatformError("rejected", message, undefined, res.status);
  }

  private tokens(answer: z.infer<typeof tokensAnswer>, previousRefresh?: string): PlatformTokens {
    const refreshToken = answer.refresh_token ?? previousRefresh;
    if (!refreshToken) throw new PlatformError("unavailable", "The platform sent no refresh token");
    return { accessToken: answer.access_token, refreshToken, accessExpiresAt: this.now() + answer.expires_in * 1000 };
  }

  async signIn(email: string, password: string): Promise<SignInStep> {
    const res = await this.send({ method: "POST", path: "/auth/sign-in", body: { email, password } });
    if (!res.ok) throw await this.failure(res, "Platform email or password incorrect");
    const answer = await this.parse(res, z.union([tokensAnswer, challengeAnswer]));
    if ("challenge" in answer) {
      return answer.challenge === "OTP"
        ? { kind: "code", session: answer.session, destination: answer.destination ?? null }
        : { kind: "approval", session: answer.session };
    }
    return { kind: "tokens", tokens: this.tokens(answer) };
  }

  async answerCode(session: string, code: string): Promise<PlatformTokens> {
    const res = await this.send({ method: "POST", path: "/auth/challenge", body: { session, code } });
    if (res.status === 410) throw new PlatformError("challenge_over", "The sign-in expired: start again", undefined, 410);
    if (!res.ok) throw await this.failure(res, "The code is not correct");
    return this.tokens(await this.parse(res, tokensAnswer));
  }

  async checkApproval(session: string): Promise<ApprovalStep> {
    const res = await this.send({ method: "POST", path: "/auth/approval", body: { session } });
    if (res.status === 202) {
      await res.body?.cancel();
      return { kind: "pending" };
    }
    if (res.status === 410) throw new PlatformError("challenge_over", "The approval was denied or expired", undefined, 410);
    if (!res.ok) throw await this.failure(res, "The approval was refused");
    return { kind: "tokens", tokens: this.tokens(await this.parse(res, tokensAnswer)) };
  }

  async refresh(refreshToken: string): Promise<PlatformTokens> {
    const res = await this.send({ method: "POST", path: "/auth/token", body: { refresh_token: refreshToken, requested_token_type: "access_token" } });
    if (!res.ok) {
      const err = await this.failure(res, "The platform refused the refresh token");
      // Any definite refusal of a refresh token ends the connection; only 429/5xx/time-outs (thrown above) are worth retrying.
      throw new PlatformError("refused", err.message, undefined, res.status);
    }
    return this.tokens(await this.parse(res, tokensAnswer), refreshToken);
  }

  async stations(accessToken: string): Promise<PlatformStation[]> {
    const res = await this.send({ method: "GET", path: "/eligibleServiceAreas", accessToken });
    if (!res.ok) throw await this.failure(res, "The platform refused the access token");
    const answer = await this.parse(res, stationsAnswer);
    return answer.serviceAreas.map((s) => ({ id: s.serviceAreaId, name: s.name, group: s.region, timeZone: s.timeZone }));
  }

  async offers(accessToken: string, stationIds: string[]): Promise<PlatformOffer[]> {
    const res = await this.send({
      method: "POST",
      path: "/GetOffersForProviderPost",
      accessToken,
      body: { apiVersion: "V2", serviceAreaIds: stationIds, filters: { serviceAreaFilter: stationIds, timeFilter: {} } },
    });
    if (!res.ok) throw await this.failure(res, "The platform refused the access token");
    const answer = await this.parse(res, offersAnswer);
    return answer.offerList.map((o) => ({
      id: o.offerId,
      stationId: o.serviceAreaId,
      startsAt: ms(o.startTime),
      endsAt: ms(o.endTime),
      payCents: cents(o.rateInfo.priceAmount),
      expiresAt: ms(o.expirationDate),
      hidden: o.hidden === true,
    }));
  }

  async accept(accessToken: string, offer: PlatformOffer): Promise<AcceptOutcome> {
    const res = await this.send({ method: "POST", path: "/AcceptOffer", accessToken, body: { offerId: offer.id } });
    if (res.status === 410 || res.status === 404) {
      await res.body?.cancel();
      return { kind: "gone" };
    }
    if (!res.ok) throw await this.failure(res, "The platform refused the access token");
    return { kind: "won", block: toBlock((await this.parse(res, z.object({ block: blockShape }))).block) };
  }

  async forfeit(accessToken: string, blockId: string): Promise<void> {
    const res = await this.send({ method: "POST", path: `/schedule/blocks/${encodeURIComponent(blockId)}/forfeit`, accessToken });
    if (!res.ok) throw await this.failure(res, "The platform refused the access token");
    await res.body?.cancel();
  }

  async scheduledBlocks(accessToken: string): Promise<ScheduledBlock[]> {
    const res = await this.send({ method: "GET", path: "/schedule/blocks", accessToken });
    if (!res.ok) throw await this.failure(res, "The platform refused the access token");
    return (await this.parse(res, z.object({ blocks: z.array(blockShape) }))).blocks.map(toBlock);
  }

  async checkIn(accessToken: string, blockId: string): Promise<ScheduledBlock> {
    const res = await this.send({ method: "POST", path: `/schedule/blocks/${encodeURIComponent(blockId)}/arrive`, accessToken });
    if (!res.ok) throw await this.failure(res, "The platform refused the access token");
    return toBlock((await this.parse(res, z.object({ block: blockShape }))).block);
  }

  /** The modelled platform has no device to deregister: the tokens are simply dropped. */
  async deregister(): Promise<void> {}
}

type PlatformEnv = Pick<
  Env,
  "FLEX_IDENTITY_BASE" | "FLEX_CAPACITY_BASE" | "FLEX_APP_BUILD" | "FLEX_APP_VERSION" | "SPARK_PLATFORM_API_BASE" | "PLATFORM_TIMEOUT_MS"
>;

function timeoutOf(env: Pick<Env, "PLATFORM_TIMEOUT_MS">) {
  const timeout = Number(env.PLATFORM_TIMEOUT_MS);
  return Number.isFinite(timeout) && timeout >= 100 ? timeout : 5000;
}

/** Flex's adapter per the settings (identity and capacity bases, the app's build and version). */
export function flexPlatform(env: PlatformEnv, options: Partial<FlexPlatformOptions> = {}) {
  return new FlexPlatform({
    identityBase: env.FLEX_IDENTITY_BASE,
    capacityBase: env.FLEX_CAPACITY_BASE,
    appBuild: env.FLEX_APP_BUILD,
    appVersion: env.FLEX_APP_VERSION,
    timeoutMs: timeoutOf(env),
    ...options,
  });
}

/** Spark's modelled adapter per the settings. */
export function sparkPlatform(env: PlatformEnv, options: Partial<HttpPlatformOptions> = {}) {
  return new HttpPlatform({ baseUrl: env.SPARK_PLATFORM_API_BASE, timeoutMs: timeoutOf(env), ...options });
}

/**
 * The platform a driver of `app` uses. `instanceId` is the account's (sealed with its tokens), read
 * when a Flex capacity call goes out; `rateLimitRetries` is Spark's (Flex never retries a rate limit:
 * calls during a lockout prolong it).
 */
export function platformFor(
  env: PlatformEnv,
  app: "flex" | "spark",
  options: { rateLimitRetries?: number; instanceId?: () => string | null } = {},
): DeliveryPlatform {
  if (app === "flex") return flexPlatform(env, { signer: requestSignerFor(env), ...(options.instanceId ? { instanceId: options.instanceId } : {}) });
  return sparkPlatform(env, options.rateLimitRetries === undefined ? {} : { rateLimitRetries: options.rateLimitRetries });
}
