/**
 * The accepts against a platform that answers as each test says: rounds one after the other, each
 * offer marked asked before its accept goes out, won blocks held for the next round, a failed
 * accept stopping the rounds, and accepts in doubt settled from the platform's schedule.
 */
import { describe, expect, it } from "vitest";
import type { Commitment } from "../../shared/accept-plan";
import { memoryHistory, memoryKv, testProfile } from "../test/engine-fixtures";
import { acceptInRounds, settleUnlisted } from "./accept-rounds";
import { OfferLedger } from "./offer-ledger";
import { type AcceptOutcome, type DeliveryPlatform, PlatformError, type PlatformOffer, type ScheduledBlock } from "./platform";

const NOW = Date.parse("2031-03-12T12:00:00Z");
const HOUR = 3_600_000;
const profile = testProfile(NOW);

/** An offer `id` from hour `from` to hour `to` after now. */
function offer(id: string, from: number, to: number, dollars = 60): PlatformOffer {
  return { id, stationId: "S1", startsAt: NOW + from * HOUR, endsAt: NOW + to * HOUR, payCents: dollars * 100, expiresAt: NOW + HOUR, hidden: false };
}
const block = (o: PlatformOffer): ScheduledBlock => ({
  id: `B-${o.id}`,
  offerId: o.id,
  stationId: o.stationId,
  startsAt: o.startsAt,
  endsAt: o.endsAt,
  payCents: o.payCents,
  arrivedAt: null,
});

type Answer = "won" | "gone" | "fails";

/** A platform answering each accept as `answers` says, and its schedule as `schedule` does; it notes the rounds of accepts it saw. */
function platformAnswering(answers: Record<string, Answer>, schedule: () => Promise<ScheduledBlock[]> = async () => []) {
  const byId = new Map<string, PlatformOffer>();
  const asked: string[][] = [[]];
  let inFlight = 0;
  const platform = {
    accept: async (_token: string, offer: PlatformOffer): Promise<AcceptOutcome> => {
      const offerId = offer.id;
      // Accepts asked for together start before any answers: a new round begins once the last one answered.
      if (inFlight === 0 && asked.at(-1)!.length > 0) asked.push([]);
      asked.at(-1)!.push(offerId);
      inFlight++;
      await Promise.resolve();
      inFlight--;
      const answer = answers[offerId] ?? "gone";
      if (answer === "fails") throw new PlatformError("unavailable", "502");
      return answer === "won" ? { kind: "won", block: block(byId.get(offerId)!) } : { kind: "gone" };
    },
    scheduledBlocks: schedule,
  } as unknown as DeliveryPlatform;
  const know = (list: PlatformOffer[]) => {
    for (const o of list) byId.set(o.id, o);
  };
  return { platform, asked: () => asked.filter((r) => r.length > 0), know };
}

function setup(answers: Record<string, Answer>, schedule?: () => Promise<ScheduledBlock[]>) {
  const history = memoryHistory();
  const ledger = new OfferLedger(memoryKv(), history);
  const p = platformAnswering(answers, schedule);
  return { ledger, history, ...p, context: { platform: p.platform, token: "t", ledger, profile, now: NOW } };
}
const decisions = (records: { platformOfferId: string; status: string; reasons?: string[] | null }[]) =>
  records.map((r) => [r.platformOfferId, r.status, ...(r.reasons ?? [])].join(" "));

describe("acceptInRounds", () => {
  type Row = {
    name: string;
    takes: PlatformOffer[];
    held?: Commitment[];
    answers: Record<string, Answer>;
    rounds: string[][];
    decided: string[];
    stalled?: boolean;
    waiting?: string[];
  };
  const rows: Row[] = [
    { name: "nothing to take: nothing asked", takes: [], answers: {}, rounds: [], decided: [] },
    { name: "one take won", takes: [offer("a", 1, 3)], answers: { a: "won" }, rounds: [["a"]], decided: ["a won"] },
    { name: "one take gone", takes: [offer("a", 1, 3)], answers: { a: "gone" }, rounds: [["a"]], decided: ["a gone"] },
    {
      name: "takes that overlap nothing go out together",
      takes: [offer("a", 1, 3), offer("b", 4, 6), offer("c", 7, 9)],
      answers: { a: "won", b: "gone", c: "won" },
      rounds: [["a", "b", "c"]],
      decided: ["a won", "b gone", "c won"],
    },
    {
      name: "the better of two overlapping is won: the other is disliked, never asked for",
      takes: [offer("rich", 1, 3, 90), offer("cheap", 2, 4)],
      answers: { rich: "won", cheap: "won" },
      rounds: [["rich"]],
      decided: ["rich won", "cheap disliked overlap"],
    },
    {
      name: "the better of two overlapping is gone: the other is asked for next",
      takes: [offer("rich", 1, 3, 90), offer("cheap", 2, 4)],
      answers: { rich: "gone", cheap: "won" },
      rounds: [["rich"], ["cheap"]],
      decided: ["rich gone", "cheap won"],
    },
    {
      name: "a take overlapping a held block is disliked, never asked for",
      takes: [offer("a", 1, 3)],
      held: [{ offerId: "x", blockId: "Bx", startsAt: NOW + 2 * HOUR, endsAt: NOW + 5 * HOUR }],
      answers: { a: "won" },
      rounds: [],
      decided: ["a disliked overlap"],
    },
    {
      name: "a failed accept stops the rounds: it and the next round's takes wait",
      takes: [offer("a", 1, 3, 90), offer("b", 2, 4), offer("c", 5, 6)],
      answers: { a: "fails", c: "won" },
      rounds: [["a", "c"]],
      decided: ["c won"],
      stalled: true,
      waiting: ["a", "b"],
    },
  ];
  for (const row of rows) {
    it(row.name, async () => {
      const { ledger, history, asked, know, context } = setup(row.answers);
      know(row.takes);
      const held = [...(row.held ?? [])];
      const done = await acceptInRounds(row.takes, held, context);
      expect(asked()).toEqual(row.rounds);
      expect(decisions(history.records)).toEqual(row.decided);
      expect(done.stalled !== null).toBe(row.stalled ?? false);
      const wonIds = row.decided.filter((d) => d.endsWith(" won")).map((d) => d.split(" ")[0]);
      expect(done.won.map((r) => r.platformOfferId)).toEqual(wonIds);
      expect(held.slice(row.held?.length ?? 0).map((w) => w.offerId)).toEqual(wonIds);
      expect(ledger.unlisted(new Set()).map((o) => o.id)).toEqual(row.waiting ?? []);
      for (const id of row.takes.map((o) => o.id)) expect(ledger.decided(id)).toBe(row.decided.some((d) => d.startsWith(`${id} `)));
    });
  }

  it("marks each offer asked before its accept goes out", async () => {
    const { ledger, know, context } = setup({});
    const a = offer("a", 1, 3);
    know([a]);
    const inDoubtWhileAsking: string[][] = [];
    const accept = context.platform.accept;
    context.platform.accept = (token, offer) => {
      inDoubtWhileAsking.push(ledger.inDoubt().map((o) => o.id));
      return accept(token, offer);
    };
    await acceptInRounds([a], [], context);
    expect(inDoubtWhileAsking).toEqual([["a"]]);
  });

  it("a take overlapping an accept in doubt from an earlier poll waits, never asked for", async () => {
    const { ledger, history, asked, know, context } = setup({ b: "won" });
    const earlier = offer("earlier", 1, 3);
    ledger.asking(earlier);
    const [a, b] = [offer("a", 2, 4), offer("b", 5, 6)];
    know([a, b]);
    await acceptInRounds([a, b], [], context);
    expect(asked()).toEqual([["b"]]);
    expect(decisions(history.records)).toEqual(["b won"]);
    expect(ledger.inDoubt().map((o) => o.id)).toEqual(["earlier"]);
    expect(ledger.unlisted(new Set(["earlier"])).map((o) => o.id)).toEqual(["a"]);
  });
});

describe("settleUnlisted", () => {
  it("nothing in doubt: the schedule is not read", async () => {
    let reads = 0;
    const { context } = setup({}, async () => {
      reads++;
      return [];
    });
    expect(await settleUnlisted([], context)).toEqual({ won: [], stalled: null, schedule: null });
    expect(reads).toBe(0);
  });

  it("on the schedule: won, with its block; not on it: gone", async () => {
    const [a, b] = [offer("a", 1, 3), offer("b", 4, 5)];
    const blocks = [block(a), { ...block(offer("other", 7, 8)), offerId: null }];
    const { ledger, history, context } = setup({}, async () => blocks);
    ledger.asking(a);
    ledger.asking(b);
    const done = await settleUnlisted(ledger.unlisted(new Set()), context);
    expect(decisions(history.records)).toEqual(["a won", "b gone"]);
    expect(history.records[0]).toMatchObject({ blockId: "B-a" });
    expect(done.won.map((r) => r.platformOfferId)).toEqual(["a"]);
    expect(done.schedule?.blocks).toBe(blocks);
    expect(done.stalled).toBeNull();
    expect([ledger.decided("a"), ledger.decided("b")]).toEqual([true, true]);
  });

  it("the schedule failing leaves them in doubt, and stalls", async () => {
    const { ledger, history, context } = setup({}, () => Promise.reject(new Error("socket hang up")));
    ledger.asking(offer("a", 1, 3));
    const done = await settleUnlisted(ledger.unlisted(new Set()), context);
    expect(history.records).toEqual([]);
    expect(done).toMatchObject({ won: [], schedule: null, stalled: { kind: "unavailable", message: "Error: socket hang up" } });
    expect(ledger.inDoubt().map((o) => o.id)).toEqual(["a"]);
  });
});
