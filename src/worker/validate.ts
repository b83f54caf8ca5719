import { zValidator } from "@hono/zod-validator";
import type { ValidationTargets } from "hono";
import { resolver, uniqueSymbol } from "hono-openapi";
import type { ZodType } from "zod";
import { describeIssue } from "../shared/validation";
import { ApiError } from "./errors";

/**
 * @hono/zod-validator with our error envelope: a failed parse becomes a 400 `validation_failed`
 * whose details name each offending field (with the rule's code where it has one, see
 * src/shared/validation.ts), and the handler never runs. The middleware also carries its schema
 * the way hono-openapi's own validators do (its `uniqueSymbol`, through hono-openapi's `resolver`),
 * so the OpenAPI document (src/worker/openapi.ts) is generated from the same schemas that validate.
 */
export function validate<Target extends keyof ValidationTargets, Schema extends ZodType>(target: Target, schema: Schema) {
  const middleware = zValidator(target, schema, (result) => {
    if (!result.success) {
      const details = result.error.issues.map((issue) => describeIssue(issue));
      throw new ApiError("validation_failed", details[0] ? `${details[0].path || target}: ${details[0].message}` : "Invalid input", { details });
    }
  });
  return Object.assign(middleware, { [uniqueSymbol]: { target, ...resolver(schema) } });
}
