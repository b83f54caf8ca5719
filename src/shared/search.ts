/**
 * The review lists' search rule (docs/product.md, validation): 10 digits, 11 digits starting with 1, or 12 digits
 * starting with 01 are a phone number, normalised to +1 and the last 10 digits and matched
 * against phones; anything else is a case-insensitive text match on name, region or referral.
 */
export type ReviewSearch = { kind: "none" } | { kind: "phone"; phone: string } | { kind: "text"; text: string };

export function parseReviewSearch(input: string | null | undefined): ReviewSearch {
  const raw = (input ?? "").trim();
  if (!raw) return { kind: "none" };
  if (/^\d+$/.test(raw)) {
    if (raw.length === 10 || (raw.length === 11 && raw.startsWith("1")) || (raw.length === 12 && raw.startsWith("01"))) {
      return { kind: "phone", phone: `+1${raw.slice(-10)}` };
    }
  }
  return { kind: "text", text: raw.toLowerCase() };
}
