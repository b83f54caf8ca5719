/**
 * A fake delivery platform over real HTTP, shaped after the capacity API as public Flex clients
 * use it (offers by service area with epoch-second times and a dollar rateInfo, AcceptOffer,
 * scheduled blocks, sign-in with code or approval challenges, refresh tokens). It is the embedded
 * default `npm run dev` starts, and what the Worker tests and the engine bench talk to, so the real
 * HTTP adapter (src/worker/platform/http-platform.ts) is what gets exercised.
 *
 * What it models: stations (Flex) and delivery areas (Spark) in several time zones; offers that
 * appear, expire and get taken by competitors; a per-driver rate limit on the offers call (token
 * bucket, 429 + Retry-After); injected faults (429, 5xx, requests never answered); sign-in
 * challenges; refresh tokens the platform can refuse. It records what each driver was shown and
 * accepted, and when, so tests and the bench can count double or overlapping accepts, offers shown
 * but never decided, and the time from an answer carrying an offer to its accept.
 *
 * Worlds: a base URL of http://host:port/t/<tenant>/<app> has its own accounts, offers and
 * records (app = flex or spark); without /t/<tenant> the tenant is "default".
 *
 * Control API (per tenant): POST /__control/config (JSON, merged), POST /__control/reset,
 * POST /__control/accounts, POST /__control/stations, POST /__control/offers, POST
 * /__control/approve, POST /__control/revoke, GET /__control/codes?email=, GET /__control/calls?email=
 * (platform calls made for that account, by method and path), GET /__control/stats,
 * GET /__control/accepts. A page at /approve lists approvals waiting (the "other device").
 *
 * Plain Node (type stripping only): `node test/fake-platform/server.ts --port 8796 --demo`.
 */
import { randomBytes, randomInt } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { json, listen, readBody, readJson, tenantPath } from "../http.ts";

export type App = "flex" | "spark";
/**
 * An injected fault, for the offers or accept call (`on`; either when absent). "timeout": never
 * answered, nothing done. "lost" (accept only): the offer is accepted, but the answer never comes.
 */
export type Fault = ({ kind: "429"; retryAfter?: number } | { kind: "5xx"; status?: number } | { kind: "timeout" } | { kind: "lost" }) & {
  on?: "offers" | "accept";
};
export type ChallengeKind = "none" | "code" | "approval";

export type FakeStation = { serviceAreaId: string; name: string; region: string; timeZone: string };

export type FakeConfig = {
  /** Any email signs in; the first password used becomes the account's. Emails with "+code" get a code challenge, "+approve" an approval. */
  openSignUp: boolean;
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
  flex: [
    { serviceAreaId: "DLA7", name: "DLA7 Hawthorne", region: "Los Angeles", timeZone: "America/Los_Angeles" },
    { serviceAreaId: "DAX5", name: "DAX5 Irvine", region: "Los Angeles", timeZone: "America/Los_Angeles" },
    { serviceAreaId: "DPH4", name: "DPH4 Tempe", region: "Phoenix", timeZone: "America/Phoenix" },
    { serviceAreaId: "DDV3", name: "DDV3 Aurora", region: "Denver", timeZone: "America/Denver" },
    { serviceAreaId: "DCH1", name: "DCH1 Chicago", region: "Chicago", timeZone: "America/Chicago" },
    { serviceAreaId: "DFW6", name: "DFW6 Dallas", region: "Dallas", timeZone: "America/Chicago" },
    { serviceAreaId: "DNY2", name: "DNY2 Queens", region: "New York", timeZone: "America/New_York" },
    { serviceAreaId: "DMI5", name: "DMI5 Miami", region: "Miami", timeZone: "America/New_York" },
    { serviceAreaId: "YYZ3", name: "YYZ3 Mississauga", region: "Toronto", timeZone: "America/Toronto" },
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
  password: string;
  challenge: ChallengeKind;
  driverId: string;
  /** Eligible stations (null: all of the app's). */
  stations: string[] | null;
  /** This driver's own offers limit and faults, over the world's (tests sharing one world). */
  offersRate?: number | null;
  offersBurst?: number;
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
type DriverRecord = { polls: number[]; overLimit: number; shown: Map<string, number>; faults: number };

type World = {
  config: FakeConfig;
  stations: Record<App, FakeStation[]>;
  accounts: Map<string, Account>;
  byDriver: Map<string, Account>;
  pending: Map<string, Pending>;
  access: Map<string, { driverId: string; email: string; expiresAt: number }>;
  refresh: Map<string, { driverId: string; email: string }>;
  offers: Map<string, Offer>;
  blocks: Map<string, Block>;
  buckets: Map<string, { tokens: number; at: number }>;
  drivers: Map<string, DriverRecord>;
  accepts: Accept[];
  /** Platform calls per account (email) and "METHOD /path", so a test can see what reached the platform. */
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
  offers: new Map(),
  blocks: new Map(),
  buckets: new Map(),
  drivers: new Map(),
  accepts: [],
  calls: new Map(),
  lastGeneratedAt: Date.now(),
  lastCompetitorAt: Date.now(),
});

const token = (prefix: string) => `${prefix}${randomBytes(18).toString("base64url")}`;
const seconds = (ms: number) => Math.floor(ms / 1000);

const platformError = (code: string, message: string) => ({ code, message });

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
  const countCall = (w: World, email: string, req: IncomingMessage, path: string) => {
    const key = email.toLowerCase();
    const calls = w.calls.get(key) ?? {};
    const name = `${req.method} ${path.replace(/^\/schedule\/blocks\/[\w-]+\//, "/schedule/blocks/:id/")}`;
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
  function fault(w: World, res: ServerResponse, driverId: string, on: "offers" | "accept"): Fault | null {
    const f = injected(w, driverId, on);
    if (!f) return null;
    driverRecord(w, driverId).faults++;
    if (f.kind === "lost") return f;
    if (f.kind === "timeout") {
      hold(res);
      return f;
    }
    if (f.kind === "429") json(res, 429, platformError("RateExceeded", "Rate exceeded"), { "Retry-After": String(f.retryAfter ?? w.config.retryAfter) });
    else json(res, f.status ?? 503, platformError("ServiceUnavailable", "Service unavailable"));
    return f;
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
      expiresAt: now + lifetime[0] + randomInt(Math.max(1, lifetime[1] - lifetime[0])),
      hidden: false,
    });
  }

  function addOffer(w: World, o: Omit<Offer, "offerId" | "takenBy">): Offer {
    const offer: Offer = { ...o, offerId: token("OF"), takenBy: null };
    w.offers.set(offer.offerId, offer);
    return offer;
  }

  function authorized(w: World, req: IncomingMessage, now: number) {
    const header = req.headers.authorization ?? "";
    const session = w.access.get(header.startsWith("Bearer ") ? header.slice(7) : "");
    if (!session || session.expiresAt <= now) return null;
    return session;
  }

  function issueTokens(w: World, account: Account, now: number) {
    const accessToken = token("AT");
    // The refresh token names its account, so the demo world (in memory) honours it after a restart.
    const refreshToken = `RT${Buffer.from(account.email).toString("base64url")}.${randomBytes(18).toString("base64url")}`;
    w.access.set(accessToken, { driverId: account.driverId, email: account.email, expiresAt: now + w.config.accessTtlMs });
    w.refresh.set(refreshToken, { driverId: account.driverId, email: account.email });
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
    const account: Account = { email: email.toLowerCase(), password, challenge, driverId: token("DR"), stations: null, faults: [] };
    addAccount(w, account);
    return account;
  }

  const offerJson = (o: Offer) => ({
    offerId: o.offerId,
    serviceAreaId: o.serviceAreaId,
    startTime: seconds(o.startsAt),
    endTime: seconds(o.endsAt),
    expirationDate: seconds(o.expiresAt),
    rateInfo: { priceAmount: o.payCents / 100, currency: "USD" },
    hidden: o.hidden,
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

  const eligible = (w: World, app: App, driverId: string) => {
    const account = accountOf(w, driverId);
    const all = w.stations[app];
    return account?.stations ? all.filter((s) => account.stations!.includes(s.serviceAreaId)) : all;
  };

  async function platformCall(w: World, app: App, path: string, req: IncomingMessage, res: ServerResponse, origin: string) {
    const now = Date.now();
    advance(w, now);

    if (path === "/auth/sign-in" && req.method === "POST") {
      const body = await readJson(req);
      const email = typeof body?.email === "string" ? body.email : "";
      const password = typeof body?.password === "string" ? body.password : "";
      countCall(w, email, req, path);
      if (!email || !password) return json(res, 400, platformError("InvalidInput", "email and password are required"));
      const account = accountFor(w, email, password);
      if (account === "refused") return json(res, 401, platformError("InvalidCredentials", "Email or password incorrect"));
      if (account.challenge === "none") return json(res, 200, issueTokens(w, account, now));
      return json(res, 200, startChallenge(w, account, app, origin));
    }
    if (path === "/auth/challenge" && req.method === "POST") {
      const body = await readJson(req);
      const pending = w.pending.get(typeof body?.session === "string" ? body.session : "");
      if (pending) countCall(w, pending.email, req, path);
      if (pending?.kind !== "code" || pending.expiresAt <= now || pending.attempts >= 5) {
        return json(res, 410, platformError("ChallengeExpired", "Sign in again"));
      }
      pending.attempts++;
      if (body?.code !== pending.code) return json(res, 401, platformError("InvalidCode", "The code is not correct"));
      w.pending.delete(pending.session);
      return json(res, 200, issueTokens(w, w.accounts.get(pending.email)!, now));
    }
    if (path === "/auth/approval" && req.method === "POST") {
      const body = await readJson(req);
      const pending = w.pending.get(typeof body?.session === "string" ? body.session : "");
      if (pending) countCall(w, pending.email, req, path);
      if (pending?.kind !== "approval" || pending.expiresAt <= now || pending.state === "denied") {
        return json(res, 410, platformError("ChallengeExpired", "The approval was denied or expired"));
      }
      if (pending.state === "waiting") return json(res, 202, { status: "PENDING" });
      w.pending.delete(pending.session);
      return json(res, 200, issueTokens(w, w.accounts.get(pending.email)!, now));
    }
    if (path === "/auth/token" && req.method === "POST") {
      const body = await readJson(req);
      const presented = typeof body?.refresh_token === "string" ? body.refresh_token : "";
      let found = w.refresh.get(presented);
      const named = /^RT([A-Za-z0-9_-]+)\./.exec(presented);
      if (!found && w.config.openSignUp && named) {
        // The demo world forgot it in a restart: the account comes back with the first password used next.
        const email = Buffer.from(named[1]!, "base64url").toString("utf8");
        let account = w.accounts.get(email);
        if (!account) {
          account = { email, password: "", challenge: "none", driverId: token("DR"), stations: null, faults: [] };
          addAccount(w, account);
        }
        found = { driverId: account.driverId, email };
        w.refresh.set(presented, found);
      }
      if (!found) return json(res, 401, platformError("InvalidToken", "Refresh token is not valid"));
      const accessToken = token("AT");
      w.access.set(accessToken, { driverId: found.driverId, email: found.email, expiresAt: now + w.config.accessTtlMs });
      return json(res, 200, { access_token: accessToken, expires_in: Math.floor(w.config.accessTtlMs / 1000) });
    }

    const session = authorized(w, req, now);
    if (!session) return json(res, 401, platformError("Unauthorized", "Access token expired or not valid"));
    const driverId = session.driverId;
    countCall(w, session.email, req, path);

    if (path === "/eligibleServiceAreas" && req.method === "GET") {
      return json(res, 200, { serviceAreas: eligible(w, app, driverId) });
    }

    if (path === "/GetOffersForProviderPost" && req.method === "POST") {
      const body = await readJson(req);
      const d = driverRecord(w, driverId);
      d.polls.push(now);
      if (fault(w, res, driverId, "offers")) return;
      const wait = takeToken(w, driverId, now);
      if (wait !== null) {
        d.overLimit++;
        return json(res, 429, platformError("RateExceeded", "Rate exceeded"), { "Retry-After": String(wait) });
      }
      const wanted = Array.isArray(body?.serviceAreaIds) ? new Set(body.serviceAreaIds.filter((s): s is string => typeof s === "string")) : null;
      const allowed = new Set(eligible(w, app, driverId).map((s) => s.serviceAreaId));
      const list: Offer[] = [];
      for (const o of w.offers.values()) {
        if (o.app !== app || o.takenBy || o.expiresAt <= now || !allowed.has(o.serviceAreaId)) continue;
        if (wanted && !wanted.has(o.serviceAreaId)) continue;
        list.push(o);
      }
      // The moment the answer carrying an offer is sent: what reaction time is measured from.
      return json(res, 200, { offerList: list.map(offerJson) }, {}, () => {
        const sentAt = Date.now();
        for (const o of list) if (!o.hidden && !d.shown.has(o.offerId)) d.shown.set(o.offerId, sentAt);
      });
    }

    if (path === "/AcceptOffer" && req.method === "POST") {
      const body = await readJson(req);
      const offerId = typeof body?.offerId === "string" ? body.offerId : "";
      const shownAt = driverRecord(w, driverId).shown.get(offerId) ?? null;
      const injectedFault = fault(w, res, driverId, "accept");
      if (injectedFault && injectedFault.kind !== "lost") {
        w.accepts.push({ driverId, offerId, at: now, result: "rejected", shownAt });
        return;
      }
      const o = w.offers.get(offerId);
      if (o?.competitorFirst && !o.takenBy) o.takenBy = "competitor";
      if (!o || o.app !== app || o.takenBy || o.expiresAt <= now) {
        w.accepts.push({ driverId, offerId, at: now, result: "gone", shownAt });
        return json(res, 410, platformError("OfferNotAvailable", "The offer is no longer available"));
      }
      o.takenBy = driverId;
      const block: Block = {
        blockId: token("BL"),
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
      return json(res, 200, { block: blockJson(block) });
    }

    if (path === "/schedule/blocks" && req.method === "GET") {
      const blocks = [...w.blocks.values()].filter((b) => b.driverId === driverId && b.app === app && b.endsAt > now - 86_400_000);
      return json(res, 200, { blocks: blocks.map(blockJson) });
    }

    const blockAction = /^\/schedule\/blocks\/([\w-]+)\/(forfeit|arrive)$/.exec(path);
    if (blockAction && req.method === "POST") {
      const block = w.blocks.get(blockAction[1]!);
      if (!block || block.driverId !== driverId || block.app !== app) return json(res, 404, platformError("BlockNotFound", "No such block"));
      if (blockAction[2] === "forfeit") {
        if (block.startsAt <= now) return json(res, 409, platformError("BlockStarted", "A block that started cannot be forfeited"));
        w.blocks.delete(block.blockId);
        return json(res, 200, { forfeited: true });
      }
      if (now < block.startsAt - 60 * 60_000 || now > block.endsAt)
        return json(res, 409, platformError("NotCheckInTime", "Check in within the hour before the block"));
      block.arrivedAt ??= now;
      return json(res, 200, { block: blockJson(block) });
    }

    json(res, 404, platformError("NotFound", `No route for ${req.method} ${path}`));
  }

  function stats(w: World, withPolls: boolean, withShown: boolean) {
    const drivers: Record<string, { polls: number; overLimit: number; shown: number; faults: number; pollTimes?: number[]; shownIds?: string[] }> = {};
    for (const [id, d] of w.drivers) {
      drivers[id] = {
        polls: d.polls.length,
        overLimit: d.overLimit,
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
        email: String(body.email ?? "").toLowerCase(),
        password: String(body.password ?? ""),
        challenge: (body.challenge as ChallengeKind) ?? "none",
        driverId: typeof body.driverId === "string" ? body.driverId : token("DR"),
        stations: Array.isArray(body.stations) ? (body.stations as string[]) : null,
        ...(body.offersRate !== undefined ? { offersRate: body.offersRate as number | null } : {}),
        ...(typeof body.offersBurst === "number" ? { offersBurst: body.offersBurst } : {}),
        faults: Array.isArray(body.faults) ? (body.faults as Fault[]) : [],
      };
      addAccount(w, account);
      return json(res, 200, { driverId: account.driverId });
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
          expiresAt: now + Number(o.expiresInMs ?? 60_000),
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
      const email = String(body.email ?? "").toLowerCase();
      for (const [t, s] of w.refresh) if (s.email === email) w.refresh.delete(t);
      for (const [t, s] of w.access) if (s.email === email) w.access.delete(t);
      return json(res, 200, { revoked: true });
    }
    if (path === "/__control/codes" && req.method === "GET") {
      const email = (url.searchParams.get("email") ?? "").toLowerCase();
      const codes = [...w.pending.values()].filter((p) => p.kind === "code" && p.email === email).map((p) => p.code);
      return json(res, 200, { codes });
    }
    if (path === "/__control/calls" && req.method === "GET")
      return json(res, 200, { calls: w.calls.get((url.searchParams.get("email") ?? "").toLowerCase()) ?? {} });
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
    if (app) return platformCall(w, app[1] as App, app[2]!, req, res, `http://${req.headers.host}${prefix}`);
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
    config: demo ? { openSignUp: true, offersPerMinute: 6, competitorTakePerSecond: 0.01, logChallenges: true } : {},
  });
  console.log(
    `fake delivery platform listening on ${fake.url} (Flex: ${fake.url}/flex, Spark: ${fake.url}/spark${demo ? `, approvals: ${fake.url}/approve` : ""})`,
  );
}
