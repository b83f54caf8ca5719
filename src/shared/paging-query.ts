import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES } from "./paging";
import { z } from "./zod";

/** A list's paging in a query string: which page, and how many rows (one of PAGE_SIZES). Spread into a list's query schema. */
export const pagingFields = {
  page: z.coerce.number().int().min(FIRST_PAGE).max(100_000).default(FIRST_PAGE),
  pageSize: z.coerce
    .number()
    .int()
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `Rows per page must be one of ${PAGE_SIZES.join(", ")}`)
    .default(DEFAULT_PAGE_SIZE),
};
