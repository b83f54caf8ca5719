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

  it("treats other digit strings as text", () => {
    for (const input of ["305555010", "23055550100", "113055550100", "0013055550100", "12345", "30555501001"]) {
      expect(parseReviewSearch(input), input).toEqual({ kind: "text", text: input });
    }
  });

  it("treats formatted numbers as text: only bare digits are a phone", () => {
    expect(parseReviewSearch("(305) 555-0100")).toEqual({ kind: "text", text: "(305) 555-0100" });
    expect(parseReviewSearch("+13055550100")).toEqual({ kind: "text", text: "+13055550100" });
  });

  it("lower-cases text, accents included", () => {
    expect(parseReviewSearch("  JOSÉ García ")).toEqual({ kind: "text", text: "josé garcía" });
    expect(parseReviewSearch("MIAMI10")).toEqual({ kind: "text", text: "miami10" });
  });

  it("does not take non-ASCII digits for a phone number", () => {
    expect(parseReviewSearch("٣٠٥٥٥٥٠١٠٠")).toEqual({ kind: "text", text: "٣٠٥٥٥٥٠١٠٠" });
  });
});
