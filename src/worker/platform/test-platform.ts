/**
 * Test-only helpers for the fake platform (test/fake-platform): a private world per test, and its
 * control API (accounts, offers, faults, codes, stats).
 */
import { env } from "cloudflare:test";

let worlds = 0;

/** A fault the fake platform injects (the shape of test/fake-platform/server.ts). */
export type Fault = ({ kind: "429"; retryAfter?: number } | { kind: "5xx"; status?: number } | { kind: "timeout" } | { kind: "lost" }) & {
  on?: "offers" | "accept";
};

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
  drivers: Record<string, { polls: number; overLimit: number; shown: number; faults: number; pollTimes?: number[] }>;
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
    /** Platform calls made for the account `email`, by "METHOD /path" (block ids written :id). */
    async calls(email: string): Promise<Record<string, number>> {
      const res = await fetch(`${controlOf(base)}/calls?email=${encodeURIComponent(email)}`);
      return ((await res.json()) as { calls: Record<string, number> }).calls;
    },
    async stats(): Promise<WorldStats> {
      return (await (await fetch(`${controlOf(base)}/stats`)).json()) as WorldStats;
    },
    async blocks(): Promise<{ blockId: string; offerId: string; driverId: string; startsAt: number; endsAt: number }[]> {
      return ((await (await fetch(`${controlOf(base)}/blocks`)).json()) as { blocks: [] }).blocks;
    },
  };
}
