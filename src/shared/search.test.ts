import { describe, expect, it } from "vitest";
import { parseReviewSearch } from "./search";

describe("parseReviewSearch (docs/product.md, validation)", () => {
  it("finds nothing to search in empty or blank input", () => {
    for (const input of [undefined, null, "", "   ", "\t\n"]) expect(parseReviewSearch(input)).toEqual({ kind: "none" });
  });

  it("reads 10 digits as a US number", () => {
    expect(parseReviewSearch("3055550100")).toEqual({ kind: "phone", phone: "+13055550100" });
    expect(parseReviewSearch("  3055550100  ")).toEqual({ kind: "phone", phone: "+13055550100" });
  });

  it("takes any 10 digits for a number, as docs/product.md says, even one no carrier would issue", () => {
    expect(parseReviewSearch("1305555010")).toEqual({ kind: "phone", phone: "+11305555010" });
  });

  it("reads 11 digits starting with 1 as a US number", () => {
    expect(parseReviewSearch("13055550100")).toEqual({ kind: "phone", phone: "+13055550100" });
  });

  it("reads 12 digits starting with 01 as a US number", () => {
    expect(parseReviewSearch("013055550100")).toEqual({ kind: "phone", phone: "+13055550100" });
  });

  it("reads the number as the tables show it, in E.164, dashed or dotted", () => {
    for (const input of ["+1 (305) 555-1050", "(305) 555-1050", "+13055551050", "305-555-1050", "305.555.1050", "1-305-555-1050", " 305 555 1050 "]) {
      expect(parseReviewSearch(input), input).toEqual({ kind: "phone", phone: "+13055551050" });
    }
  });

  it("reads 4 to 9 digits, however written, as the end of a number and as text", () => {
    expect(parseReviewSearch("1050")).toEqual({ kind: "text", text: "1050", phoneEnd: "1050" });
    expect(parseReviewSearch("555-1050")).toEqual({ kind: "text", text: "555-1050", phoneEnd: "5551050" });
    expect(parseReviewSearch("305555010")).toEqual({ kind: "text", text: "305555010", phoneEnd: "305555010" });
  });

  it("treats other digit strings as text only", () => {
    for (const input of ["123", "23055550100", "113055550100", "0013055550100", "30555501001", "+3055551050", "+1234"]) {
      expect(parseReviewSearch(input), input).toEqual({ kind: "text", text: input });
    }
  });

  it("lower-cases text, accents included", () => {
    expect(parseReviewSearch("  JOSÉ García ")).toEqual({ kind: "text", text: "josé garcía" });
    expect(parseReviewSearch("MIAMI10")).toEqual({ kind: "text", text: "miami10" });
  });

  it("does not take non-ASCII digits for a phone number", () => {
    expect(parseReviewSearch("٣٠٥٥٥٥٠١٠٠")).toEqual({ kind: "text", text: "٣٠٥٥٥٥٠١٠٠" });
    expect(parseReviewSearch("٣٠٥٥")).toEqual({ kind: "text", text: "٣٠٥٥" });
  });
});
