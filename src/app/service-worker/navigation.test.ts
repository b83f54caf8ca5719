import { describe, expect, it } from "vitest";
import { isAppNavigation, shellsFor } from "./navigation";

describe("the service worker's navigations", () => {
  it("are the SPA's addresses, never the API's", () => {
    expect(isAppNavigation(new URL("https://blockpilot.app/flex/dashboard"))).toBe(true);
    expect(isAppNavigation(new URL("https://blockpilot.app/"))).toBe(true);
    expect(isAppNavigation(new URL("https://blockpilot.app/apiary"))).toBe(true);
    expect(isAppNavigation(new URL("https://blockpilot.app/api"))).toBe(false);
    expect(isAppNavigation(new URL("https://blockpilot.app/api/driver/offers"))).toBe(false);
  });

  it("fall back offline to the page's own cached copy, then to the shell", () => {
    expect(shellsFor("/flex/dashboard")).toEqual(["/flex/dashboard", "/"]);
    expect(shellsFor("/flex/dashboard/")).toEqual(["/flex/dashboard", "/"]);
    expect(shellsFor("/flex/calendar")).toEqual(["/flex/calendar", "/"]);
    expect(shellsFor("/")).toEqual(["/"]);
  });
});
