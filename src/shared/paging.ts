/** docs/product.md, constants: rows per page 20, 40, 60, 80, 100; default 20; the first page is 1. */
export const PAGE_SIZES = [20, 40, 60, 80, 100] as const;
export type PageSize = (typeof PAGE_SIZES)[number];
export const DEFAULT_PAGE_SIZE: PageSize = 20;
export const FIRST_PAGE = 1;

/** Page count: item count divided by page size, rounded up (at least one page). */
export function pageCount(total: number, pageSize: number): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

export function pageOffset(page: number, pageSize: number): number {
  return (Math.max(FIRST_PAGE, page) - 1) * pageSize;
}

export type Page<T> = { total: number; page: number; pageSize: number; rows: T[] };
