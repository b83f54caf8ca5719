import { describe, expect, it } from "vitest";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES, pageCount, pageOffset } from "./paging";

describe("paging (docs/product.md, validation)", () => {
  it("offers 20, 40, 60, 80, 100 rows, 20 by default, from page 1", () => {
    expect(PAGE_SIZES).toEqual([20, 40, 60, 80, 100]);
    expect(DEFAULT_PAGE_SIZE).toBe(20);
    expect(FIRST_PAGE).toBe(1);
  });

  it("counts pages as items over page size, rounded up", () => {
    expect(pageCount(1, 20)).toBe(1);
    expect(pageCount(20, 20)).toBe(1);
    expect(pageCount(21, 20)).toBe(2);
    expect(pageCount(100, 20)).toBe(5);
    expect(pageCount(101, 100)).toBe(2);
    expect(pageCount(100_000, 100)).toBe(1000);
  });

  it("shows one (empty) page when there is nothing", () => {
    expect(pageCount(0, 20)).toBe(1);
  });

  it("starts page N at (N - 1) × size, and never before the first row", () => {
    expect(pageOffset(1, 20)).toBe(0);
    expect(pageOffset(2, 20)).toBe(20);
    expect(pageOffset(5, 100)).toBe(400);
    expect(pageOffset(0, 20)).toBe(0);
    expect(pageOffset(-3, 20)).toBe(0);
  });
});
