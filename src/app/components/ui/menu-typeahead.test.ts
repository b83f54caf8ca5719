import { describe, expect, it } from "vitest";
import { TYPEAHEAD_RESET_MS, typeAheadMatch } from "./menu-typeahead";

const labels = ["My profile", "Messages", "Admin console", "Sign out", "Settings"];

describe("menu type-ahead", () => {
  it("resets after 350 ms", () => {
    expect(TYPEAHEAD_RESET_MS).toBe(350);
  });

  it("moves to the next item that starts with the typed letter, wrapping, ignoring case", () => {
    expect(typeAheadMatch(labels, 0, "s")).toBe(3);
    expect(typeAheadMatch(labels, 3, "s")).toBe(4);
    expect(typeAheadMatch(labels, 4, "S")).toBe(3);
    expect(typeAheadMatch(labels, 3, "m")).toBe(0);
  });

  it("matches what was typed together, staying on the item that still matches", () => {
    expect(typeAheadMatch(labels, 3, "se")).toBe(4);
    expect(typeAheadMatch(labels, 0, "me")).toBe(1);
    expect(typeAheadMatch(labels, 1, "mes")).toBe(1);
  });

  it("cycles through items with the same first letter when one letter is repeated", () => {
    expect(typeAheadMatch(labels, 0, "mm")).toBe(1);
    expect(typeAheadMatch(labels, 1, "mmm")).toBe(0);
  });

  it("answers -1 when nothing matches", () => {
    expect(typeAheadMatch(labels, 0, "z")).toBe(-1);
    expect(typeAheadMatch([], 0, "a")).toBe(-1);
  });
});
