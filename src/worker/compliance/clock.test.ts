import { describe, expect, it } from "vitest";
import { complianceNow } from "./clock";

describe("complianceNow", () => {
  it("is the real clock unless a test run shifts it", () => {
    expect(complianceNow({ ENVIRONMENT: "development" }, 1_000)).toBe(1_000);
    expect(complianceNow({ ENVIRONMENT: "development", COMPLIANCE_CLOCK_OFFSET_MS: "-500" } as never, 1_000)).toBe(500);
    expect(complianceNow({ ENVIRONMENT: "test", COMPLIANCE_CLOCK_OFFSET_MS: "" } as never, 1_000)).toBe(1_000);
    expect(() => complianceNow({ ENVIRONMENT: "test", COMPLIANCE_CLOCK_OFFSET_MS: "soon" } as never)).toThrow(/milliseconds/);
  });

  it("cannot be shifted in production", () => {
    expect(complianceNow({ ENVIRONMENT: "production" }, 1_000)).toBe(1_000);
    expect(() => complianceNow({ ENVIRONMENT: "production", COMPLIANCE_CLOCK_OFFSET_MS: "3600000" } as never)).toThrow(/cannot be used in production/);
  });
});
