import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES } from "../../shared/paging";
import { idParam, pagingSchema } from "./paging";

describe("pagingSchema", () => {
  type Reading = [query: Record<string, string>, expected: { page: number; pageSize: number }];
  const readings: Reading[] = [
    [{}, { page: FIRST_PAGE, pageSize: DEFAULT_PAGE_SIZE }],
    [{ page: "3" }, { page: 3, pageSize: DEFAULT_PAGE_SIZE }],
    ...PAGE_SIZES.map(
      (size): Reading => [
        { page: "2", pageSize: String(size) },
        { page: 2, pageSize: size },
      ],
    ),
    [{ page: "100000" }, { page: 100_000, pageSize: DEFAULT_PAGE_SIZE }],
  ];
  it.each(readings)("reads %j as %j", (query, expected) => {
    expect(pagingSchema.parse(query)).toEqual(expected);
  });

  it.each([{ page: "0" }, { page: "-1" }, { page: "1.5" }, { page: "100001" }, { page: "abc" }, { pageSize: "7" }, { pageSize: "0" }])(
    "refuses %j",
    (query) => {
      expect(pagingSchema.safeParse(query).success).toBe(false);
    },
  );

  it("names the page sizes it takes", () => {
    const result = pagingSchema.safeParse({ pageSize: "7" });
    expect(result.error?.issues[0]?.message).toBe(`Rows per page must be one of ${PAGE_SIZES.join(", ")}`);
  });
});

describe("idParam", () => {
  it.each([
    ["1", 1],
    ["42", 42],
    [String(Number.MAX_SAFE_INTEGER), Number.MAX_SAFE_INTEGER],
  ])("reads %s as %d", (id, expected) => {
    expect(idParam.parse({ id })).toEqual({ id: expected });
  });

  it.each(["0", "-3", "1.5", "abc", "", String(Number.MAX_SAFE_INTEGER + 2)])("refuses %j", (id) => {
    expect(idParam.safeParse({ id }).success).toBe(false);
  });
});
