import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { app, productionApp } from "./app";

type Document = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      {
        security?: unknown;
        summary: string;
        parameters?: { name: string; in: string; required: boolean }[];
        requestBody?: { content: { "application/json": { schema: Record<string, unknown> } } };
      }
    >
  >;
};

/** `/api/campaigns/:id` → `/api/campaigns/{id}`, a pattern (`:id{[0-9]+}`) dropped: how OpenAPI writes a Hono path. */
const openApiPath = (path: string) => path.replace(/:(\w+)(\{[^/]*\})?/g, "{$1}");

async function document(): Promise<Document> {
  const res = await exports.default.fetch(new Request("https://bp.test/api/openapi.json"));
  expect(res.status).toBe(200);
  return (await res.json()) as Document;
}

describe("GET /api/openapi.json", () => {
  it("lists every route the app serves, generated from the routes themselves", async () => {
    const doc = await document();
    expect(doc.openapi).toBe("3.1.0");
    const served = new Set(app.routes.filter((r) => r.method !== "ALL").map((r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`));
    const listed = new Set(Object.entries(doc.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`)));
    expect(listed).toEqual(served);
    // Path patterns are dropped, the parameter kept.
    expect(app.routes.some((r) => r.path === "/api/payments/:id{[0-9]+}")).toBe(true);
    expect(doc.paths["/api/payments/{id}"]).toBeDefined();
    expect(app.routes.some((r) => r.path === "/api/local-stripe/checkout/:id{cs_local_[0-9a-f]{24}}/pay")).toBe(true);
    expect(doc.paths["/api/local-stripe/checkout/{id}/pay"]).toBeDefined();
  });

  it("describes bodies, query strings and path parameters from the zod schemas, and who may call", async () => {
    const { paths } = await document();
    const register = paths["/api/auth/register"]!.post!;
    const body = register.requestBody!.content["application/json"].schema as { properties: Record<string, unknown>; required: string[] };
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["phoneNumber", "password", "name", "app", "email", "referralCode", "language"]));
    expect(body.required).toEqual(expect.arrayContaining(["phoneNumber", "password", "name", "app"]));
    expect(register.security).toBeUndefined();

    const audience = paths["/api/admin/audience"]!.get!;
    expect(audience.summary).toBe("Administrators only");
    expect(audience.security).toEqual([{ idToken: [] }]);
    expect(audience.parameters?.map((p) => p.name)).toEqual(expect.arrayContaining(["app", "page", "pageSize", "search", "sort", "dir", "region"]));

    const messages = paths["/api/admin/campaigns/{id}/messages"]!.get!;
    expect(messages.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "id", in: "path", required: true })]));
    expect(paths["/api/flex/v1/user"]!.get!.summary).toBe("Signed in");
  });

  it("is not a route of the production app (config.test.ts also asks a valid production configuration for it: 404)", () => {
    expect(productionApp.routes.some((r) => r.path === "/api/openapi.json")).toBe(false);
    expect(app.routes.some((r) => r.path === "/api/openapi.json")).toBe(true);
  });
});
