/**
 * What the engine remembers of the offers it saw, in its object's storage: decided offers (kept
 * across a restart, forgotten after they cannot come back), accepts in doubt, offers left for a
 * later poll; each decision recorded in the history as it is made.
 */
import { describe, expect, it } from "vitest";
import { memoryHistory, memoryKv, testProfile } from "../test/engine-fixtures";
import { OfferLedger, offerRecord } from "./offer-ledger";
import type { PlatformOffer } from "./platform";

const NOW = Date.parse("2031-03-12T12:00:00Z");
const MIN = 60_000;
const HOUR = 60 * MIN;
const profile = testProfile(NOW);

function offer(id: string, over: Partial<PlatformOffer> = {}): PlatformOffer {
  return { id, stationId: "S1", startsAt: NOW + HOUR, endsAt: NOW + 3 * HOUR, payCents: 6000, expiresAt: NOW + MIN, hidden: false, ...over };
}
const ids = (list: { id: string }[]) => list.map((o) => o.id);

describe("offerRecord", () => {
  it("names and zones the record after the station", () => {
    expect(offerRecord(profile, offer("a"), "won", NOW, { blockId: "B1" })).toEqual({
      userId: 1,
      app: "flex",
      platformOfferId: "a",
      stationId: "S1",
      stationName: "Station 1",
      timeZone: "America/Denver",
      status: "won",
      reasons: null,
      payCents: 6000,
      startsAt: NOW + HOUR,
      endsAt: NOW + 3 * HOUR,
      blockId: "B1",
      seenAt: NOW,
    });
  });
  it("a station not in the catalogue: its id for a name, UTC for a zone", () => {
    expect(offerRecord(profile, offer("a", { stationId: "S9" }), "disliked", NOW, { reasons: ["station"] })).toMatchObject({
      stationName: "S9",
      timeZone: "UTC",
      reasons: ["station"],
      blockId: null,
    });
  });
});

describe("OfferLedger", () => {
  const ledger = (kv = memoryKv(), history = memoryHistory()) => new OfferLedger(kv, history);

  it("knows nothing at first", () => {
    const l = ledger();
    expect([l.decided("a"), l.inDoubt(), l.unlisted(new Set())]).toEqual([false, [], []]);
  });

  const rows: { name: string; steps: (l: OfferLedger) => void; decided: boolean; inDoubt: string[]; unlisted: string[] }[] = [
    {
      name: "asked for: in doubt, and settled from the schedule once not listed",
      steps: (l) => l.asking(offer("a")),
      decided: false,
      inDoubt: ["a"],
      unlisted: ["a"],
    },
    { name: "left for later, never asked: not in doubt", steps: (l) => l.waiting(offer("a")), decided: false, inDoubt: [], unlisted: ["a"] },
    {
      name: "left for later after being asked for: still in doubt",
      steps: (l) => {
        l.asking(offer("a"));
        l.waiting(offer("a"));
      },
      decided: false,
      inDoubt: ["a"],
      unlisted: ["a"],
    },
    {
      name: "decided after being asked for: out of doubt",
      steps: (l) => {
        l.asking(offer("a"));
        l.decide(profile, offer("a"), "won", NOW, { blockId: "B1" });
      },
      decided: true,
      inDoubt: [],
      unlisted: [],
    },
    { name: "disliked: decided", steps: (l) => l.decide(profile, offer("a"), "disliked", NOW, { reasons: ["pay"] }), decided: true, inDoubt: [], unlisted: [] },
    { name: "gone: decided", steps: (l) => l.decide(profile, offer("a"), "gone", NOW), decided: true, inDoubt: [], unlisted: [] },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const kv = memoryKv();
      row.steps(ledger(kv));
      // Read back from storage, as after a restart.
      const l = ledger(kv);
      expect(l.decided("a")).toBe(row.decided);
      expect(ids(l.inDoubt())).toEqual(row.inDoubt);
      expect(ids(l.unlisted(new Set()))).toEqual(row.unlisted);
      expect(l.unlisted(new Set(["a"]))).toEqual([]);
    });
  }

  it("forgets a decided offer ten minutes after it expired, and never a pending one", () => {
    const kv = memoryKv();
    const l = ledger(kv);
    l.decide(profile, offer("expired", { expiresAt: NOW - 11 * MIN }), "gone", NOW - 12 * MIN);
    l.decide(profile, offer("recent", { expiresAt: NOW - 9 * MIN }), "gone", NOW - 12 * MIN);
    l.asking(offer("asked", { expiresAt: NOW - 60 * MIN }));
    l.prune(NOW);
    expect([l.decided("expired"), l.decided("recent")]).toEqual([false, true]);
    expect(ids(l.inDoubt())).toEqual(["asked"]);
    expect(kv.keys()).toEqual(["seen:asked", "seen:recent"]);
  });

  it("a decision is remembered from when it was made, if the offer had already expired", () => {
    const l = ledger();
    l.decide(profile, offer("a", { expiresAt: NOW - 60 * MIN }), "gone", NOW);
    l.prune(NOW + 9 * MIN);
    expect(l.decided("a")).toBe(true);
  });

  it("prunes at most every five minutes", () => {
    const l = ledger();
    l.prune(NOW);
    l.decide(profile, offer("a", { expiresAt: NOW - 20 * MIN }), "gone", NOW - 20 * MIN);
    l.prune(NOW + 5 * MIN - 1);
    expect(l.decided("a")).toBe(true);
    l.prune(NOW + 5 * MIN);
    expect(l.decided("a")).toBe(false);
  });

  it("a decision goes to the history with its record, in the same step", () => {
    const history = memoryHistory();
    const l = ledger(memoryKv(), history);
    const won = l.decide(profile, offer("a"), "won", NOW, { blockId: "B1" });
    const disliked = l.decide(profile, offer("b"), "disliked", NOW, { reasons: ["pay"] });
    expect(history.records).toEqual([won, disliked]);
    expect(won).toMatchObject({ platformOfferId: "a", status: "won", blockId: "B1", seenAt: NOW });
  });

  it("after the filters change, a disliked offer is judged again: its record takes the new decision; won and gone ones stay decided", () => {
    const history = memoryHistory();
    const ledger = new OfferLedger(memoryKv(), history);
    const [a, b] = [offer("a"), offer("b")];
    ledger.decide(profile, a, "disliked", NOW, { reasons: ["pay"] });
    ledger.decide(profile, b, "won", NOW, { blockId: "B" });
    ledger.rejudgeDisliked();
    expect([ledger.decided("a"), ledger.decided("b")]).toEqual([false, true]);
    ledger.decide(profile, a, "won", NOW + 1);
    expect(history.records.map((r) => [r.platformOfferId, r.status])).toEqual([
      ["a", "won"],
      ["b", "won"],
    ]);
    expect(ledger.decided("a")).toBe(true);
  });

  it("records an older engine left waiting for D1 move into the history once", () => {
    const kv = memoryKv();
    const first = offerRecord(profile, offer("a"), "won", NOW, { blockId: "B1" });
    const second = offerRecord(profile, offer("b"), "disliked", NOW, { reasons: ["pay"] });
    kv.put("unrecorded", [first, second]);
    const history = memoryHistory();
    ledger(kv, history);
    expect(history.records).toEqual([first, second]);
    expect(kv.get("unrecorded")).toBeUndefined();
    ledger(kv, history);
    expect(history.records).toHaveLength(2);
  });
});
