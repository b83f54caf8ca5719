import type { Hono } from "hono";
import { z } from "../shared/zod";
import { requireAdmin, requireUser } from "./auth/middleware";
import { VALIDATES, type Validates } from "./validate";

/**
 * The API reference, generated from the routes themselves: every route the app registers, with
 * the zod schemas its validators check (path parameters, query strings, JSON bodies) turned into
 * JSON Schema, whether it needs a signed-in user or an administrator, and the one error envelope.
 * Semantics a schema cannot say (error reasons, limits, idempotency) are in docs/api.md.
 * Served in development only (GET /api/openapi.json).
 */

type Operation = {
  operationId: string;
  tags: string[];
  summary: string;
  security?: { idToken: [] }[];
  parameters?: { name: string; in: "path" | "query"; required: boolean; schema: unknown }[];
  requestBody?: { required: true; content: { "application/json": { schema: unknown } } };
  responses: Record<string, unknown>;
};

const HTTP_METHODS = new Set(["GET", "POST", "PUT", "PATCH", "DELETE"]);

/** The input side of a schema (what a client sends), with what JSON Schema cannot express left open. */
const jsonSchema = (schema: z.ZodType) => z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;

function parametersOf(validates: Validates, place: "path" | "query") {
  const schema = jsonSchema(validates.schema) as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: place,
    required: place === "path" || (schema.required ?? []).includes(name),
    schema: property,
  }));
}

/** `/api/admin/campaigns/:id` → `/api/admin/campaigns/{id}`; a pattern (`:id{[0-9]+}`, braces nested) is dropped. */
export function openApiPath(path: string): string {
  let out = "";
  for (let i = 0; i < path.length; i++) {
    const name = path[i] === ":" ? /^:(\w+)/.exec(path.slice(i)) : null;
    if (!name) {
      out += path[i];
      continue;
    }
    out += `{${name[1]}}`;
    i += name[0].length;
    if (path[i] === "{") {
      for (let depth = 0; i < path.length; i++) {
        if (path[i] === "{") depth++;
        else if (path[i] === "}" && --depth === 0) break;
      }
    } else i--;
  }
  return out;
}

const tagOf = (path: string) => path.replace(/^\/api\//, "").split("/")[0] ?? "api";

export function openApiDocument(app: Hono<never, never, never> | { routes: Hono["routes"] }, version: string) {
  const guards = app.routes.filter((r) => r.method === "ALL" && r.path.endsWith("/*"));
  const operations = new Map<string, { method: string; path: string; handlers: unknown[] }>();
  for (const route of app.routes) {
    if (!HTTP_METHODS.has(route.method)) continue;
    const key = `${route.method} ${route.path}`;
    const entry = operations.get(key) ?? { method: route.method, path: route.path, handlers: [] };
    entry.handlers.push(route.handler);
    operations.set(key, entry);
  }

  const paths: Record<string, Record<string, Operation>> = {};
  for (const { method, path, handlers } of operations.values()) {
    // Middleware a sub-app applies with .use() to everything under it counts for its routes.
    const inherited = guards.filter((g) => path.startsWith(g.path.slice(0, -2))).map((g) => g.handler);
    const chain = [...inherited, ...handlers];
    const signedIn = chain.includes(requireUser);
    const admin = chain.includes(requireAdmin);
    const validators = chain.flatMap((h) => ((h as { [VALIDATES]?: Validates })[VALIDATES] ? [(h as { [VALIDATES]: Validates })[VALIDATES]] : []));
    const operation: Operation = {
      operationId: `${method.toLowerCase()} ${path}`,
      tags: [tagOf(path)],
      summary: admin ? "Administrators only" : signedIn ? "Signed in" : "Public",
      responses: {
        "2XX": { description: "Success (JSON unless the route says otherwise)" },
        "4XX": { description: "The error envelope", content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } } },
        "5XX": {
          description: "The error envelope (internal, unavailable)",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        },
      },
    };
    if (signedIn) operation.security = [{ idToken: [] }];
    const parameters = [
      ...validators.filter((v) => v.target === "param").flatMap((v) => parametersOf(v, "path")),
      ...validators.filter((v) => v.target === "query").flatMap((v) => parametersOf(v, "query")),
    ];
    if (parameters.length > 0) operation.parameters = parameters;
    const body = validators.find((v) => v.target === "json");
    if (body) operation.requestBody = { required: true, content: { "application/json": { schema: jsonSchema(body.schema) } } };
    const at = openApiPath(path);
    paths[at] = { ...paths[at], [method.toLowerCase()]: operation };
  }

  return {
    openapi: "3.1.0",
    info: {
      title: "Blockpilot API",
      version,
      description: "Generated from the routes' zod schemas. Semantics a schema cannot say: docs/api.md.",
    },
    components: {
      securitySchemes: { idToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" } },
      schemas: {
        Error: {
          type: "object",
          required: ["error"],
          properties: {
            error: {
              type: "object",
              required: ["code", "message"],
              properties: { code: { type: "string" }, message: { type: "string" }, details: {} },
            },
          },
        },
      },
    },
    paths,
  };
}
