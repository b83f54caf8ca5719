import { describe, expect, it } from "vitest";
import { csvCell, csvRow } from "./csv";

describe("csvCell", () => {
  it("defuses anything a spreadsheet would run as a formula, whatever the column", () => {
    for (const [value, expected] of [
      ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
      ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
      ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
      ["@SUM(1,2)", `"'@SUM(1,2)"`],
      ["  =1+1", "'  =1+1"],
      ["\t=1+1", `"'\t=1+1"`],
      ["\r=1+1", `"'\r=1+1"`],
    ]) {
      expect(csvCell(value), value).toBe(expected);
    }
  });

  it("quotes cells a semicolon locale would split, so no new cell starts with a formula", () => {
    expect(csvCell("Ana;=1+1")).toBe(`"Ana;=1+1"`);
    expect(csvCell("Ana, María")).toBe(`"Ana, María"`);
  });

  it("leaves plain values and signed numbers (E.164 phones) as they are", () => {
    expect(csvCell("+13055550100")).toBe("+13055550100");
    expect(csvCell("-12")).toBe("-12");
    expect(csvCell(3)).toBe("3");
    expect(csvCell(true)).toBe("true");
    expect(csvCell(null)).toBe("");
    expect(csvCell("delivered")).toBe("delivered");
    expect(csvRow(["+13055550100", "=x", null])).toBe("+13055550100,'=x,");
  });
});
