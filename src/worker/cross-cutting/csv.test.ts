import { describe, expect, it } from "vitest";
import { csvCell, csvLine, csvStream } from "./csv";

describe("csvCell", () => {
  it("defuses every cell a spreadsheet would run as a formula, whatever the column", () => {
    for (const formula of ["=1+1", "+13055550100", "-2", "@SUM(A1)", "\t=1", "\r=1", "\n=1", " =1+1", "  @SUM(A1)", '=HYPERLINK("http://x","y")'])
      expect(csvCell(formula).replace(/^"|"$/g, "").startsWith("'")).toBe(true);
    expect(csvCell(-5)).toBe("'-5");
    expect(csvCell("=1;2")).toBe(`"'=1;2"`);
    for (const [value, expected] of [
      ['=HYPERLINK("http://evil","x")', `"'=HYPERLINK(""http://evil"",""x"")"`],
      ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
      ["-2+3+cmd|' /C calc'!A0", "'-2+3+cmd|' /C calc'!A0"],
      ["@SUM(1,2)", `"'@SUM(1,2)"`],
      ["  =1+1", "'  =1+1"],
      ["\t=1+1", `"'\t=1+1"`],
      ["\r=1+1", `"'\r=1+1"`],
      // Signed numbers too (an E.164 phone, a negative amount): no exception a hostile value could use.
      ["+13055550100", "'+13055550100"],
      ["-12", "'-12"],
    ]) {
      expect(csvCell(value), value).toBe(expected);
    }
  });

  it("quotes separators (`,` and the `;` of other locales), quotes and line breaks, and doubles quotes", () => {
    expect(csvCell("García, José")).toBe('"García, José"');
    expect(csvCell("a;b")).toBe('"a;b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
    expect(csvCell("tab\there")).toBe('"tab\there"');
    expect(csvCell("Ana;=1+1")).toBe(`"Ana;=1+1"`);
  });

  it("leaves plain values alone and writes nothing for no value", () => {
    expect(csvCell("Miami")).toBe("Miami");
    expect(csvCell(42)).toBe("42");
    expect(csvCell(true)).toBe("yes");
    expect(csvCell(false)).toBe("no");
    expect(csvCell(null)).toBe("");
    expect(csvCell(undefined)).toBe("");
    expect(csvLine(["a", null, 1])).toBe("a,,1\r\n");
    expect(csvCell("delivered")).toBe("delivered");
  });
});

describe("csvStream", () => {
  it("writes a byte-order mark and the header, then each chunk as it is pulled, until null", async () => {
    const chunks = [[["1", "=x"]], [["2", "y"]]];
    let pulls = 0;
    const stream = csvStream(["id", "name"], async () => {
      pulls++;
      return chunks.shift() ?? null;
    });
    const bytes = new Uint8Array(await new Response(stream).arrayBuffer());
    expect([...bytes.slice(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(new TextDecoder().decode(bytes)).toBe("id,name\r\n1,'=x\r\n2,y\r\n");
    expect(pulls).toBe(3);
  });

  it("leaves the byte-order mark out when asked", async () => {
    const stream = csvStream(["id"], async () => null, { byteOrderMark: false });
    expect(await new Response(stream).text()).toBe("id\r\n");
  });
});
