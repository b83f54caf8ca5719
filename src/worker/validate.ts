import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType } from "zod";
import { ApiError } from "./errors";

/**
 * zValidator with our error envelope: a failed parse becomes a 400 `validation_failed`
 * whose details name each offending field, and the handler never runs.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(target: Target, schema: Schema) {
  return zValidator(target, schema, (result) => {
    if (!result.success) {
      const details = result.error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
      throw new ApiError("validation_failed", details[0] ? `${details[0].path || target}: ${details[0].message}` : "Invalid input", { details });
    }
  });
}
