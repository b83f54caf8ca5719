import { describe, expect, it } from "vitest";
import { api, signInAs } from "../test/fixtures";

describe("campaign permissions", () => {
  it("answers 401 without a token and 403 to a driver, for every campaign call", async () => {
    const driver = await signInAs("driver");
    const calls: [string, string][] = [
      ["POST", "/api/admin/campaigns"],
      ["GET", "/api/admin/campaigns"],
      ["GET", "/api/admin/campaigns/1"],
      ["GET", "/api/admin/campaigns/1/messages"],
      ["POST", "/api/admin/campaigns/1/retry-failed"],
      ["GET", "/api/admin/campaigns/1/export.csv"],
      ["GET", "/api/admin/outbox"],
      ["GET", "/api/admin/settings"],
      ["GET", "/api/admin/invitation-audience"],
      ["GET", "/api/admin/regions"],
    ];
    for (const [method, path] of calls) {
      expect((await api(path, { method })).status, `${method} ${path}`).toBe(401);
      expect((await api(path, { method, token: driver.token, json: method === "POST" ? {} : undefined })).status, `${method} ${path}`).toBe(403);
    }
  });
});
