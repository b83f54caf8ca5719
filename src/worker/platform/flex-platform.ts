/**
 * The Flex adapter: the protocol public clients show (docs/engine.md, "The protocol"). Three
 * bases: the sign-in page (flex-sign-in.ts builds its address), the identity API (device
 * registration, refresh, deregistration) and the capacity API (stations, offers, accepts, the
 * schedule). Every answer of the spec's tables becomes one outcome: 403 "refused" (the caller
 * refreshes once and repeats), 400 "Rate exceeded" "rate_limited" (no wait given: the engine backs
 * off), 420 "signature_required" (a request signature we do not make unless a signer is
 * configured, request-signer.ts), 307 "captcha" (a challenge for the driver), 5xx, time-outs and
 * answers of the wrong shape "unavailable". Redirects are never followed: a 307 is read as such.
 */
import { callProvider, readJson } from "../providers/http-call";
import { eligibleAnswer, filterOptionsAnswer, readAssignments, readOffers, refreshAnswer, registerAnswer } from "./flex-answers";
import { clientIdOf, FLEX_APP_NAME, FLEX_DEVICE_TYPE } from "./flex-sign-in";
import {
  type AcceptOutcome,
  type DeliveryPlatform,
  type PlatformAccount,
  PlatformError,
  type PlatformOffer,
  type PlatformStation,
  type PlatformTokens,
  type ScheduledBlock,
} from "./platform";
import type { RequestSigner } from "./request-signer";
import { displayName } from "./station-zones";

export const ACCEPT_TYPE = "AcceptOfferInput:http://internal.amazon.com/coral/com.amazon.omwbuseyservice.offers/";
const IDENTITY_DOMAIN = "api.amazon.com";

export type FlexPlatformOptions = {
  identityBase: string;
  capacityBase: string;
  /** The app's numeric build (identity bodies) and semantic version (the User-Agent). */
  appBuild: string;
  appVersion: string;
  timeoutMs: number;
  /** The account's instance id, read when a capacity call goes out (sealed with the tokens). */
  instanceId?: () => string | null;
  /** Signs each capacity call when one is configured (request-signer.ts); none by default. */
  signer?: RequestSigner | null;
  now?: () => number;
};

type Call = { method: "GET" | "POST" | "DELETE"; path: string; body?: unknown; accessToken: string };

/** yyyyMMddTHHmmssZ, UTC. */
const amzDate = (t: number) =>
  new Date(t)
    .toISOString()
    .replace(/[-:]/g, "")
    .replace(/\.\d{3}/, "");

export class FlexPlatform implements DeliveryPlatform {
  private readonly identity: string;
  private readonly capacity: string;
  private readonly now: () => number;
  /** The account's eligible service areas, read once per adapter (the offers call names them). */
  private eligible: string[] | null = null;

  constructor(private readonly options: FlexPlatformOptions) {
    this.identity = options.identityBase.replace(/\/+$/, "");
    this.capacity = options.capacityBase.replace(/\/+$/, "");
    this.now = options.now ?? Date.now;
  }

  private userAgent() {
    return `Dalvik/2.1.0 (Linux; U; Android 13; Pixel 7 Build/TQ3A.230901.001) RabbitAndroid/${this.options.appVersion}`;
  }

  private async fetch(url: string, init: RequestInit): Promise<Response> {
    const result = await callProvider(url, { ...init, redirect: "manual" }, this.options.timeoutMs);
    if (!result.ok) throw new PlatformError("unavailable", result.errorMessage);
    const res = result.response;
    if (res.status >= 500) {
      await res.body?.cancel();
      throw new PlatformError("unavailable", `The platform answered ${res.status}`, undefined, res.status);
    }
    return res;
  }

  /** A capacity call with the app's headers; a 2xx answer or the outcome the spec's table gives. */
  private async send(call: Call): Promise<Response> {
    const headers: Record<string, string> = {
      "x-amz-access-token": call.accessToken,
      "X-Amz-Date": amzDate(this.now()),
      "User-Agent": this.userAgent(),
      Accept: "application/json",
      "Accept-Language": "en-US",
    };
    const instanceId = this.options.instanceId?.();
    if (instanceId) headers["x-flex-instance-id"] = instanceId;
    if (call.method === "POST") headers["Content-Type"] = "application/json";
    const url = `${this.capacity}${call.path}`;
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    if (this.options.signer) Object.assign(headers, await this.options.signer.sign({ method: call.method, url, headers, body }));
    const res = await this.fetch(url, { method: call.method, headers, body });
    if (res.ok) return res;
    throw await capacityFailure(res);
  }

  private async identityCall(path: string, body: unknown, accessToken?: string): Promise<Response> {
    const headers: Record<string, string> = {
      "Content-Type": "application/json",
      Accept: "application/json",
      "x-amzn-identity-auth-domain": IDENTITY_DOMAIN,
      "User-Agent": this.userAgent(),
    };
    if (accessToken) headers["x-amz-access-token"] = accessToken;
    return this.fetch(`${this.identity}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  }

  /** Registers the app as a device with the code the sign-in page gave; any refusal is "refused" (sign in again). */
  async register(code: string, verifier: string, serial: string): Promise<{ tokens: Omit<PlatformTokens, "device">; account: PlatformAccount }> {
    const res = await this.identityCall("/auth/register", {
      auth_data: { authorization_code: code, code_verifier: verifier, code_algorithm: "SHA-256", client_id: clientIdOf(serial), client_domain: "DeviceLegacy" },
      registration_data: {
        domain: "Device",
        app_name: FLEX_APP_NAME,
        app_version: this.options.appBuild,
        device_type: FLEX_DEVICE_TYPE,
        device_serial: serial,
        device_model: "Pixel 7",
        os_version: "13",
        software_version: "130050002",
      },
      requested_token_type: ["bearer", "mac_dms", "website_cookies"],
      requested_extensions: ["device_info", "customer_info"],
      cookies: { domain: ".amazon.com", website_cookies: [] },
    });
    const body = await readJson(res);
    if (!res.ok) {
      if (isRateExceeded(res.status, body)) throw new PlatformError("rate_limited", "The platform asked to slow down", undefined, res.status);
      throw new PlatformError("refused", "The platform refused the sign-in code", undefined, res.status);
    }
    const parsed = registerAnswer.safeParse(body);
    if (!parsed.success) throw new PlatformError("unavailable", "Unexpected answer from the platform's registration", undefined, res.status);
    const success = parsed.data.response.success;
    const info = success.extensions?.customer_info;
    const customerId = info?.user_id ?? success.customer_id;
    if (!customerId) throw new PlatformError("unavailable", "The platform named no account", undefined, res.status);
    const bearer = success.tokens.bearer;
    return {
      tokens: { accessToken: bearer.access_token, refreshToken: bearer.refresh_token, accessExpiresAt: this.now() + bearer.expires_in * 1000 },
      account: { customerId, name: info?.name?.trim() || customerId },
    };
  }

  async refresh(refreshToken: string): Promise<PlatformTokens> {
    const res = await this.identityCall("/auth/token", {
      app_name: FLEX_APP_NAME,
      app_version: this.options.appBuild,
      source_token_type: "refresh_token",
      source_token: refreshToken,
      requested_token_type: "access_token",
    });
    const body = await readJson(res);
    if (!res.ok) {
      if (isRateExceeded(res.status, body)) throw new PlatformError("rate_limited", "The platform asked to slow down", undefined, res.status);
      // invalid_grant (a removed device, a signed-out account) and any other definite refusal end the connection.
      const error = (body as { error?: unknown } | null)?.error;
      throw new PlatformError("refused", typeof error === "string" ? error : "The platform refused the refresh token", undefined, res.status);
    }
    const parsed = refreshAnswer.safeParse(body);
    if (!parsed.success) throw new PlatformError("unavailable", "Unexpected answer from the platform's token call", undefined, res.status);
    return { accessToken: parsed.data.access_token, refreshToken, accessExpiresAt: this.now() + parsed.data.expires_in * 1000 };
  }

  async deregister(accessToken: string): Promise<void> {
    const res = await this.identityCall("/auth/deregister", { requested_extensions: ["device_info"] }, accessToken);
    await res.body?.cancel();
  }

  private async eligibleAreas(accessToken: string): Promise<string[]> {
    const body = await readJson(await this.send({ method: "GET", path: "/eligibleServiceAreas", accessToken }));
    const parsed = eligibleAnswer.safeParse(body);
    if (!parsed.success) throw new PlatformError("unavailable", "Unexpected answer from the platform (eligible areas)");
    this.eligible = parsed.data.serviceAreaIds;
    return this.eligible;
  }

  /** The stations the driver can filter by, with the platform's names; the eligible areas are kept for the offers call. */
  async stations(accessToken: string): Promise<PlatformStation[]> {
    const eligible = await this.eligibleAreas(accessToken);
    const body = await readJson(await this.send({ method: "GET", path: "/getOfferFiltersOptions", accessToken }));
    const parsed = filterOptionsAnswer.safeParse(body);
    if (!parsed.success) throw new PlatformError("unavailable", "Unexpected answer from the platform (filter options)");
    const list = new Map<string, PlatformStation>();
    for (const s of parsed.data.serviceAreaPoolList) {
      list.set(s.serviceAreaId, { id: s.serviceAreaId, name: displayName(s.serviceAreaName ?? s.serviceAreaId), group: null, timeZone: null });
    }
    // An eligible area the options do not name is still a station (never dropped).
    for (const id of eligible) if (!list.has(id)) list.set(id, { id, name: id, group: null, timeZone: null });
    return [...list.values()];
  }

  async offers(accessToken: string, stationIds: string[]): Promise<PlatformOffer[]> {
    const serviceAreaIds = this.eligible ?? (await this.eligibleAreas(accessToken));
    const res = await this.send({
      method: "POST",
      path: "/GetOffersForProviderPost",
      accessToken,
      body: { apiVersion: "V2", filters: { serviceAreaFilter: stationIds, timeFilter: {} }, serviceAreaIds },
    });
    const offers = readOffers(await readJson(res));
    if (!offers) throw new PlatformError("unavailable", "Unexpected answer from the platform (offers)", undefined, res.status);
    return offers;
  }

  async accept(accessToken: string, offer: PlatformOffer): Promise<AcceptOutcome> {
    try {
      const res = await this.send({ method: "POST", path: "/AcceptOffer", accessToken, body: { __type: ACCEPT_TYPE, offerId: offer.id } });
      // Won on a bare 200, whatever the body: the block is the offer's; its id comes from the schedule.
      await res.body?.cancel();
      const block = { id: null, offerId: offer.id, stationId: offer.stationId, startsAt: offer.startsAt, endsAt: offer.endsAt, payCents: offer.payCents };
      return { kind: "won", block: { ...block, arrivedAt: null } };
    } catch (err) {
      if (err instanceof PlatformError && err.status === 410) return { kind: "gone" };
      throw err;
    }
  }

  async scheduledBlocks(accessToken: string): Promise<ScheduledBlock[]> {
    const res = await this.send({ method: "GET", path: "/scheduledAssignments", accessToken });
    const blocks = readAssignments(await readJson(res));
    if (!blocks) throw new PlatformError("unavailable", "Unexpected answer from the platform (schedule)", undefined, res.status);
    return blocks;
  }

  async forfeit(accessToken: string, blockId: string): Promise<void> {
    const res = await this.send({ method: "DELETE", path: `/schedule/blocks/${encodeURIComponent(blockId)}`, accessToken });
    await res.body?.cancel();
  }

  /** "I've arrived" has no public call: this is the fake platform's modelled one (docs/engine.md). */
  async checkIn(accessToken: string, blockId: string): Promise<ScheduledBlock> {
    const res = await this.send({ method: "POST", path: `/schedule/blocks/${encodeURIComponent(blockId)}/arrive`, accessToken });
    const blocks = readAssignments({ scheduledAssignments: [((await readJson(res)) as { block?: unknown } | null)?.block] });
    const block = blocks?.[0];
    if (!block) throw new PlatformError("unavailable", "Unexpected answer from the platform (check-in)", undefined, res.status);
    return { ...block, arrivedAt: block.arrivedAt ?? this.now() };
  }
}

function isRateExceeded(status: number, body: unknown): boolean {
  const message = (body as { message?: unknown } | null)?.message;
  return status === 400 && typeof message === "string" && /rate exceeded/i.test(message);
}

/** A capacity call's non-2xx answer as the outcome the spec's table gives it. */
async function capacityFailure(res: Response): Promise<PlatformError> {
  const body = await readJson(res);
  const message = (body as { message?: unknown } | null)?.message;
  const text = typeof message === "string" ? message : `The platform answered ${res.status}`;
  if (res.status === 403) return new PlatformError("refused", "The platform refused the access token", undefined, 403);
  if (isRateExceeded(res.status, body)) return new PlatformError("rate_limited", "The platform asked to slow down (Rate exceeded)", undefined, 400);
  if (res.status === 420) return new PlatformError("signature_required", "The platform asks for a request signature we do not make", undefined, 420);
  if (res.status === 307) return new PlatformError("captcha", "The platform asks for a challenge (captcha) to be solved on its side", undefined, 307);
  if (res.status >= 300 && res.status < 400) return new PlatformError("rejected", `The platform redirected the call (${res.status})`, undefined, res.status);
  return new PlatformError("rejected", text, undefined, res.status);
}
