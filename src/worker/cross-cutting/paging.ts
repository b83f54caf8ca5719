import { z } from "zod";
import { pagingFields } from "../../shared/paging-query";

/** The parameters many routes share: which page of a list, and a numeric id in the path. */

export const pagingSchema = z.object(pagingFields);
export const idParam = z.object({ id: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) });
