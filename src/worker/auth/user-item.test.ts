import { describe, expect, it } from "vitest";
import { withOldFieldNames, withOldFieldNamesOnly } from "./user-item";

describe("the old product's field names", () => {
  it.each([
    { item: { id: 1, email: "ana@example.com", accountConnected: true }, both: { flexEmail: "ana@example.com", proxyInstalled: true } },
    { item: { id: 2, email: null, accountConnected: false }, both: { flexEmail: null, proxyInstalled: false } },
  ])("item $item.id: the old calls answer both names, the old tables the old names only", ({ item, both }) => {
    expect(withOldFieldNames(item)).toEqual({ ...item, ...both });
    expect(withOldFieldNamesOnly(item)).toEqual({ id: item.id, ...both });
  });
});
