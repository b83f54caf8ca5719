/**
 * Test-only helpers for the fake platform (test/fake-platform): a private world per test, and its
 * control API (accounts, offers, faults, codes, stats).
 */
import { env } from "cloudflare:test";
import { call, json } from "./fixtures";

let worlds = 0;

/** A fault the fake platform injects (the shape of test/fake-platform/server.ts). */
export type Fault = (
  | { kind: "429"; retryAfter?: number }
  | { kind: "5xx"; status?: number }
  | { kind: "403" | "420" | "307" }
  | { kind: "timeout" }
  | { kind: "lost" }
) & {
  on?: "offers" | "accept";
};

/** The sign-in address's parameters the fake's page carries through its form (test/fake-platform/sign-in-page.ts). */
const CARRIED = ["openid.return_to", "openid.oa2.code_challenge", "openid.oa2.code_challenge_method", "openid.oa2.client_id", "language"];

/**
 * Signs in on the fake platform's Flex page as a driver would (email and password, then a code
 * when `code` is given) and answers the landing address the page sent the browser to.
 */
export async function landingAfterSignIn(signInUrl: string, email: string, password = "pw", code?: () => Promise<string>): Promise<string> {
  const page = new URL(signInUrl);
  const carried = Object.fromEntries(CARRIED.map((k) => [k, page.searchParams.get(k) ?? ""]));
  const post = (fields: Record<string, string>) =>
    fetch(`${page.origin}${page.pathname}`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ ...carried, ...fields }).toString(),
    });
  let res = await post({ step: "password", email, password });
  if (res.status === 200 && code) {
    const session = /name="session" value="([^"]+)"/.exec(await res.text())?.[1] ?? "";
    res = await post({ step: "code", session, code: await code() });
  }
  const location = res.headers.get("Location");
  if (res.status !== 302 || !location) throw new Error(`the fake's sign-in page did not land (${res.status}): ${await res.text()}`);
  return location;
}

/**
 * Connects a Flex driver through the API as the connect page does: a new attempt, the fake's
 * sign-in page answered with the attempt's address, and the landing address pasted back.
 */
export async function connectThroughPage(idToken: string, email: string, password = "pw"): Promise<unknown> {
  const attempt = (await json(await call("/api/driver/connection/sign-in", { token: idToken, method: "POST" }))) as { attemptId: string; signInUrl: string };
  const landingUrl = await landingAfterSignIn(attempt.signInUrl, email, password);
  return json(await call("/api/driver/connection/landing", { token: idToken, body: { attemptId: attempt.attemptId, landingUrl } }));
}

export function controlOf(base: string) {
  return `${base}/__control`;
}

export type InjectedOffer = {
  serviceAreaId: string;
  startsAt: number;
  endsAt: number;
  payCents: number;
  expiresInMs?: number;
  hidden?: boolean;
  competitorFirst?: boolean;
  app?: "flex" | "spark";
};

export type WorldStats = {
  drivers: Record<string, { polls: number; overLimit: number; lockouts: number; shown: number; faults: number; pollTimes?: number[] }>;
  accepts: number;
  won: number;
  doubleAccepts: number;
  overlaps: number;
};

/** A world of its own on the shared fake platform; `base` + "/flex" is what an adapter points at. */
export async function newWorld(name = `w${Date.now().toString(36)}${(worlds++).toString(36)}${Math.random().toString(36).slice(2, 6)}`) {
  return worldAt(`${env.FAKE_PLATFORM_URL}/t/${name}`);
}

/** The control API of a world at `base` (the default world: env.FAKE_PLATFORM_URL). */
export function worldAt(base: string) {
  const control = async (what: string, body?: unknown) => {
    const res = await fetch(`${controlOf(base)}/${what}`, body === undefined ? {} : { method: "POST", body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`fake platform ${what}: ${res.status} ${await res.text()}`);
    return res.json() as Promise<Record<string, unknown>>;
  };
  return {
    base,
    control,
    async offers(list: InjectedOffer[]): Promise<string[]> {
      return (await control("offers", { offers: list })).offerIds as string[];
    },
    async code(email: string): Promise<string> {
      const res = await fetch(`${controlOf(base)}/codes?email=${encodeURIComponent(email)}`);
      const codes = ((await res.json()) as { codes: string[] }).codes;
      if (codes.length === 0) throw new Error(`no code for ${email}`);
      return codes[codes.length - 1]!;
    },
    /** Platform calls made for an account (its customer id or email), by "METHOD /path" (block ids written :id). */
    async calls(account: string): Promise<Record<string, number>> {
      const res = await fetch(`${controlOf(base)}/calls?account=${encodeURIComponent(account)}`);
      return ((await res.json()) as { calls: Record<string, number> }).calls;
    },
    async stats(): Promise<WorldStats> {
      return (await (await fetch(`${controlOf(base)}/stats`)).json()) as WorldStats;
    },
    /** The last requests the world got, oldest first: method, path, headers (lower-case names) and JSON body. */
    async requests(): Promise<{ method: string; path: string; headers: Record<string, string>; body: unknown }[]> {
      return ((await (await fetch(`${controlOf(base)}/requests`)).json()) as { requests: [] }).requests;
    },
    async blocks(): Promise<{ blockId: string; offerId: string; driverId: string; startsAt: number; endsAt: number }[]> {
      return ((await (await fetch(`${controlOf(base)}/blocks`)).json()) as { blocks: [] }).blocks;
    },
  };
}
