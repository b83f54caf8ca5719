import { describe, expect, it } from "vitest";
import { countSms, fitsOneSegment, SMS_CAPACITY, smsEncoding } from "./sms";

// GSM 03.38 default alphabet, written out by code point (0x1B, the escape, is not a character).
const GSM_TABLE = [
  "@",
  "£",
  "$",
  "¥",
  "è",
  "é",
  "ù",
  "ì",
  "ò",
  "Ç",
  "\n",
  "Ø",
  "ø",
  "\r",
  "Å",
  "å",
  "Δ",
  "_",
  "Φ",
  "Γ",
  "Λ",
  "Ω",
  "Π",
  "Ψ",
  "Σ",
  "Θ",
  "Ξ",
  "Æ",
  "æ",
  "ß",
  "É",
  " ",
  "!",
  '"',
  "#",
  "¤",
  "%",
  "&",
  "'",
  "(",
  ")",
  "*",
  "+",
  ",",
  "-",
  ".",
  "/",
  ..."0123456789",
  ":",
  ";",
  "<",
  "=",
  ">",
  "?",
  "¡",
  ..."ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  "Ä",
  "Ö",
  "Ñ",
  "Ü",
  "§",
  "¿",
  ..."abcdefghijklmnopqrstuvwxyz",
  "ä",
  "ö",
  "ñ",
  "ü",
  "à",
];
const EXTENSION = ["^", "{", "}", "\\", "[", "~", "]", "|", "€"];

describe("smsEncoding", () => {
  it("is GSM_7BIT for every character of the default alphabet", () => {
    expect(GSM_TABLE).toHaveLength(127);
    for (const ch of GSM_TABLE) expect(smsEncoding(ch), JSON.stringify(ch)).toBe("GSM_7BIT");
    expect(smsEncoding(GSM_TABLE.join(""))).toBe("GSM_7BIT");
  });

  it("is GSM_7BIT_EXT as soon as one extension character appears, and stays GSM", () => {
    for (const ch of EXTENSION) expect(smsEncoding(`a${ch}b`), ch).toBe("GSM_7BIT_EXT");
    // Form feed is in the extension table too (page break).
    expect(smsEncoding("\f")).toBe("GSM_7BIT_EXT");
  });

  it("switches to UTF16 for anything else, even after extension characters", () => {
    for (const ch of ["ç", "á", "í", "ó", "ú", "Á", "`", "ê", "😀", "中", "\t", "’", "“", "…", "\u00a0"]) expect(smsEncoding(`ok ${ch}`), ch).toBe("UTF16");
    expect(smsEncoding("€ then ç")).toBe("UTF16");
  });

  it("treats the empty text as plain GSM", () => {
    expect(smsEncoding("")).toBe("GSM_7BIT");
  });
});

describe("countSms", () => {
  it("names the first character that makes the text UTF-16, whole, and none for a GSM-7 text", () => {
    expect(countSms("Más bloques").unicodeCharacter).toBe("á");
    expect(countSms("Hola 😀 ç").unicodeCharacter).toBe("😀");
    expect(countSms("no\u00a0break").unicodeCharacter).toBe("\u00a0");
    expect(countSms("€ {ok} ñ é").unicodeCharacter).toBeNull();
  });

  it("counts an empty text as one empty message", () => {
    expect(countSms("")).toEqual({ encoding: "GSM_7BIT", length: 0, perMessage: 160, messages: 1, remaining: 160, unicodeCharacter: null });
  });

  it("fits 160 GSM characters in one message and splits the 161st into 153-character parts", () => {
    expect(countSms("a".repeat(159))).toMatchObject({ messages: 1, perMessage: 160, remaining: 1 });
    expect(countSms("a".repeat(160))).toMatchObject({ messages: 1, perMessage: 160, remaining: 0 });
    expect(countSms("a".repeat(161))).toMatchObject({ messages: 2, perMessage: 153, remaining: 2 * 153 - 161 });
    expect(countSms("a".repeat(306))).toMatchObject({ messages: 2, remaining: 0 });
    expect(countSms("a".repeat(307))).toMatchObject({ messages: 3, remaining: 3 * 153 - 307 });
  });

  it("counts extension characters twice", () => {
    expect(countSms("€")).toMatchObject({ encoding: "GSM_7BIT_EXT", length: 2, remaining: 158 });
    expect(countSms("{}")).toMatchObject({ length: 4 });
    // 158 basic + one extension character is exactly 160 septets; one more basic character splits it.
    expect(countSms(`${"a".repeat(158)}^`)).toMatchObject({ length: 160, messages: 1, remaining: 0 });
    expect(countSms(`${"a".repeat(159)}^`)).toMatchObject({ length: 161, messages: 2, perMessage: 153 });
  });

  it("counts UTF-16 code units: 70 in one message, 67 per part, an emoji costs two", () => {
    expect(countSms("ç".repeat(70))).toMatchObject({ encoding: "UTF16", length: 70, messages: 1, perMessage: 70, remaining: 0 });
    expect(countSms("ç".repeat(71))).toMatchObject({ messages: 2, perMessage: 67, remaining: 2 * 67 - 71 });
    expect(countSms("😀")).toMatchObject({ encoding: "UTF16", length: 2, remaining: 68 });
    expect(countSms("😀".repeat(35))).toMatchObject({ length: 70, messages: 1 });
    expect(countSms(`${"😀".repeat(35)}a`)).toMatchObject({ length: 71, messages: 2 });
  });

  it("never splits a two-unit character across parts, as the provider bills it", () => {
    // 66 units, then an emoji straddling the 67-unit boundary: it starts part two, leaving a unit unused.
    const straddle = `${"ç".repeat(66)}😀${"ç".repeat(10)}`;
    expect(countSms(straddle)).toMatchObject({ encoding: "UTF16", length: 78, messages: 2, perMessage: 67, remaining: 67 - 12 });
    // 67 emoji are 134 units, which length/67 calls two parts; but a part holds 33 of them (66 units).
    expect(countSms("😀".repeat(66))).toMatchObject({ length: 132, messages: 2, remaining: 1 });
    expect(countSms("😀".repeat(67))).toMatchObject({ length: 134, messages: 3, remaining: 65 });
    // When a one-unit character lines the pairs up, 134 units are exactly two full parts.
    expect(countSms(`ç${"😀".repeat(66)}ç`)).toMatchObject({ length: 134, messages: 2, remaining: 0 });
  });

  it("never splits an extension character from its escape", () => {
    // 152 septets then € (2): the euro does not fit the first 153-septet part whole.
    expect(countSms(`${"a".repeat(152)}€${"a".repeat(10)}`)).toMatchObject({ length: 164, messages: 2, remaining: 153 - 12 });
    expect(countSms(`${"a".repeat(152)}€${"a".repeat(152)}`)).toMatchObject({ length: 306, messages: 3 });
  });

  it("counts an extension character once (not twice) once the text is UTF16", () => {
    expect(countSms("€ç")).toMatchObject({ encoding: "UTF16", length: 2 });
  });

  it("counts line breaks as characters", () => {
    expect(countSms("a\r\nb")).toMatchObject({ encoding: "GSM_7BIT", length: 4 });
  });

  it("keeps remaining the unused room of the last message, always between 0 and its capacity", () => {
    for (const n of [0, 1, 152, 153, 154, 160, 161, 305, 306, 307, 1000]) {
      const c = countSms("x".repeat(n));
      expect(c.remaining).toBeGreaterThanOrEqual(0);
      expect(c.remaining).toBeLessThan(c.perMessage + (n === 0 ? 1 : 0));
      expect(c.messages).toBe(Math.max(1, Math.ceil(n / c.perMessage)));
    }
  });

  it("exposes the SMS capacities (docs/product.md, constants)", () => {
    expect(SMS_CAPACITY).toEqual({ GSM: { single: 160, multi: 153 }, UTF16: { single: 70, multi: 67 } });
  });
});

describe("fitsOneSegment", () => {
  it("is the one-segment limit of the panels", () => {
    expect(fitsOneSegment("a".repeat(160))).toBe(true);
    expect(fitsOneSegment("a".repeat(161))).toBe(false);
    expect(fitsOneSegment(`${"a".repeat(159)}€`)).toBe(false);
    expect(fitsOneSegment("ñ".repeat(160))).toBe(true);
    expect(fitsOneSegment("ç".repeat(70))).toBe(true);
    expect(fitsOneSegment("ç".repeat(71))).toBe(false);
    expect(fitsOneSegment("")).toBe(true);
  });
});
