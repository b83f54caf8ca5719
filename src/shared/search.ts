/**
 * The review lists' search rule (docs/product.md, validation). Spaces, brackets, dots, dashes and
 * a leading + are how people write numbers (the tables show `+1 (305) 555-1050`), so they are set
 * aside first. What is left, if only digits: 10 digits, 11 starting with 1, or 12 starting with 01
 * are a phone number, normalised to +1 and the last 10 digits and matched against phones; 4 to 9
 * digits are the end of a number (`1050`, `555-1050`), which the audience lists match as well as
 * the text. Anything else is a text match on name, region or referral, ignoring case (and, where
 * the list reads users.search_key, accents).
 */
export type ReviewSearch =
  | { kind: "none" }
  | { kind: "phone"; phone: string }
  /** `phoneEnd`: the digits a number may end with, when the term is 4 to 9 digits as typed. */
  | { kind: "text"; text: string; phoneEnd?: string };

/** The characters written between a number's digits. */
const NUMBER_PUNCTUATION = /[\s().\-–]/g;
/** The fewest trailing digits matched as the end of a number: fewer match too many to be useful. */
export const MIN_PHONE_END_DIGITS = 4;

export function parseReviewSearch(input: string | null | undefined): ReviewSearch {
  const raw = (input ?? "").trim();
  if (!raw) return { kind: "none" };
  const bare = raw.replace(NUMBER_PUNCTUATION, "");
  const plus = bare.startsWith("+");
  const digits = plus ? bare.slice(1) : bare;
  if (/^[0-9]+$/.test(digits)) {
    if ((!plus && digits.length === 10) || (digits.length === 11 && digits.startsWith("1")) || (!plus && digits.length === 12 && digits.startsWith("01"))) {
      return { kind: "phone", phone: `+1${digits.slice(-10)}` };
    }
    if (!plus && digits.length >= MIN_PHONE_END_DIGITS && digits.length <= 9) return { kind: "text", text: raw.toLowerCase(), phoneEnd: digits };
  }
  return { kind: "text", text: raw.toLowerCase() };
}
