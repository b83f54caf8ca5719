import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { afterEach, describe, expect, it, vi } from "vitest";
import { app } from "./app";

const api = (path: string, init?: RequestInit) => exports.default.fetch(new Request(`https://bp.test${path}`, init));

describe("GET /api/status/health", () => {
  it("answers 200 with the app and schema versions", async () => {
    const res = await api("/api/status/health");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: "ok" });
    expect(res.headers.get("x-app-version")).toBe("0.1.0");
    // The number of the last migration, as a person reads it ("21", not "0021_account_erasure").
    expect(res.headers.get("x-schema-version")).toMatch(/^[1-9]\d*$/);
    expect(res.headers.get("x-request-id")).toBeTruthy();
  });

  it("sends secure headers", async () => {
    const res = await api("/api/status/health");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'none'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("strict-transport-security")).toContain("max-age=");
  });
});

describe("errors", () => {
  it("answers an unknown /api path with the JSON 404 envelope", async () => {
    const res = await api("/api/nope/never");
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toContain("application/json");
    expect(await res.json()).toEqual({ error: { code: "not_found", message: "No route for GET /api/nope/never" } });
  });

  it("answers a wrong method with the same envelope", async () => {
    const res = await api("/api/status/health", { method: "DELETE" });
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: string } };
    expect(body.error.code).toBe("not_found");
  });

  it("refuses an oversized body with 413 in the envelope", async () => {
    const res = await api("/api/status/health", { method: "POST", body: "x".repeat(1024 * 1024 + 1), headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("payload_too_large");
  });
});

describe("the request log", () => {
  afterEach(() => vi.restoreAllMocks());

  /** The JSON lines the app writes to the console while answering, of every level. */
  function captureLines() {
    const lines: Record<string, unknown>[] = [];
    for (const level of ["log", "warn", "error"] as const) {
      vi.spyOn(console, level).mockImplementation((line: unknown) => {
        if (typeof line === "string" && line.startsWith("{")) lines.push(JSON.parse(line) as Record<string, unknown>);
      });
    }
    return lines;
  }

  it("writes no line for an answered request (the platform's invocation log has it)", async () => {
    const lines = captureLines();
    expect((await api("/api/status/health")).status).toBe(200);
    expect((await api("/api/nope/never")).status).toBe(404);
    expect(lines.filter((line) => line.msg === "request")).toEqual([]);
  });

  it("writes a warning with the request id for a request that failed on our side", async () => {
    const lines = captureLines();
    const down = {
      prepare: () => {
        throw new Error("D1 is down");
      },
    } as unknown as D1Database;
    const res = await app.fetch(new Request("https://bp.test/api/status/health"), { ...env, DB: down }, {
      waitUntil: () => {},
      passThroughOnException: () => {},
      props: {},
    } as unknown as ExecutionContext);
    expect(res.status).toBe(500);
    const line = lines.find((l) => l.msg === "request");
    expect(line).toMatchObject({ level: "warn", method: "GET", path: "/api/status/health", status: 500, requestId: res.headers.get("x-request-id") });
  });
});
