import type { ValidationTargets } from "hono";
import { validator } from "hono-openapi";
import type { ZodType } from "zod";
import { describeIssue } from "../shared/validation";
import { ApiError } from "./errors";

/**
 * hono-openapi's validator with our error envelope: a failed parse becomes a 400
 * `validation_failed` whose details name each offending field (with the rule's code where it has
 * one, see src/shared/validation.ts), and the handler never runs. The validator carries its schema,
 * so the OpenAPI document (src/worker/openapi.ts) is built from the same schemas.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(target: Target, schema: Schema) {
  return validator(target, schema, (result) => {
    if (!result.success) {
      const details = result.error.map((issue) =>
        describeIssue({ message: issue.message, path: (issue.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment)) }),
      );
      throw new ApiError("validation_failed", details[0] ? `${details[0].path || target}: ${details[0].message}` : "Invalid input", { details });
    }
  });
}
