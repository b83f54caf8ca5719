import { z } from "zod";
import { DEFAULT_PAGE_SIZE, FIRST_PAGE, PAGE_SIZES } from "../../shared/paging";

/** The parameters many routes share: which page of a list, and a numeric id in the path. */

export const pagingSchema = z.object({
  page: z.coerce.number().int().min(FIRST_PAGE).max(100_000).default(FIRST_PAGE),
  pageSize: z.coerce
    .number()
    .int()
    .refine((n) => (PAGE_SIZES as readonly number[]).includes(n), `Rows per page must be one of ${PAGE_SIZES.join(", ")}`)
    .default(DEFAULT_PAGE_SIZE),
});
export const idParam = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
