/**
 * SMS length rules (docs/product.md, validation). GSM-7 basic characters cost 1; the extension characters
 * ^ { } \ [ ~ ] | and € cost 2 (an escape plus the character); any other character switches the
 * whole text to UTF-16, counted in code units (so an emoji costs 2).
 */
export type SmsEncoding = "GSM_7BIT" | "GSM_7BIT_EXT" | "UTF16";

const GSM_BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
const GSM_EXTENDED = "^{}\\[~]|€\f";
const basic = new Set(GSM_BASIC);
const extended = new Set(GSM_EXTENDED);

export const SMS_CAPACITY = {
  GSM: { single: 160, multi: 153 },
  UTF16: { single: 70, multi: 67 },
} as const;

export type SmsCount = {
  encoding: SmsEncoding;
  /** Length in the encoding's units: septets for GSM (extension characters count 2), code units for UTF-16. */
  length: number;
  /** Capacity of one message for this text (160 or 70 when it fits one, 153 or 67 per part otherwise). */
  perMessage: number;
  messages: number;
  /** Unused capacity of the last message. */
  remaining: number;
  /** The first character outside the GSM-7 alphabet, which makes the whole text UTF-16 (null for a GSM-7 text). */
  unicodeCharacter: string | null;
};

/** The first character (a whole code point) outside the GSM-7 alphabet, or null when every one is in it. */
export function firstUnicodeCharacter(text: string): string | null {
  for (const ch of text) if (!basic.has(ch) && !extended.has(ch)) return ch;
  return null;
}

export function smsEncoding(text: string): SmsEncoding {
  let ext = false;
  for (const ch of text) {
    if (basic.has(ch)) continue;
    if (extended.has(ch)) ext = true;
    else return "UTF16";
  }
  return ext ? "GSM_7BIT_EXT" : "GSM_7BIT";
}

/**
 * Segments as the provider bills them. A text that fits one segment is one; a longer one is cut
 * into parts of 153 septets or 67 UTF-16 units, and a character is never cut in two: an extension
 * character's escape stays with its character, and a character of two UTF-16 units (an emoji)
 * that would straddle a boundary starts the next part, leaving its last unit unused.
 */
export function countSms(text: string): SmsCount {
  const encoding = smsEncoding(text);
  const utf16 = encoding === "UTF16";
  const costs: number[] = [];
  for (const ch of text) costs.push(utf16 ? ch.length : extended.has(ch) ? 2 : 1);
  const length = costs.reduce((a, b) => a + b, 0);
  const capacity = utf16 ? SMS_CAPACITY.UTF16 : SMS_CAPACITY.GSM;
  const unicodeCharacter = utf16 ? firstUnicodeCharacter(text) : null;
  if (length <= capacity.single) return { encoding, length, perMessage: capacity.single, messages: 1, remaining: capacity.single - length, unicodeCharacter };
  let messages = 1;
  let used = 0;
  for (const cost of costs) {
    if (used + cost > capacity.multi) {
      messages += 1;
      used = 0;
    }
    used += cost;
  }
  return { encoding, length, perMessage: capacity.multi, messages, remaining: capacity.multi - used, unicodeCharacter };
}

/** Does the text fit one SMS segment (the panels' limit)? */
export function fitsOneSegment(text: string): boolean {
  return countSms(text).messages === 1;
}
