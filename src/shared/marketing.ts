import { countSms } from "./sms";

/**
 * Marketing SMS carry an opt-out instruction (CTIA Messaging Principles and Best Practices, §5):
 * when the text has none, this line is appended, in the message's language, and the segment
 * limit counts it. Shared so the panels' counter and the Worker agree to the character.
 */
export const OPT_OUT_LINES = {
  en: "Reply STOP to opt out",
  es: "Responde STOP para darte de baja",
} as const;

export type MessageLanguage = keyof typeof OPT_OUT_LINES;

/** What the admin picks for a campaign: marketing, or one of the transactional kinds. */
export const CAMPAIGN_PURPOSES = ["marketing", "service", "payment", "code"] as const;
export type CampaignPurpose = (typeof CAMPAIGN_PURPOSES)[number];
export type CampaignCategory = "marketing" | "transactional";
export const categoryOf = (purpose: CampaignPurpose): CampaignCategory => (purpose === "marketing" ? "marketing" : "transactional");

/** Does the text already tell people how to stop? Any opt-out keyword standing as a word counts. */
export function hasOptOutInstruction(text: string): boolean {
  return /\b(STOP|STOPALL|UNSUBSCRIBE|CANCEL|END|QUIT|OPTOUT|PARAR|ALTO|BAJA|CANCELAR)\b/.test(text);
}

/** The text a marketing SMS is sent as: the admin's text, plus the opt-out line when it lacks one. */
export function marketingSmsBody(text: string, language: MessageLanguage): string {
  const trimmed = text.trim();
  if (hasOptOutInstruction(trimmed)) return trimmed;
  return `${trimmed}\n${OPT_OUT_LINES[language]}`;
}

/** The body as it will be sent for a purpose (transactional texts go as written), and its count. */
export function smsBodyFor(text: string, purpose: CampaignPurpose, language: MessageLanguage) {
  const body = purpose === "marketing" ? marketingSmsBody(text, language) : text.trim();
  return { body, count: countSms(body) };
}
