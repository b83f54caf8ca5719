import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import type { ZodType } from "zod";
import { describeIssue } from "../shared/validation";
import { ApiError } from "./errors";

/** What a validator checks, kept on the middleware so the OpenAPI document is built from the same schemas (src/worker/openapi.ts). */
export const VALIDATES = Symbol("validates");
export type Validates = { target: keyof ValidationTargets; schema: ZodType };

/**
 * zValidator with our error envelope: a failed parse becomes a 400 `validation_failed`
 * whose details name each offending field (with the rule's code where it has one, see
 * src/shared/validation.ts), and the handler never runs.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(target: Target, schema: Schema) {
  const middleware = zValidator(target, schema, (result) => {
    if (!result.success) {
      const details = result.error.issues.map((issue) => describeIssue(issue));
      throw new ApiError("validation_failed", details[0] ? `${details[0].path || target}: ${details[0].message}` : "Invalid input", { details });
    }
  });
  return Object.assign(middleware, { [VALIDATES]: { target, schema } satisfies Validates });
}
