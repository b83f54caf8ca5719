import { describe, expect, it } from "vitest";
import { parsePhoneList } from "./phone-list";

describe("parsePhoneList", () => {
  it("reads one number per line in any common US/Canada format, as E.164", () => {
    expect(parsePhoneList("(305) 555-0100\n+1 407 555 0101\r\n305.555.0102\n13055550103\n4165550104").valid).toEqual([
      "+13055550100",
      "+14075550101",
      "+13055550102",
      "+13055550103",
      "+14165550104",
    ]);
  });

  it("splits on commas, semicolons and tabs (a pasted spreadsheet row)", () => {
    expect(parsePhoneList("3055550100, 3055550101;3055550102\t3055550103").valid).toHaveLength(4);
  });

  it("reads several numbers on one line separated by spaces", () => {
    expect(parsePhoneList("3055550100 3055550101   (305) 555-0102").valid).toEqual(["+13055550100", "+13055550101", "+13055550102"]);
  });

  it("de-duplicates by number, whatever the format, keeping the first", () => {
    const list = parsePhoneList("3055550100\n(305) 555-0100\n+13055550100\n3055550101");
    expect(list.valid).toEqual(["+13055550100", "+13055550101"]);
    expect(list.duplicates).toBe(2);
  });

  it("lists what is not a valid number, as typed", () => {
    const list = parsePhoneList("3055550100\n555-0100\n1234567890\n+44 20 7946 0958\nhello\n30555501001\n3055550100 call me");
    expect(list.valid).toEqual(["+13055550100"]);
    // 123… has an area code starting with 1; +44 is not NANP; 11 digits not starting with 1.
    expect(list.invalid).toEqual(["555-0100", "1234567890", "+44 20 7946 0958", "hello", "30555501001", "3055550100 call me"]);
  });

  it("ignores blank lines and surrounding spaces", () => {
    expect(parsePhoneList("\n\n   3055550100   \n\n,,")).toEqual({ valid: ["+13055550100"], invalid: [], duplicates: 0 });
    expect(parsePhoneList("")).toEqual({ valid: [], invalid: [], duplicates: 0 });
  });
});
