/**
 * The insights routes' requests, checked by zod on the Worker: the period of the report, and the
 * filters and period of a what-if (src/shared/insights.ts has the answers' shapes).
 */
import { z } from "zod";
import { driverFiltersSchema } from "./driver-filters";

/** Unknown keys are refused (a typo is an error, not the default period). */
export const insightsQuerySchema = z
  .object({
    days: z.coerce
      .number()
      .pipe(z.union([z.literal(7), z.literal(30)]))
      .default(30),
  })
  .strict();
export const whatIfRequestSchema = z.object({ days: z.union([z.literal(7), z.literal(30)]).default(30), filters: driverFiltersSchema }).strict();
export type WhatIfRequest = z.infer<typeof whatIfRequestSchema>;
