/**
 * A fake delivery platform over real HTTP. Under /flex it speaks the protocol public Flex clients
 * show (docs/engine.md, "The protocol"): its own sign-in page and landing (/ap/signin,
 * /ap/maplanding), device registration with the PKCE check (/auth/register), the nested tokens,
 * refresh (/auth/token) and deregistration, and the capacity calls with their headers checked (no
 * `x-amz-access-token`, or a stale one: 403). Under /spark it speaks Spark's modelled protocol
 * (email and password sign-in with code or approval challenges, Bearer tokens). It is the embedded
 * default `npm run dev` starts, and what the Worker tests and the engine bench talk to, so the real
 * adapters (src/worker/platform/flex-platform.ts, http-platform.ts) are what get exercised.
 *
 * What it models: stations (Flex: names only, "Doral (DMI4)") and delivery areas (Spark, with
 * zones); offers that appear, stay listed until taken (Flex) or expire, and get taken by
 * competitors; a limit per account on every capacity call (a model of limit-models.ts: burst,
 * minute, hour or generous, with a lockout each call during it prolongs) and a per-driver bucket on
 * the offers call (Flex answers 400 "Rate exceeded" with no wait, Spark 429 + Retry-After); injected faults (rate limit, 5xx, 403, 420,
 * 307, requests never answered); refresh tokens the platform can refuse or revoke. It records what
 * each driver was shown and accepted, and when, so tests and the bench can count double or
 * overlapping accepts, offers shown but never decided, and the time from an answer carrying an
 * offer to its accept; and the last requests it got, headers and bodies, so tests can hold the
 * adapter's requests against the documented ones.
 *
 * Worlds: a base URL of http://host:port/t/<tenant>/<app> has its own accounts, offers and
 * records (app = flex or spark); without /t/<tenant> the tenant is "default".
 *
 * Control API (per tenant): POST /__control/config (JSON, merged), POST /__control/reset,
 * POST /__control/accounts, POST /__control/stations, POST /__control/offers, POST
 * /__control/approve, POST /__control/revoke, POST /__control/limits (an account's limit model,
 * lockout length and added faults), GET /__control/codes?email=, GET /__control/calls?account= (platform calls made for
 * that account, by customer id or email, by method and path), GET /__control/stats,
 * GET /__control/accepts, GET /__control/requests (the last requests, newest last). A page at
 * /approve lists approvals waiting (the "other device").
 *
 * Plain Node (type stripping only): `node test/fake-platform/server.ts --port 8796 --demo`.
 */
import { createHash, randomBytes, randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { json, listen, readBody, readJson, tenantPath } from "../http.ts";
import { createLimiter, DEFAULT_LOCKOUT_MS, LIMIT_MODELS, type Limiter, type LimitModelName } from "./limit-models.ts";
import { approvalWait, CARRIED, codeForm, failurePage, landingPage, signInForm } from "./sign-in-page.ts";

export type App = "flex" | "spark";
/**
 * An injected fault, for the offers or accept call (`on`; either when absent). "timeout": never
 * answered, nothing done. "lost" (accept only): the offer is accepted, but the answer never comes.
 */
export type Fault = (
  | { kind: "429"; retryAfter?: number }
  | { kind: "5xx"; status?: number }
  | { kind: "403" | "420" | "307" }
  | { kind: "timeout" }
  | { kind: "lost" }
) & {
  on?: "offers" | "accept";
};
export type ChallengeKind = "none" | "code" | "approval";

/** A station: Flex lists names only ("Doral (DMI4)"); Spark's modelled areas carry a region and zone. */
export type FakeStation = { serviceAreaId: string; name: string; region?: string; timeZone?: string };

export type FakeConfig = {
  /** Any email signs in (on Flex's page, or Spark's call); the first password used becomes the account's. Emails with "+code" get a code challenge, "+approve" an approval. */
  openSignUp: boolean;
  /**
   * The platform's limit on every capacity call of an account (limit-models.ts): over it, "Rate
   * exceeded" and a lockout of `lockoutMs` that each call during it prolongs. Null: none (only the
   * offers bucket below).
   */
  limitModel: LimitModelName | null;
  lockoutMs: number;
  /** Offers calls per second per driver (token bucket); null for no limit. */
  offersRate: number | null;
  /** Bucket capacity. */
  offersBurst: number;
  /** Probabilities (0..1) of injected faults per offers or accept request. */
  fail429: number;
  fail5xx: number;
  failTimeout: number;
  retryAfter: number;
  /** Faults for the next offers/accept requests, in order, before any random ones. */
  script: Fault[];
  /** New offers per minute per app while the generator runs (0: only injected offers). */
  offersPerMinute: number;
  /** How long a generated offer stays open, ms (min, max). */
  offerLifetimeMs: [number, number];
  /** Chance per second that a competitor takes an open offer. */
  competitorTakePerSecond: number;
  /** Access-token lifetime, ms. */
  accessTtlMs: number;
  /** Approvals given by themselves after this long (null: only through /approve or the control API). */
  autoApproveMs: number | null;
  /** Print codes and approval links to the log (the dev server). */
  logChallenges: boolean;
};

export function defaultConfig(): FakeConfig {
  return {
    openSignUp: false,
    limitModel: null,
    lockoutMs: DEFAULT_LOCKOUT_MS,
    offersRate: 1,
    offersBurst: 2,
    fail429: 0,
    fail5xx: 0,
    failTimeout: 0,
    retryAfter: 2,
    script: [],
    offersPerMinute: 0,
    offerLifetimeMs: [20_000, 90_000],
    competitorTakePerSecond: 0,
    accessTtlMs: 3_600_000,
    autoApproveMs: null,
    logChallenges: false,
  };
}

/** Stations in several zones (Flex) and delivery areas (Spark): what a new world starts with. */
export const DEFAULT_STATIONS: Record<App, FakeStation[]> = {
  // Flex's service-area ids are opaque; the names carry the station codes.
  flex: [
    { serviceAreaId: "a1f0c7e2-dla7", name: "Hawthorne (DLA7) - Amazon.com" },
    { serviceAreaId: "b27d91c4-dax5", name: "Irvine (DAX5) - Amazon.com" },
    { serviceAreaId: "c3e4a8b1-dpx4", name: "Tempe (DPX4) - Amazon.com" },
    { serviceAreaId: "d45b2f9e-ddv3", name: "Aurora (DDV3) - Amazon.com" },
    { serviceAreaId: "e5c6d3a7-dch1", name: "Chicago (DCH1) - Amazon.com" },
    { serviceAreaId: "f6d7e4b8-dfw6", name: "Dallas (DFW6) - Amazon.com" },
    { serviceAreaId: "a7e8f5c9-dny2", name: "Queens (DNY2) - Amazon.com" },
    { serviceAreaId: "b8f9a6d0-dmi4", name: "Doral (DMI4) - Amazon.com" },
    { serviceAreaId: "c9a0b7e1-dyz3", name: "Mississauga (DYZ3) - Amazon.com" },
  ],
  spark: [
    { serviceAreaId: "BEN-C", name: "Bentonville Central", region: "Arkansas", timeZone: "America/Chicago" },
    { serviceAreaId: "BEN-N", name: "Bentonville North", region: "Arkansas", timeZone: "America/Chicago" },
    { serviceAreaId: "PHX-W", name: "Phoenix West", region: "Arizona", timeZone: "America/Phoenix" },
    { serviceAreaId: "ORL-S", name: "Orlando South", region: "Florida", timeZone: "America/New_York" },
    { serviceAreaId: "SAC-E", name: "Sacramento East", region: "California", timeZone: "America/Los_Angeles" },
  ],
};

type Account = {
  email: string;
  /** What Flex's registration names the account by (no email comes back). */
  customerId: string;
  name: string;
  password: string;
  challenge: ChallengeKind;
  driverId: string;
  /** Eligible stations (null: all of the app's). */
  stations: string[] | null;
  /** This driver's own offers limit and faults, over the world's (tests sharing one world). */
  offersRate?: number | null;
  offersBurst?: number;
  /** This account's limit model and lockout, over the world's. */
  limitModel?: LimitModelName | null;
  lockoutMs?: number;
  faults: Fault[];
};
type Offer = {
  offerId: string;
  app: App;
  serviceAreaId: string;
  startsAt: number;
  endsAt: number;
  payCents: number;
  expiresAt: number;
  hidden: boolean;
  /** A competitor always asks first: any accept finds it gone. */
  competitorFirst?: boolean;
  takenBy: string | null;
};
type Block = {
  blockId: string;
  offerId: string;
  driverId: string;
  app: App;
  serviceAreaId: string;
  startsAt: number;
  endsAt: number;
  payCents: number;
  arrivedAt: number | null;
};
type Pending = {
  session: string;
  email: string;
  app: App;
  kind: "code" | "approval";
  code: string;
  attempts: number;
  expiresAt: number;
  state: "waiting" | "approved" | "denied";
};
type Accept = { driverId: string; offerId: string; at: number; result: "won" | "gone" | "rejected"; shownAt: number | null };
/** A code the sign-in page handed out, for one PKCE challenge and client id, good once for a few minutes. */
type AuthCode = { email: string; challenge: string; clientId: string; expiresAt: number; used: boolean };
type Session = { driverId: string; email: string; customerId: string; device: string | null };
type Recorded = { method: string; path: string; headers: Record<string, string>; body: unknown; at: number };
const RECORDED_MAX = 50;
type DriverRecord = { polls: number[]; overLimit: number; shown: Map<string, number>; faults: number };

type World = {
  config: FakeConfig;
  stations: Record<App, FakeStation[]>;
  accounts: Map<string, Account>;
  byDriver: Map<string, Account>;
  pending: Map<string, Pending>;
  access: Map<string, Session & { expiresAt: number }>;
  refresh: Map<string, Session>;
  codes: Map<string, AuthCode>;
  requests: Recorded[];
  offers: Map<string, Offer>;
  blocks: Map<string, Block>;
  buckets: Map<string, { tokens: number; at: number }>;
  /** One limiter per model and lockout length, each counting per driver. */
  limiters: Map<string, Limiter>;
  drivers: Map<string, DriverRecord>;
  accepts: Accept[];
  /** Platform calls per account (customer id) and "METHOD /path", so a test can see what reached the platform. */
  calls: Map<string, Record<string, number>>;
  lastGeneratedAt: number;
  lastCompetitorAt: number;
};

const newWorld = (config: Partial<FakeConfig> = {}): World => ({
  config: { ...defaultConfig(), ...config },
  stations: { flex: [...DEFAULT_STATIONS.flex], spark: [...DEFAULT_STATIONS.spark] },
  accounts: new Map(),
  byDriver: new Map(),
  pending: new Map(),
  access: new Map(),
  refresh: new Map(),
  codes: new Map(),
  requests: [],
  offers: new Map(),
  blocks: new Map(),
  buckets: new Map(),
  limiters: new Map(),
  drivers: new Map(),
  accepts: [],
  calls: new Map(),
  lastGeneratedAt: Date.now(),
  lastCompetitorAt: Date.now(),
});

/** An account's limit settings from a control body: a model name (or null for none) and a lockout length. */
function limitSettings(body: Record<string, unknown>): Pick<Account, "limitModel" | "lockoutMs"> {
  const out: Pick<Account, "limitModel" | "lockoutMs"> = {};
  if (body.limitModel === null || (typeof body.limitModel === "string" && body.limitModel in LIMIT_MODELS))
    out.limitModel = body.limitModel as LimitModelName | null;
  if (typeof body.lockoutMs === "number" && body.lockoutMs > 0) out.lockoutMs = body.lockoutMs;
  return out;
}

const token = (prefix: string) => `${prefix}${randomBytes(18).toString("base64url")}`;
const seconds = (ms: number) => Math.floor(ms / 1000);

const platformError = (code: string, message: string) => ({ code, message });
const customerIdOf = (driverId: string) => `amzn1.account.${driverId}`;
const sha256url = (text: string) => createHash("sha256").update(text).digest("base64url");
/** The serial a client id carries: the hex of "serial#A1MPSLFC7L5AFK". */
const serialOfClientId = (hex: string) => /^([0-9a-f]+)#A1MPSLFC7L5AFK$/.exec(Buffer.from(hex, "hex").toString("utf8"))?.[1] ?? null;

export type FakePlatform = { url: string; port: number; close: () => Promise<void> };

export async function startFakePlatform({
  port = 0,
  host = "127.0.0.1",
  config = {},
}: {
  port?: number;
  host?: string;
  config?: Partial<FakeConfig>;
} = {}): Promise<FakePlatform> {
  const worlds = new Map<string, World>();
  const held = new Set<ServerResponse>();
  const worldOf = (name: string) => {
    let w = worlds.get(name);
    if (!w) {
      w = newWorld(config);
      worlds.set(name, w);
    }
    return w;
  };

  function driverRecord(w: World, driverId: string): DriverRecord {
    let d = w.drivers.get(driverId);
    if (!d) {
      d = { polls: [], overLimit: 0, shown: new Map(), faults: 0 };
      w.drivers.set(driverId, d);
    }
    return d;
  }

  const accountOf = (w: World, driverId: string) => w.byDriver.get(driverId);
  const accountNamed = (w: World, who: string) =>
    w.accounts.get(who.toLowerCase()) ?? [...w.accounts.values()].find((a) => a.customerId === who || a.driverId === who);
  const countCall = (w: World, customerId: string, req: IncomingMessage, path: string) => {
    const key = customerId;
    const calls = w.calls.get(key) ?? {};
    const name = `${req.method} ${path.replace(/^\/schedule\/blocks\/[\w|-]+(\/|$)/, "/schedule/blocks/:id$1")}`;
    calls[name] = (calls[name] ?? 0) + 1;
    w.calls.set(key, calls);
  };
  const addAccount = (w: World, account: Account) => {
    const previous = w.accounts.get(account.email);
    if (previous) w.byDriver.delete(previous.driverId);
    w.accounts.set(account.email, account);
    w.byDriver.set(account.driverId, account);
  };

  function injected(w: World, driverId: string, on: "offers" | "accept"): Fault | null {
    const take = (list: Fault[] | undefined) => {
      const i = list?.findIndex((f) => (f.on ?? on) === on && (f.kind !== "lost" || on === "accept")) ?? -1;
      return i >= 0 ? list!.splice(i, 1)[0]! : null;
    };
    const scripted = take(accountOf(w, driverId)?.faults) ?? take(w.config.script);
    if (scripted) return scripted;
    const roll = Math.random();
    if (roll < w.config.fail429) return { kind: "429" };
    if (roll < w.config.fail429 + w.config.fail5xx) return { kind: "5xx" };
    if (roll < w.config.fail429 + w.config.fail5xx + w.config.failTimeout) return { kind: "timeout" };
    return null;
  }

  function hold(res: ServerResponse) {
    held.add(res);
    res.on("close", () => held.delete(res));
  }

  /** Answers an injected fault; true when one was injected (the request is over, or held unanswered). "lost" is the caller's to play. */
  function fault(w: World, res: ServerResponse, driverId: string, on: "offers" | "accept", app: App): Fault | null {
    const f = injected(w, driverId, on);
    if (!f) return null;
    driverRecord(w, driverId).faults++;
    if (f.kind === "lost") return f;
    if (f.kind === "timeout") {
      hold(res);
      return f;
    }
    if (f.kind === "429") rateExceeded(w, res, app, f.retryAfter ?? w.config.retryAfter);
    else if (f.kind === "403") json(res, 403, { message: "AuthorizationRequiredException: the access token is not valid" });
    else if (f.kind === "420") json(res, 420, { message: "Too many requests in a short period of time" }, { "x-amzn-ErrorType": "OperationFailedException" });
    else if (f.kind === "307") {
      res.writeHead(307, { Location: "https://www.amazon.com/aaut/verify/flex-offers/challenge" });
      res.end();
    } else json(res, ("status" in f ? f.status : undefined) ?? 503, platformError("ServiceUnavailable", "Service unavailable"));
    return f;
  }

  /** The platform's rate limit: Flex's 400 "Rate exceeded" without a wait; Spark's modelled 429 with Retry-After. */
  function rateExceeded(_w: World, res: ServerResponse, app: App, retryAfter: number) {
    if (app === "flex") json(res, 400, { message: "Rate exceeded" });
    else json(res, 429, platformError("RateExceeded", "Rate exceeded"), { "Retry-After": String(retryAfter) });
  }

  /** The account's limit model, if any, and its limiter (one per model and lockout length). */
  function limitOf(w: World, driverId: string): Limiter | null {
    const account = accountOf(w, driverId);
    const model = account && account.limitModel !== undefined ? account.limitModel : w.config.limitModel;
    if (model === null || !(model in LIMIT_MODELS)) return null;
    const lockoutMs = account?.lockoutMs ?? w.config.lockoutMs;
    const key = `${model}|${lockoutMs}`;
    let limiter = w.limiters.get(key);
    if (!limiter) {
      limiter = createLimiter(model, { lockoutMs });
      w.limiters.set(key, limiter);
    }
    return limiter;
  }

  /** A capacity call against the account's limit model: null when answered, else seconds until its lockout ends. */
  function overLimit(w: World, driverId: string, now: number): number | null {
    const answer = limitOf(w, driverId)?.call(driverId, now);
    if (!answer || answer.ok) return null;
    return Math.max(1, Math.ceil((answer.lockedUntil - now) / 1000));
  }

  /** The driver's offers bucket: null when a token was taken, else seconds until one is there. */
  function takeToken(w: World, driverId: string, now: number): number | null {
    const account = accountOf(w, driverId);
    const rate = account && account.offersRate !== undefined ? account.offersRate : w.config.offersRate;
    const burst = account?.offersBurst ?? w.config.offersBurst;
    if (rate === null) return null;
    const b = w.buckets.get(driverId) ?? { tokens: burst, at: now };
    b.tokens = Math.min(burst, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    w.buckets.set(driverId, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  }

  /** Generated offers and competitors, advanced lazily on each request (and by the demo timer). */
  function advance(w: World, now: number) {
    const { offersPerMinute, offerLifetimeMs, competitorTakePerSecond } = w.config;
    if (offersPerMinute > 0) {
      const every = 60_000 / offersPerMinute;
      // At most a minute's worth after a quiet spell, so a long idle world does not flood.
      let due = Math.min(Math.floor((now - w.lastGeneratedAt) / every), offersPerMinute);
      if (due > 0) w.lastGeneratedAt = now;
      while (due-- > 0) for (const app of ["flex", "spark"] as const) generateOffer(w, app, now, offerLifetimeMs);
    } else w.lastGeneratedAt = now;
    const elapsed = (now - w.lastCompetitorAt) / 1000;
    if (competitorTakePerSecond > 0 && elapsed >= 0.2) {
      const chance = 1 - (1 - competitorTakePerSecond) ** elapsed;
      for (const o of w.offers.values()) if (!o.takenBy && o.expiresAt > now && Math.random() < chance) o.takenBy = "competitor";
    }
    if (elapsed >= 0.2) w.lastCompetitorAt = now;
    // Forget offers long gone; blocks stay (they are the drivers' schedules).
    if (w.offers.size > 5000) for (const [id, o] of w.offers) if (o.expiresAt < now - 600_000) w.offers.delete(id);
  }

  function generateOffer(w: World, app: App, now: number, lifetime: [number, number]) {
    const stations = w.stations[app];
    if (stations.length === 0) return;
    const station = stations[randomInt(stations.length)]!;
    const quarter = 15 * 60_000;
    const startsAt = Math.ceil((now + 45 * 60_000 + randomInt(36 * 4) * quarter) / quarter) * quarter;
    const minutes = [120, 180, 210, 240, 270, 300][randomInt(6)]!;
    const hourlyCents = 1800 + randomInt(1400);
    addOffer(w, {
      app,
      serviceAreaId: station.serviceAreaId,
      startsAt,
      endsAt: startsAt + minutes * 60_000,
      payCents: Math.round((hourlyCents * minutes) / 60 / 50) * 50,
      // Flex's offers stay listed until someone takes them (or the block starts); Spark's expire.
      expiresAt: app === "flex" ? startsAt : now + lifetime[0] + randomInt(Math.max(1, lifetime[1] - lifetime[0])),
      hidden: false,
    });
  }

  function addOffer(w: World, o: Omit<Offer, "offerId" | "takenBy">): Offer {
    const offer: Offer = { ...o, offerId: token("OF"), takenBy: null };
    w.offers.set(offer.offerId, offer);
    return offer;
  }

  /** Flex's capacity calls carry `x-amz-access-token`; Spark's modelled ones `Authorization: Bearer`. */
  function authorized(w: World, app: App, req: IncomingMessage, now: number) {
    const header = app === "flex" ? req.headers["x-amz-access-token"] : req.headers.authorization;
    const presented = typeof header !== "string" ? "" : app === "flex" ? header : header.startsWith("Bearer ") ? header.slice(7) : "";
    const session = w.access.get(presented);
    if (!session || session.expiresAt <= now) return null;
    return session;
  }

  function sessionOf(account: Account, device: string | null): Session {
    return { driverId: account.driverId, email: account.email, customerId: account.customerId, device };
  }

  function issueTokens(w: World, account: Account, now: number, app: App = "spark", device: string | null = null) {
    const [a, r] = app === "flex" ? ["Atna|", "Atnr|"] : ["AT", "RT"];
    const accessToken = token(a);
    // The refresh token names its account, so the demo world (in memory) honours it after a restart.
    const refreshToken = `${r}${Buffer.from(account.email).toString("base64url")}.${randomBytes(18).toString("base64url")}`;
    w.access.set(accessToken, { ...sessionOf(account, device), expiresAt: now + w.config.accessTtlMs });
    w.refresh.set(refreshToken, sessionOf(account, device));
    return { access_token: accessToken, refresh_token: refreshToken, expires_in: Math.floor(w.config.accessTtlMs / 1000) };
  }

  function startChallenge(w: World, account: Account, app: App, origin: string) {
    const pending: Pending = {
      session: token("CS"),
      email: account.email,
      app,
      kind: account.challenge === "code" ? "code" : "approval",
      code: String(randomInt(1_000_000)).padStart(6, "0"),
      attempts: 0,
      expiresAt: Date.now() + 10 * 60_000,
      state: "waiting",
    };
    w.pending.set(pending.session, pending);
    if (pending.kind === "approval" && w.config.autoApproveMs !== null) {
      setTimeout(() => {
        if (pending.state === "waiting") pending.state = "approved";
      }, w.config.autoApproveMs).unref();
    }
    if (w.config.logChallenges) {
      if (pending.kind === "code") console.log(`[fake platform] sign-in code for ${account.email}: ${pending.code}`);
      else console.log(`[fake platform] ${account.email} is waiting for an approval: open ${origin}/approve`);
    }
    return pending.kind === "code"
      ? { challenge: "OTP", session: pending.session, destination: account.email.replace(/^(.).*(@.*)$/, "$1•••$2") }
      : { challenge: "APPROVAL", session: pending.session };
  }

  function accountFor(w: World, email: string, password: string): Account | "refused" {
    const known = w.accounts.get(email.toLowerCase());
    if (known && known.password === "" && password.length > 0) known.password = password;
    if (known) return known.password === password ? known : "refused";
    if (!w.config.openSignUp || password.length === 0) return "refused";
    const challenge: ChallengeKind = email.includes("+code") ? "code" : email.includes("+approve") ? "approval" : "none";
    const account = newAccount(email, password, challenge);
    addAccount(w, account);
    return account;
  }

  function newAccount(email: string, password: string, challenge: ChallengeKind, driverId = token("DR"), name?: string): Account {
    const lower = email.toLowerCase();
    const local = lower.split("@")[0]!.replace(/\+.*$/, "");
    return {
      email: lower,
      customerId: customerIdOf(driverId),
      name: name ?? local.charAt(0).toUpperCase() + local.slice(1),
      password,
      challenge,
      driverId,
      stations: null,
      faults: [],
    };
  }

  const offerJson = (o: Offer) => ({
    offerId: o.offerId,
    serviceAreaId: o.serviceAreaId,
    startTime: seconds(o.startsAt),
    endTime: seconds(o.endsAt),
    expirationDate: seconds(o.expiresAt),
    rateInfo: { priceAmount: o.payCents / 100, currency: "USD", isSurge: false, projectedTips: 0, pricingUXVersion: "V2" },
    hidden: o.hidden,
    status: "OFFERED",
    offerType: "NON_EXCLUSIVE",
    schedulingType: "BLOCK",
    serviceTypeId: "amzn1.flex.st.v1.fake",
  });
  const blockJson = (b: Block) => ({
    blockId: b.blockId,
    offerId: b.offerId,
    serviceAreaId: b.serviceAreaId,
    startTime: seconds(b.startsAt),
    endTime: seconds(b.endsAt),
    rateInfo: { priceAmount: b.payCents / 100, currency: "USD" },
    arrivedAt: b.arrivedAt === null ? null : seconds(b.arrivedAt),
  });
  /** A scheduled assignment (its format is not public: the offer's fields plus an id). */
  const assignmentJson = (b: Block) => ({
    scheduledAssignmentId: b.blockId,
    serviceAreaId: b.serviceAreaId,
    startTime: seconds(b.startsAt),
    endTime: seconds(b.endsAt),
    rateInfo: { priceAmount: b.payCents / 100, currency: "USD" },
    ...(b.arrivedAt === null ? {} : { arrivedAt: seconds(b.arrivedAt) }),
  });

  const eligible = (w: World, app: App, driverId: string) => {
    const account = accountOf(w, driverId);
    const all = w.stations[app];
    return account?.stations ? all.filter((s) => account.stations!.includes(s.serviceAreaId)) : all;
  };

  /** Keeps the last requests (headers and bodies) for the control API. */
  function record(w: World, req: IncomingMessage, path: string, body: unknown) {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
    w.requests.push({ method: req.method ?? "", path, headers, body, at: Date.now() });
    if (w.requests.length > RECORDED_MAX) w.requests.splice(0, w.requests.length - RECORDED_MAX);
  }

  // ---- Flex: the sign-in page, the landing, and the identity API ----

  async function flexSignInPage(w: World, req: IncomingMessage, res: ServerResponse, url: URL, origin: string) {
    const html = (status: number, body: string) => {
      res.writeHead(status, { "Content-Type": "text/html; charset=utf-8" });
      res.end(body);
    };
    const action = `${origin}/flex/ap/signin`;
    if (req.method === "GET") {
      const carried = Object.fromEntries(CARRIED.map((k) => [k, url.searchParams.get(k) ?? ""]));
      if (!carried["openid.oa2.code_challenge"] || !carried["openid.oa2.client_id"] || carried["openid.oa2.code_challenge_method"] !== "S256")
        return html(400, failurePage("This sign-in address is missing its challenge or client id."));
      return html(200, signInForm(action, carried, null));
    }
    const form = new URLSearchParams(await readBody(req));
    const carried = Object.fromEntries(CARRIED.map((k) => [k, form.get(k) ?? ""]));
    const landing = (account: Account) => {
      const code = token("ANc");
      w.codes.set(code, {
        email: account.email,
        challenge: carried["openid.oa2.code_challenge"]!,
        clientId: carried["openid.oa2.client_id"]!.replace(/^device:/, ""),
        expiresAt: Date.now() + 5 * 60_000,
        used: false,
      });
      const returnTo = carried["openid.return_to"]!;
      if (!/\/ap\/maplanding$/.test(returnTo)) return html(400, failurePage("This sign-in address has no landing page."));
      const query = new URLSearchParams({ "openid.assoc_handle": "amzn_device_na", "openid.oa2.authorization_code": code, "openid.mode": "id_res" });
      res.writeHead(302, { Location: `${returnTo}?${query.toString()}` });
      res.end();
    };
    const step = form.get("step");
    if (step === "password") {
      const account = accountFor(w, form.get("email") ?? "", form.get("password") ?? "");
      if (account === "refused") return html(200, signInForm(action, carried, "Your email or password is incorrect."));
      if (account.challenge === "none") return landing(account);
      const pending = startChallenge(w, account, "flex", origin);
      if (pending.challenge === "OTP") return html(200, codeForm(action, carried, pending.session, null));
      return html(200, approvalWait(action, carried, pending.session, `${origin}/approve`, false));
    }
    const pending = w.pending.get(form.get("session") ?? "");
    if (!pending || pending.expiresAt <= Date.now() || pending.app !== "flex")
      return html(200, signInForm(action, carried, "The sign-in expired: start again."));
    const account = w.accounts.get(pending.email)!;
    if (step === "code") {
      pending.attempts++;
      if (pending.attempts > 5) return html(200, signInForm(action, carried, "Too many wrong codes: start again."));
      if (form.get("code")?.trim() !== pending.code) return html(200, codeForm(action, carried, pending.session, "The code is not correct."));
      w.pending.delete(pending.session);
      return landing(account);
    }
    if (pending.state === "approved") {
      w.pending.delete(pending.session);
      return landing(account);
    }
    return html(200, approvalWait(action, carried, pending.session, `${origin}/approve`, pending.state === "denied"));
  }

  const registerRefusal = (message: string) => ({ response: { error: { code: "InvalidValue", message } }, request_id: token("RQ") });

  function flexRegister(w: World, body: Record<string, unknown> | null, res: ServerResponse, now: number) {
    const auth = (body?.auth_data ?? {}) as Record<string, unknown>;
    const registration = (body?.registration_data ?? {}) as Record<string, unknown>;
    const code = w.codes.get(typeof auth.authorization_code === "string" ? auth.authorization_code : "");
    if (!code || code.used || code.expiresAt <= now) return json(res, 400, registerRefusal("The authorization code is not valid or was used"));
    code.used = true;
    const verifier = typeof auth.code_verifier === "string" ? auth.code_verifier : "";
    if (auth.code_algorithm !== "SHA-256" || sha256url(verifier) !== code.challenge) return json(res, 400, registerRefusal("The code verifier does not match"));
    if (auth.client_id !== code.clientId || auth.client_domain !== "DeviceLegacy") return json(res, 400, registerRefusal("The client id does not match"));
    const serial = serialOfClientId(code.clientId);
    if (!serial || registration.device_serial !== serial || registration.device_type !== "A1MPSLFC7L5AFK" || registration.app_name !== "com.amazon.rabbit")
      return json(res, 400, registerRefusal("The registration data does not match the client id"));
    const account = w.accounts.get(code.email)!;
    const t = issueTokens(w, account, now, "flex", serial);
    return json(res, 200, {
      response: {
        success: {
          tokens: { bearer: { access_token: t.access_token, refresh_token: t.refresh_token, expires_in: String(t.expires_in) } },
          extensions: {
            device_info: { device_serial_number: serial, device_type: "A1MPSLFC7L5AFK" },
            customer_info: { name: account.name, user_id: account.customerId, home_region: "NA" },
          },
          customer_id: account.customerId,
        },
      },
      request_id: token("RQ"),
    });
  }

  /** A refresh token, or one the demo world forgot in a restart (it names its account). */
  function refreshSession(w: World, presented: string): Session | undefined {
    const found = w.refresh.get(presented);
    const named = /^(?:RT|Atnr\|)([A-Za-z0-9_-]+)\./.exec(presented);
    if (found || !w.config.openSignUp || !named) return found;
    // The account comes back with the first password used next.
    const email = Buffer.from(named[1]!, "base64url").toString("utf8");
    let account = w.accounts.get(email);
    if (!account) {
      account = newAccount(email, "", "none");
      addAccount(w, account);
    }
    const session = sessionOf(account, null);
    w.refresh.set(presented, session);
    return session;
  }

  async function platformCall(w: World, app: App, path: string, req: IncomingMessage, res: ServerResponse, origin: string, url: URL) {
    const now = Date.now();
    advance(w, now);

    if (app === "flex" && path === "/ap/signin") return flexSignInPage(w, req, res, url, origin);
    if (app === "flex" && path === "/ap/maplanding") {
      res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
      return res.end(landingPage());
    }
    const body = req.method === "POST" || req.method === "DELETE" ? await readJson(req) : null;
    record(w, req, path, body);

    if (app === "flex" && path === "/auth/register" && req.method === "POST") return flexRegister(w, body, res, now);
    if (app === "flex" && path === "/auth/token" && req.method === "POST") {
      const session = refreshSession(w, typeof body?.source_token === "string" ? body.source_token : "");
      if (!session || body?.source_token_type !== "refresh_token" || body?.requested_token_type !== "access_token")
        return json(res, 400, { error: "invalid_grant", error_description: "The request has an invalid parameter : source_token" });
      countCall(w, session.customerId, req, path);
      const accessToken = token("Atna|");
      w.access.set(accessToken, { ...session, expiresAt: now + w.config.accessTtlMs });
      return json(res, 200, { access_token: accessToken, token_type: "bearer", expires_in: Math.floor(w.config.accessTtlMs / 1000) });
    }
    if (app === "flex" && path === "/auth/deregister" && req.method === "POST") {
      const session = authorized(w, "flex", req, now);
      if (!session) return json(res, 403, { message: "AuthorizationRequiredException" });
      countCall(w, session.customerId, req, path);
      // The device's tokens end; other devices of the account keep theirs.
      for (const [t, s] of w.refresh) if (s.customerId === session.customerId && s.device === session.device) w.refresh.delete(t);
      for (const [t, s] of w.access) if (s.customerId === session.customerId && s.device === session.device) w.access.delete(t);
      return json(res, 200, { response: { success: {} } });
    }

    if (app === "spark" && path === "/auth/sign-in" && req.method === "POST") {
      const email = typeof body?.email === "string" ? body.email : "";
      const password = typeof body?.password === "string" ? body.password : "";
      countCall(w, w.accounts.get(email.toLowerCase())?.customerId ?? email.toLowerCase(), req, path);
      if (!email || !password) return json(res, 400, platformError("InvalidInput", "email and password are required"));
      const account = accountFor(w, email, password);
      if (account === "refused") return json(res, 401, platformError("InvalidCredentials", "Email or password incorrect"));
      if (account.challenge === "none") return json(res, 200, issueTokens(w, account, now));
      return json(res, 200, startChallenge(w, account, app, origin));
    }
    if (app === "spark" && path === "/auth/challenge" && req.method === "POST") {
      const pending = w.pending.get(typeof body?.session === "string" ? body.session : "");
      if (pending) countCall(w, w.accounts.get(pending.email)?.customerId ?? pending.email, req, path);
      if (pending?.kind !== "code" || pending.expiresAt <= now || pending.attempts >= 5) {
        return json(res, 410, platformError("ChallengeExpired", "Sign in again"));
      }
      pending.attempts++;
      if (body?.code !== pending.code) return json(res, 401, platformError("InvalidCode", "The code is not correct"));
      w.pending.delete(pending.session);
      return json(res, 200, issueTokens(w, w.accounts.get(pending.email)!, now));
    }
    if (app === "spark" && path === "/auth/approval" && req.method === "POST") {
      const pending = w.pending.get(typeof body?.session === "string" ? body.session : "");
      if (pending) countCall(w, w.accounts.get(pending.email)?.customerId ?? pending.email, req, path);
      if (pending?.kind !== "approval" || pending.expiresAt <= now || pending.state === "denied") {
        return json(res, 410, platformError("ChallengeExpired", "The approval was denied or expired"));
      }
      if (pending.state === "waiting") return json(res, 202, { status: "PENDING" });
      w.pending.delete(pending.session);
      return json(res, 200, issueTokens(w, w.accounts.get(pending.email)!, now));
    }
    if (app === "spark" && path === "/auth/token" && req.method === "POST") {
      const found = refreshSession(w, typeof body?.refresh_token === "string" ? body.refresh_token : "");
      if (!found) return json(res, 401, platformError("InvalidToken", "Refresh token is not valid"));
      countCall(w, found.customerId, req, path);
      const accessToken = token("AT");
      w.access.set(accessToken, { ...found, expiresAt: now + w.config.accessTtlMs });
      return json(res, 200, { access_token: accessToken, expires_in: Math.floor(w.config.accessTtlMs / 1000) });
    }

    const session = authorized(w, app, req, now);
    if (!session) {
      if (app === "flex") return json(res, 403, { message: "AuthorizationRequiredException: the access token is missing, expired or revoked" });
      return json(res, 401, platformError("Unauthorized", "Access token expired or not valid"));
    }
    const driverId = session.driverId;
    countCall(w, session.customerId, req, path);
    const offersCall = path === "/GetOffersForProviderPost" && req.method === "POST";
    if (offersCall) driverRecord(w, driverId).polls.push(now);
    // Every capacity call counts against the account's limit; during a lockout each one prolongs it.
    const lockedFor = overLimit(w, driverId, now);
    if (lockedFor !== null) {
      driverRecord(w, driverId).overLimit++;
      return rateExceeded(w, res, app, lockedFor);
    }

    if (path === "/eligibleServiceAreas" && req.method === "GET") {
      // Flex: the area(s) the account may search, its home first; Spark's modelled answer lists the areas with zones.
      const areas = eligible(w, app, driverId);
      if (app === "flex") return json(res, 200, { serviceAreaIds: areas.slice(0, 1).map((s) => s.serviceAreaId) });
      return json(res, 200, {
        serviceAreas: areas.map((s) => ({ serviceAreaId: s.serviceAreaId, name: s.name, region: s.region ?? "", timeZone: s.timeZone ?? "UTC" })),
      });
    }
    if (app === "flex" && path === "/getOfferFiltersOptions" && req.method === "GET") {
      return json(res, 200, { serviceAreaPoolList: eligible(w, app, driverId).map((s) => ({ serviceAreaId: s.serviceAreaId, serviceAreaName: s.name })) });
    }

    if (offersCall) {
      const d = driverRecord(w, driverId);
      if (fault(w, res, driverId, "offers", app)) return;
      const wait = takeToken(w, driverId, now);
      if (wait !== null) {
        d.overLimit++;
        return rateExceeded(w, res, app, wait);
      }
      const filters = (body?.filters ?? {}) as { serviceAreaFilter?: unknown };
      const asked = app === "flex" ? filters.serviceAreaFilter : body?.serviceAreaIds;
      const wanted = Array.isArray(asked) ? new Set(asked.filter((s): s is string => typeof s === "string")) : null;
      const allowed = new Set(eligible(w, app, driverId).map((s) => s.serviceAreaId));
      const list: Offer[] = [];
      for (const o of w.offers.values()) {
        if (o.app !== app || o.takenBy || o.expiresAt <= now || !allowed.has(o.serviceAreaId)) continue;
        if (wanted && wanted.size > 0 && !wanted.has(o.serviceAreaId)) continue;
        list.push(o);
      }
      const answer =
        app === "flex"
          ? { offerExperienceVersion: "V1", offerList: list.map(offerJson), refreshInterval: 1000, refreshTimeout: 1_800_000 }
          : { offerList: list.map(offerJson) };
      // The moment the answer carrying an offer is sent: what reaction time is measured from.
      return json(res, 200, answer, {}, () => {
        const sentAt = Date.now();
        for (const o of list) if (!o.hidden && !d.shown.has(o.offerId)) d.shown.set(o.offerId, sentAt);
      });
    }

    if (path === "/AcceptOffer" && req.method === "POST") {
      const offerId = typeof body?.offerId === "string" ? body.offerId : "";
      const shownAt = driverRecord(w, driverId).shown.get(offerId) ?? null;
      const injectedFault = fault(w, res, driverId, "accept", app);
      if (injectedFault && injectedFault.kind !== "lost") {
        w.accepts.push({ driverId, offerId, at: now, result: "rejected", shownAt });
        return;
      }
      if (app === "flex" && typeof body?.__type !== "string") return json(res, 400, { message: "SerializationException: __type is required" });
      const o = w.offers.get(offerId);
      if (o?.competitorFirst && !o.takenBy) o.takenBy = "competitor";
      if (!o || o.app !== app || o.takenBy || o.expiresAt <= now) {
        w.accepts.push({ driverId, offerId, at: now, result: "gone", shownAt });
        return json(res, 410, platformError("OfferNotAvailable", "The offer is no longer available"));
      }
      o.takenBy = driverId;
      const block: Block = {
        blockId: token(app === "flex" ? "SA" : "BL"),
        offerId,
        driverId,
        app,
        serviceAreaId: o.serviceAreaId,
        startsAt: o.startsAt,
        endsAt: o.endsAt,
        payCents: o.payCents,
        arrivedAt: null,
      };
      w.blocks.set(block.blockId, block);
      w.accepts.push({ driverId, offerId, at: now, result: "won", shownAt });
      if (injectedFault) return hold(res);
      // Flex: won on a bare 200 (public clients do not read the body).
      if (app === "flex") {
        res.writeHead(200, { "Content-Length": "0" });
        return res.end();
      }
      return json(res, 200, { block: blockJson(block) });
    }

    const mine = () => [...w.blocks.values()].filter((b) => b.driverId === driverId && b.app === app && b.endsAt > now - 86_400_000);
    if (app === "flex" && path === "/scheduledAssignments" && req.method === "GET") {
      return json(res, 200, { scheduledAssignments: mine().map(assignmentJson) });
    }
    if (app === "spark" && path === "/schedule/blocks" && req.method === "GET") return json(res, 200, { blocks: mine().map(blockJson) });

    // Flex forfeits with DELETE /schedule/blocks/{id}; Spark's modelled call is POST …/forfeit. "I've arrived" is modelled for both.
    const blockAction = /^\/schedule\/blocks\/([\w|-]+)(?:\/(forfeit|arrive))?$/.exec(path);
    const action = blockAction && (app === "flex" && req.method === "DELETE" && !blockAction[2] ? "forfeit" : req.method === "POST" ? blockAction[2] : null);
    if (blockAction && action && (app === "spark" || action !== "forfeit" || req.method === "DELETE")) {
      const block = w.blocks.get(blockAction[1]!);
      if (!block || block.driverId !== driverId || block.app !== app) return json(res, 404, platformError("BlockNotFound", "No such block"));
      if (action === "forfeit") {
        if (block.startsAt <= now) return json(res, 409, platformError("BlockStarted", "A block that started cannot be forfeited"));
        w.blocks.delete(block.blockId);
        return json(res, 200, { forfeited: true });
      }
      if (now < block.startsAt - 60 * 60_000 || now > block.endsAt)
        return json(res, 409, platformError("NotCheckInTime", "Check in within the hour before the block"));
      block.arrivedAt ??= now;
      return json(res, 200, { block: app === "flex" ? assignmentJson(block) : blockJson(block) });
    }

    json(res, 404, platformError("NotFound", `No route for ${req.method} ${path}`));
  }

  function stats(w: World, withPolls: boolean, withShown: boolean) {
    const drivers: Record<
      string,
      { polls: number; overLimit: number; lockouts: number; shown: number; faults: number; pollTimes?: number[]; shownIds?: string[] }
    > = {};
    for (const [id, d] of w.drivers) {
      drivers[id] = {
        polls: d.polls.length,
        overLimit: d.overLimit,
        lockouts: limitOf(w, id)?.lockoutCount(id) ?? 0,
        shown: d.shown.size,
        faults: d.faults,
        ...(withPolls ? { pollTimes: d.polls } : {}),
        ...(withShown ? { shownIds: [...d.shown.keys()] } : {}),
      };
    }
    // Double accepts: a driver asking again for an offer it had already won (asking again after a
    // failed or unanswered accept is a retry, not a double). Overlaps: one driver's won blocks that intersect.
    const wonBy = new Set<string>();
    let doubleAccepts = 0;
    for (const a of w.accepts) {
      const key = `${a.driverId}|${a.offerId}`;
      if (wonBy.has(key)) doubleAccepts++;
      if (a.result === "won") wonBy.add(key);
    }
    const byDriver = new Map<string, Block[]>();
    for (const b of w.blocks.values()) byDriver.set(b.driverId, [...(byDriver.get(b.driverId) ?? []), b]);
    let overlaps = 0;
    for (const list of byDriver.values()) {
      list.sort((a, b) => a.startsAt - b.startsAt);
      for (let i = 1; i < list.length; i++) if (list[i]!.startsAt < list[i - 1]!.endsAt) overlaps++;
    }
    // Every platform call an access token made (offers, accepts, schedule, stations…), all accounts together.
    let calls = 0;
    for (const byName of w.calls.values()) for (const n of Object.values(byName)) calls += n;
    return {
      drivers,
      accepts: w.accepts.length,
      won: w.accepts.filter((a) => a.result === "won").length,
      doubleAccepts,
      overlaps,
      openOffers: w.offers.size,
      calls,
    };
  }

  async function control(w: World, name: string, path: string, req: IncomingMessage, res: ServerResponse, url: URL) {
    if (path === "/__control/config" && req.method === "POST") {
      Object.assign(w.config, (await readJson(req)) ?? {});
      return json(res, 200, w.config);
    }
    if (path === "/__control/reset" && req.method === "POST") {
      worlds.set(name, newWorld(config));
      return json(res, 200, { reset: true });
    }
    if (path === "/__control/accounts" && req.method === "POST") {
      const body = (await readJson(req)) ?? {};
      const account: Account = {
        ...newAccount(
          String(body.email ?? ""),
          String(body.password ?? ""),
          (body.challenge as ChallengeKind) ?? "none",
          typeof body.driverId === "string" ? body.driverId : token("DR"),
          typeof body.name === "string" ? body.name : undefined,
        ),
        stations: Array.isArray(body.stations) ? (body.stations as string[]) : null,
        ...(body.offersRate !== undefined ? { offersRate: body.offersRate as number | null } : {}),
        ...(typeof body.offersBurst === "number" ? { offersBurst: body.offersBurst } : {}),
        ...limitSettings(body),
        faults: Array.isArray(body.faults) ? (body.faults as Fault[]) : [],
      };
      addAccount(w, account);
      return json(res, 200, { driverId: account.driverId, customerId: account.customerId, name: account.name });
    }
    // An account's limit model and lockout length, and faults added to its script (by email or customer id).
    if (path === "/__control/limits" && req.method === "POST") {
      const body = (await readJson(req)) ?? {};
      const account = accountNamed(w, String(body.account ?? ""));
      if (!account) return json(res, 404, { error: "no such account" });
      Object.assign(account, limitSettings(body));
      if (Array.isArray(body.faults)) account.faults.push(...(body.faults as Fault[]));
      const limiter = limitOf(w, account.driverId);
      return json(res, 200, {
        limitModel: account.limitModel ?? w.config.limitModel,
        lockoutMs: account.lockoutMs ?? w.config.lockoutMs,
        lockedUntil: limiter?.lockedUntil(account.driverId, Date.now()) ?? 0,
        lockouts: limiter?.lockoutCount(account.driverId) ?? 0,
        faults: account.faults,
      });
    }
    if (path === "/__control/stations" && req.method === "POST") {
      const body = (await readJson(req)) ?? {};
      const app = body.app === "spark" ? "spark" : "flex";
      const added = (Array.isArray(body.stations) ? body.stations : []) as FakeStation[];
      w.stations[app] = [...w.stations[app].filter((s) => !added.some((a) => a.serviceAreaId === s.serviceAreaId)), ...added];
      return json(res, 200, { stations: w.stations[app] });
    }
    if (path === "/__control/offers" && req.method === "POST") {
      const body = (await readJson(req)) ?? {};
      const now = Date.now();
      const list = (Array.isArray(body.offers) ? body.offers : []) as (Partial<Omit<Offer, "offerId">> & { expiresInMs?: number })[];
      const made = list.map((o) =>
        addOffer(w, {
          app: o.app === "spark" ? "spark" : "flex",
          serviceAreaId: String(o.serviceAreaId),
          startsAt: Number(o.startsAt),
          endsAt: Number(o.endsAt),
          payCents: Number(o.payCents),
          // Flex's offers stay listed until taken or their block starts, unless the test says otherwise.
          expiresAt: o.expiresInMs !== undefined ? now + Number(o.expiresInMs) : o.app === "spark" ? now + 60_000 : Number(o.startsAt),
          hidden: o.hidden === true,
          competitorFirst: o.competitorFirst === true,
        }),
      );
      return json(res, 200, { offerIds: made.map((o) => o.offerId) });
    }
    if (path === "/__control/approve" && req.method === "POST") {
      const body = (await readJson(req)) ?? {};
      let n = 0;
      for (const p of w.pending.values()) {
        if (p.kind === "approval" && p.email === String(body.email ?? "").toLowerCase() && p.state === "waiting") {
          p.state = body.deny === true ? "denied" : "approved";
          n++;
        }
      }
      return json(res, 200, { updated: n });
    }
    if (path === "/__control/revoke" && req.method === "POST") {
      const body = (await readJson(req)) ?? {};
      // By email or customer id; `accessOnly` revokes the access tokens and keeps the refresh tokens.
      const who = String(body.email ?? body.customerId ?? "").toLowerCase();
      const matches = (s: Session) => s.email === who || s.customerId.toLowerCase() === who;
      if (body.accessOnly !== true) for (const [t, s] of w.refresh) if (matches(s)) w.refresh.delete(t);
      for (const [t, s] of w.access) if (matches(s)) w.access.delete(t);
      return json(res, 200, { revoked: true });
    }
    if (path === "/__control/codes" && req.method === "GET") {
      const email = (url.searchParams.get("email") ?? "").toLowerCase();
      const codes = [...w.pending.values()].filter((p) => p.kind === "code" && p.email === email).map((p) => p.code);
      return json(res, 200, { codes });
    }
    if (path === "/__control/calls" && req.method === "GET") {
      const who = url.searchParams.get("account") ?? url.searchParams.get("email") ?? "";
      const customerId = accountNamed(w, who)?.customerId ?? who;
      return json(res, 200, { calls: w.calls.get(customerId) ?? {} });
    }
    if (path === "/__control/requests" && req.method === "GET") return json(res, 200, { requests: w.requests });
    if (path === "/__control/stats" && req.method === "GET")
      return json(res, 200, stats(w, url.searchParams.get("polls") === "1", url.searchParams.get("shown") === "1"));
    if (path === "/__control/accepts" && req.method === "GET") return json(res, 200, { accepts: w.accepts });
    if (path === "/__control/blocks" && req.method === "GET") return json(res, 200, { blocks: [...w.blocks.values()] });
    json(res, 404, { error: `no control route for ${req.method} ${path}` });
  }

  /** The "other device": approvals waiting, each with Approve and Deny buttons. */
  async function approvalPage(w: World, req: IncomingMessage, res: ServerResponse, prefix: string) {
    if (req.method === "POST") {
      const form = new URLSearchParams(await readBody(req));
      const p = w.pending.get(form.get("session") ?? "");
      if (p && p.state === "waiting") p.state = form.get("decision") === "deny" ? "denied" : "approved";
      res.writeHead(303, { Location: `${prefix}/approve` });
      return res.end();
    }
    const waiting = [...w.pending.values()].filter((p) => p.kind === "approval" && p.state === "waiting" && p.expiresAt > Date.now());
    const html = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
    const rows = waiting
      .map(
        (p) =>
          `<li>${html(p.email)} (${p.app}) <form method="post"><input type="hidden" name="session" value="${p.session}"><button name="decision" value="approve">Approve</button> <button name="decision" value="deny">Deny</button></form></li>`,
      )
      .join("");
    res.writeHead(200, { "Content-Type": "text/html; charset=utf-8" });
    res.end(
      `<!doctype html><meta charset="utf-8"><title>Fake platform: approvals</title><h1>Sign-in approvals</h1>${rows ? `<ul>${rows}</ul>` : "<p>Nothing is waiting.</p>"}`,
    );
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
    const { tenant: name, path, prefix } = tenantPath(url.pathname);
    const w = worldOf(name);
    if (path.startsWith("/__control/")) return control(w, name, path, req, res, url);
    if (path === "/approve") return approvalPage(w, req, res, prefix);
    const app = /^\/(flex|spark)(\/.*)$/.exec(path);
    if (app) return platformCall(w, app[1] as App, app[2]!, req, res, `http://${req.headers.host}${prefix}`, url);
    json(res, 404, platformError("NotFound", `No route for ${req.method} ${path}`));
  }

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) json(res, 500, platformError("InternalError", String(err)));
    });
  });
  // The engine bench keeps a thousand drivers' connections alive at once.
  server.maxConnections = 20_000;
  server.keepAliveTimeout = 30_000;
  const listening = await listen(server, port, host, held);

  // Generated offers appear on their own only when asked to (the demo); tests inject theirs.
  const ticker = setInterval(() => {
    const now = Date.now();
    for (const w of worlds.values()) advance(w, now);
  }, 1000);
  ticker.unref();

  return {
    ...listening,
    close: () => {
      clearInterval(ticker);
      return listening.close();
    },
  };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const portArg = process.argv.indexOf("--port");
  const demo = process.argv.includes("--demo");
  const fake = await startFakePlatform({
    port: portArg >= 0 ? Number(process.argv[portArg + 1]) : 8796,
    // The demo world: anyone signs in, offers keep coming, competitors take some, challenges are printed.
    // Its limit is the generous model, so a demo driver polling at the production pace is never locked out.
    config: demo ? { openSignUp: true, offersPerMinute: 6, competitorTakePerSecond: 0.01, logChallenges: true, limitModel: "generous", offersRate: null } : {},
  });
  console.log(
    `fake delivery platform listening on ${fake.url} (Flex: ${fake.url}/flex, its sign-in page ${fake.url}/flex/ap/signin; Spark: ${fake.url}/spark${demo ? `; approvals: ${fake.url}/approve` : ""})`,
  );
}
