import { normalizeUsPhone } from "../../../../shared/phone";

/** At most this many numbers in one list, as the campaign endpoint allows (MAX_LIST_PHONES). */
export const MAX_LIST_SIZE = 20_000;

export type PhoneList = {
  /** E.164, de-duplicated, in the order typed. */
  valid: string[];
  /** What could not be read as a US/Canada number, as typed. */
  invalid: string[];
  /** How many repeats were dropped. */
  duplicates: number;
};

// One US/Canada number as people write it: "+1 (305) 555-0100", "305.555.0100", "13055550100".
const PHONE_LIKE = /(?:\+?1[\s.-]?)?\(?\d{3}\)?[\s.-]?\d{3}[\s.-]?\d{4}/g;

/**
 * Reads a typed or pasted list: one number per line, or separated by commas, semicolons or tabs
 * (a spreadsheet column or row), or several numbers on one line separated by spaces.
 */
export function parsePhoneList(text: string): PhoneList {
  const valid: string[] = [];
  const invalid: string[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const add = (phone: string) => {
    if (seen.has(phone)) duplicates++;
    else {
      seen.add(phone);
      valid.push(phone);
    }
  };
  for (const raw of text.split(/[\r\n,;\t]+/)) {
    const chunk = raw.trim();
    if (!chunk) continue;
    const whole = normalizeUsPhone(chunk);
    if (whole) {
      add(whole);
      continue;
    }
    // Several numbers on one line: accept them only if nothing but spaces is left over.
    const matches = chunk.match(PHONE_LIKE) ?? [];
    const rest = matches.reduce((s, m) => s.replace(m, ""), chunk).trim();
    const phones = matches.map((m) => normalizeUsPhone(m.trim()));
    if (matches.length > 1 && rest === "" && phones.every(Boolean)) {
      for (const phone of phones) add(phone!);
    } else invalid.push(chunk);
  }
  return { valid, invalid, duplicates };
}
