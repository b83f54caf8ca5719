import { describe, expect, it } from "vitest";
import { formatDate, formatDateTime, formatDay } from "./format";

// Every console screen's source, to check that none formats a date its own way.
const sources = import.meta.glob<string>(["./**/*.tsx", "!./**/*.test.tsx"], { query: "?raw", import: "default", eager: true });

describe("the console's one date format: DD/MM/YY", () => {
  it("writes an instant's day as DD/MM/YY and its time as HH:MM in the browser's zone", () => {
    // 4 March 2026, which the browser's short form writes 3/4/26 in English.
    const at = new Date(2026, 2, 4, 9, 5).getTime();
    expect(formatDate(at)).toBe("04/03/26");
    expect(formatDateTime(at)).toBe("04/03/26 09:05");
    expect(formatDateTime(new Date(2031, 11, 31, 23, 59).getTime())).toBe("31/12/31 23:59");
    expect(formatDate(null)).toBe("");
    expect(formatDateTime(undefined)).toBe("");
  });

  it("writes a calendar day (YYYY-MM-DD) as DD/MM/YY, and nothing for anything else", () => {
    expect(formatDay("2026-03-04")).toBe("04/03/26");
    expect(formatDay("2031-12-31")).toBe("31/12/31");
    expect(formatDay("")).toBe("");
    expect(formatDay("04/03/2026")).toBe("");
  });

  it("is the only date formatting in the console's screens (the date picker's echo in words aside)", () => {
    expect(Object.keys(sources).length).toBeGreaterThan(30);
    const ownFormatting = /Intl\.DateTimeFormat|toLocaleDateString|toLocaleTimeString|toLocaleString\(|dateStyle|timeStyle/;
    const offenders = Object.entries(sources)
      .filter(([path, text]) => path !== "./notifications/DateField.tsx" && ownFormatting.test(text))
      .map(([path]) => path);
    expect(offenders).toEqual([]);
  });
});
