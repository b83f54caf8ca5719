/**
 * US/Canada phone numbers. We accept what people type ("(305) 555-0100", "305.555.0100",
 * "+1 305 555 0100", "13055550100") and store E.164 (+13055550100).
 */
const NANP = /^[2-9]\d{2}[2-9]\d{6}$/;

/** E.164 for a valid US/Canada number, or null. */
export function normalizeUsPhone(input: string): string | null {
  const digits = input.replace(/\D/g, "");
  const national = digits.length === 11 && digits.startsWith("1") ? digits.slice(1) : digits.length === 10 ? digits : null;
  if (!national || !NANP.test(national)) return null;
  const trimmed = input.trim();
  if (/[^\d\s().+-]/.test(trimmed)) return null;
  // "+" starts a country code: only +1 is ours ("+30 555 550 100" is Greek, not 305-555-0100).
  if (trimmed.startsWith("+") && !(digits.length === 11 && digits.startsWith("1"))) return null;
  if (trimmed.slice(1).includes("+")) return null;
  return `+1${national}`;
}

/** Spec §5 display: optional leading 1 then 3+3+4 digits → "+1 (xxx) xxx-xxxx"; otherwise empty. */
export function formatUsPhone(input: string | null | undefined): string {
  const digits = (input ?? "").replace(/\D/g, "");
  const match = /^1?(\d{3})(\d{3})(\d{4})$/.exec(digits);
  return match ? `+1 (${match[1]}) ${match[2]}-${match[3]}` : "";
}

/**
 * A phone number formatted while it is typed: "305" → "+1 (305", "3055550" → "+1 (305) 555-0",
 * "13055550100" → "+1 (305) 555-0100". A leading 1 is the country code (no US/Canada area code
 * starts with 1); digits past ten are dropped; an empty input stays empty.
 */
export function formatPhoneAsTyped(input: string): string {
  const digits = input.replace(/\D/g, "");
  if (!digits) return input.trim() === "+" ? "+" : "";
  const national = (digits.startsWith("1") ? digits.slice(1) : digits).slice(0, 10);
  if (!national) return "+1";
  const area = national.slice(0, 3);
  const exchange = national.slice(3, 6);
  const line = national.slice(6);
  return `+1 (${area}${exchange ? `) ${exchange}` : ""}${line ? `-${line}` : ""}`;
}

/** Spec §5 numeric helper: the digits as an integer string, or empty. */
export function numericString(input: string | null | undefined): string {
  const digits = (input ?? "").replace(/\D/g, "");
  return digits ? String(BigInt(digits)) : "";
}

/** Last four digits for messages like "code sent to •••0100". */
export function maskPhone(e164: string): string {
  return `•••${e164.slice(-4)}`;
}
