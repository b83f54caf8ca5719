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
};

export function smsEncoding(text: string): SmsEncoding {
  let ext = false;
  for (const ch of text) {
    if (basic.has(ch)) continue;
    if (extended.has(ch)) ext = true;
    else return "UTF16";
  }
  return ext ? "GSM_7BIT_EXT" : "GSM_7BIT";
}

export function countSms(text: string): SmsCount {
  const encoding = smsEncoding(text);
  let length = 0;
  if (encoding === "UTF16") length = text.length;
  else for (const ch of text) length += extended.has(ch) ? 2 : 1;
  const capacity = encoding === "UTF16" ? SMS_CAPACITY.UTF16 : SMS_CAPACITY.GSM;
  const perMessage = length <= capacity.single ? capacity.single : capacity.multi;
  const messages = Math.max(1, Math.ceil(length / perMessage));
  return { encoding, length, perMessage, messages, remaining: messages * perMessage - length };
}

/** Does the text fit one SMS segment (the panels' limit)? */
export function fitsOneSegment(text: string): boolean {
  return countSms(text).messages === 1;
}
