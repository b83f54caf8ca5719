/**
 * The accept plan's rounds of accepts: overlaps with what is held, with accepts in doubt and
 * within a round; the cap; ties; round boundaries.
 */
import { describe, expect, it } from "vitest";
import { planRound, type RoundInput } from "./accept-plan";
import { ids, offer, type PlatformOffer, span, stations } from "./test/accept-plan-offers";

describe("planRound", () => {
  type Row = {
    name: string;
    takes: PlatformOffer[];
    held?: { startsAt: number; endsAt: number }[];
    inDoubt?: PlatformOffer[];
    cap?: number;
    accept?: string[];
    later?: string[];
    deferred?: string[];
    disliked?: [string, "overlap" | "daily_cap"][];
  };
  const rows: Row[] = [
    { name: "no takes, no round", takes: [] },
    { name: "a take with nothing held is asked for", takes: [offer("a", 2, 4, 60)], accept: ["a"] },
    { name: "a take overlapping a held block is disliked for overlap", takes: [offer("a", 2, 4, 60)], held: [span(3, 5)], disliked: [["a", "overlap"]] },
    { name: "a take inside a held block overlaps", takes: [offer("a", 2, 3, 60)], held: [span(1, 4)], disliked: [["a", "overlap"]] },
    { name: "a take that starts as a held block ends does not overlap", takes: [offer("a", 4, 6, 60)], held: [span(2, 4)], accept: ["a"] },
    { name: "a take that ends as a held block starts does not overlap", takes: [offer("a", 0, 2, 60)], held: [span(2, 4)], accept: ["a"] },
    { name: "a take overlapping an accept in doubt waits for a later poll", takes: [offer("a", 2, 4, 60)], inDoubt: [offer("x", 3, 5, 90)], deferred: ["a"] },
    { name: "an accept in doubt listed again is asked for again", takes: [offer("x", 3, 5, 90)], inDoubt: [offer("x", 3, 5, 90)], accept: ["x"] },
    { name: "an accept in doubt that overlaps nothing lets a take through", takes: [offer("a", 2, 4, 60)], inDoubt: [offer("x", 6, 8, 90)], accept: ["a"] },
    {
      name: "overlap with a held block comes before an accept in doubt",
      takes: [offer("a", 2, 4, 60)],
      held: [span(1, 3)],
      inDoubt: [offer("x", 3, 5, 90)],
      disliked: [["a", "overlap"]],
    },
    {
      name: "takes that overlap nothing are asked for in one round, in order",
      takes: [offer("b", 5, 7, 90), offer("a", 1, 3, 60), offer("c", 8, 9, 20)],
      accept: ["b", "a", "c"],
    },
    {
      name: "of two overlapping takes the first is asked for, the second waits a round",
      takes: [offer("rich", 2, 4, 90), offer("cheap", 3, 6, 60)],
      accept: ["rich"],
      later: ["cheap"],
    },
    {
      name: "a take that overlaps only the one waiting is asked for now",
      takes: [offer("a", 2, 4, 90), offer("b", 3, 6, 80), offer("c", 5, 7, 70)],
      accept: ["a", "c"],
      later: ["b"],
    },
    {
      name: "an accept in doubt comes before overlap within the round",
      takes: [offer("a", 2, 4, 90), offer("b", 3, 6, 80)],
      inDoubt: [offer("x", 5, 7, 90)],
      accept: ["a"],
      deferred: ["b"],
    },
    {
      name: "a take over the cap with nothing in the round is disliked",
      takes: [offer("a", 1, 4, 60)],
      held: [span(6, 9)],
      cap: 300,
      disliked: [["a", "daily_cap"]],
    },
    {
      name: "a take over the cap only with the round's blocks waits for them",
      takes: [offer("a", 1, 4, 90), offer("b", 6, 9, 60)],
      cap: 300,
      accept: ["a"],
      later: ["b"],
    },
    { name: "a take exactly at the cap is asked for", takes: [offer("a", 1, 4, 90), offer("b", 6, 8, 60)], cap: 300, accept: ["a", "b"] },
    {
      name: "the cap counts held blocks and the round's together",
      takes: [offer("a", 1, 2, 90), offer("b", 3, 4, 90), offer("c", 5, 6, 90)],
      held: [span(10, 12)],
      cap: 240,
      accept: ["a", "b"],
      later: ["c"],
    },
    { name: "a take on another day is not held back by the cap", takes: [offer("a", 1, 4, 90), offer("b", 25, 28, 60)], cap: 180, accept: ["a", "b"] },
    {
      name: "everything at once: overlap, in doubt, a later round, the cap",
      takes: [offer("a", 1, 2, 99), offer("held", 3, 4, 98), offer("doubt", 6, 7, 97), offer("b", 1, 3, 96), offer("c", 9, 11, 95)],
      held: [span(3, 5)],
      inDoubt: [offer("x", 6, 8, 90)],
      cap: 240,
      accept: ["a"],
      later: ["b", "c"],
      deferred: ["doubt"],
      disliked: [["held", "overlap"]],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      const round = planRound(row.takes, { held: row.held ?? [], inDoubt: row.inDoubt ?? [], dailyCapMinutes: row.cap ?? 0, stations });
      expect({
        accept: ids(round.accept),
        later: ids(round.later),
        deferred: ids(round.deferred),
        disliked: round.disliked.map((d) => [d.offer.id, d.reason]),
      }).toEqual({ accept: row.accept ?? [], later: row.later ?? [], deferred: row.deferred ?? [], disliked: row.disliked ?? [] });
    });
  }
});

/** Plans round after round as the engine does: each block won is held before the next round. Answers the rounds that ask for something. */
function playRounds(takes: PlatformOffer[], input: Omit<RoundInput, "held"> & { held: { startsAt: number; endsAt: number }[] }, won: string[]) {
  const held = [...input.held];
  const rounds: string[][] = [];
  const disliked: [string, string][] = [];
  let remaining = takes;
  while (remaining.length > 0) {
    const round = planRound(remaining, { ...input, held });
    if (round.accept.length > 0) rounds.push(ids(round.accept));
    disliked.push(...round.disliked.map((d): [string, string] => [d.offer.id, d.reason]));
    held.push(...round.accept.filter((o) => won.includes(o.id)));
    remaining = round.later;
  }
  return { rounds, disliked };
}

describe("rounds one after the other", () => {
  const base = { held: [], inDoubt: [], dailyCapMinutes: 0, stations };
  const rows: { name: string; takes: PlatformOffer[]; cap?: number; won: string[]; rounds: string[][]; disliked: [string, string][] }[] = [
    {
      name: "the better of two overlapping is won: the other is disliked for overlap in round two",
      takes: [offer("rich", 2, 4, 90), offer("cheap", 3, 6, 60)],
      won: ["rich"],
      rounds: [["rich"]],
      disliked: [["cheap", "overlap"]],
    },
    {
      name: "the better of two overlapping is gone: the other is asked for in round two",
      takes: [offer("rich", 2, 4, 90), offer("cheap", 3, 6, 60)],
      won: [],
      rounds: [["rich"], ["cheap"]],
      disliked: [],
    },
    {
      name: "a chain of three overlapping, none won: one round each",
      takes: [offer("a", 1, 3, 90), offer("b", 2, 4, 80), offer("c", 2.5, 5, 70)],
      won: [],
      rounds: [["a"], ["b"], ["c"]],
      disliked: [],
    },
    {
      name: "a chain whose ends do not overlap: both ends in round one, the middle disliked once one is won",
      takes: [offer("a", 1, 3, 90), offer("b", 2, 6, 80), offer("c", 5, 7, 70)],
      won: ["c"],
      rounds: [["a", "c"]],
      disliked: [["b", "overlap"]],
    },
    {
      name: "a take waiting on the cap is disliked when the round's block is won",
      takes: [offer("a", 1, 4, 90), offer("b", 6, 9, 60)],
      cap: 300,
      won: ["a"],
      rounds: [["a"]],
      disliked: [["b", "daily_cap"]],
    },
    {
      name: "a take waiting on the cap is asked for when the round's block is gone",
      takes: [offer("a", 1, 4, 90), offer("b", 6, 9, 60)],
      cap: 300,
      won: [],
      rounds: [["a"], ["b"]],
      disliked: [],
    },
    {
      name: "all won: later rounds keep to the cap and to no overlap",
      takes: [offer("a", 1, 3, 90), offer("b", 2, 4, 85), offer("c", 5, 7, 80), offer("d", 8, 10, 75)],
      cap: 240,
      won: ["a", "b", "c", "d"],
      rounds: [["a", "c"]],
      disliked: [
        ["b", "overlap"],
        ["d", "daily_cap"],
      ],
    },
  ];
  for (const row of rows) {
    it(row.name, () => {
      expect(playRounds(row.takes, { ...base, dailyCapMinutes: row.cap ?? 0 }, row.won)).toEqual({ rounds: row.rounds, disliked: row.disliked });
    });
  }
});
