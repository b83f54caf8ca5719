/**
 * The consent wording people agree to, by version. The ledger stores the exact text and its
 * version, so a new wording gets a new version and old records keep saying what was shown.
 */
export const REGISTRATION_CONSENT = {
  version: "registration-2026-10",
  en: "Send me offers and news from Blockpilot by text message and WhatsApp, sent automatically. Message frequency varies; message and data rates may apply. Consent is not a condition of service. Reply STOP to opt out, HELP for help.",
  es: "Envíenme ofertas y novedades de Blockpilot por SMS y WhatsApp, enviadas automáticamente. La frecuencia varía; pueden aplicarse tarifas de mensajes y datos. El consentimiento no es condición del servicio. Responde STOP para no recibir más, AYUDA para ayuda.",
} as const;

export type ConsentText = { version: string; en: string; es: string };

/** The contact form's wording (the form that records it passes this version). @public */
export const CONTACT_FORM_CONSENT = {
  version: "contact-form-2026-10",
  en: "You may text or WhatsApp me about my question and about Blockpilot offers. Message and data rates may apply. Reply STOP to opt out.",
  es: "Pueden escribirme por SMS o WhatsApp sobre mi consulta y sobre ofertas de Blockpilot. Pueden aplicarse tarifas de mensajes y datos. Responde STOP para no recibir más.",
} as const;

/**
 * The one text that asks a number someone ticked the contact form's box for to confirm it
 * (docs/messaging-rules.md): GSM-7 characters only, one segment each, as the code texts.
 */
export const CONSENT_CONFIRMATION_REQUEST = {
  en: "Blockpilot: Reply YES to get offers from Blockpilot by text and WhatsApp. Msg & data rates may apply. Reply STOP to opt out.",
  es: "Blockpilot: Responde SI para recibir ofertas de Blockpilot por SMS y WhatsApp. Pueden aplicarse tarifas de mensajes y datos. Responde STOP para salir.",
} as const;
