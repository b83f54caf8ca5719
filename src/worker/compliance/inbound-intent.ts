/**
 * What an inbound SMS or WhatsApp message asks for: to stop messages, to start them again, or
 * help. Consent may be revoked "by any reasonable means" (FCC 24-24, 2024), so beyond the carriers'
 * keywords we understand plain requests in English and Spanish ("stop texting me", "no más
 * mensajes"). When in doubt between honouring and ignoring a request to stop, we honour it;
 * a negated request ("don't stop", "no pares") is not one.
 *
 * `language` is the sender's when the words say it (a Spanish phrase → es); the universal
 * keywords (STOP, START, which our Spanish opt-out line also asks for) leave it null, and the
 * caller falls back to the account's language.
 */

export type Intent = { kind: "stop" | "start" | "help"; language: "en" | "es" | null; keyword: string };

/** Lower case, accents and punctuation dropped, spaces collapsed: "¡NO MÁS mensajes!" → "no mas mensajes". */
export function normalizeInbound(body: string): string {
  return body
    .normalize("NFD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/[’`´]/g, "'")
    .replace(/[^\p{L}\p{N}' ]+/gu, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/** Single-word (or fixed) messages, after normalising. The carriers' and CTIA's set first. */
const KEYWORDS: Record<string, Intent> = {};
const add = (kind: Intent["kind"], language: Intent["language"], words: string[]) => {
  for (const w of words) KEYWORDS[w] = { kind, language, keyword: w.toUpperCase() };
};
add("stop", null, ["stop", "stopall", "stop all"]);
add("stop", "en", ["unsubscribe", "cancel", "end", "quit", "revoke", "optout", "opt out", "opt-out", "stop it"]);
add("stop", "es", [
  "parar",
  "para",
  "alto",
  "cancelar",
  "baja",
  "detener",
  "basta",
  "salir",
  "desuscribir",
  "anular",
  "no mas",
  "darme de baja",
  "dar de baja",
]);
add("start", null, ["start", "unstop"]);
add("start", "en", ["yes", "subscribe", "resume"]);
add("start", "es", ["alta", "iniciar", "reanudar", "suscribir", "si"]);
add("help", null, ["help", "info"]);
add("help", "es", ["ayuda", "informacion"]);

/** Words around a keyword that do not change what it asks ("STOP please", "Stop!!", "ok stop"). */
const COURTESY = new Set(["please", "pls", "plz", "thanks", "thank you", "thx", "now", "ok", "okay", "por favor", "porfa", "gracias", "ya"]);

function stripCourtesy(text: string): string {
  let t = ` ${text} `;
  for (const word of [...COURTESY].sort((a, b) => b.length - a.length)) t = t.replaceAll(` ${word} `, " ");
  return t.trim().replace(/\s+/g, " ");
}

type Phrase = { pattern: RegExp; intent: Intent };
const phrase = (kind: Intent["kind"], language: "en" | "es", keyword: string, pattern: RegExp): Phrase => ({ pattern, intent: { kind, language, keyword } });

const EN_MESSAGES = "(texts?|text messages?|messages?|msgs?|sms|notifications?|whatsapps?|these|this|them)";
const ES_MESSAGES = "(mensajes?|textos?|sms|whatsapps?|notificaciones?|esto|estos)";

const STOP_PHRASES: Phrase[] = [
  phrase("stop", "en", "STOP TEXTING", /\bstop (texting|messaging|contacting|sending|spamming|emailing|calling|bothering)\b/),
  phrase("stop", "en", "STOP TEXTING", new RegExp(`\\bstop (the |your |all |these )?${EN_MESSAGES}\\b`)),
  phrase("stop", "en", "NO MORE", new RegExp(`\\bno more ${EN_MESSAGES}\\b`)),
  phrase("stop", "en", "DO NOT TEXT", /\b(do not|dont|don't|never) (text|message|contact|sms|whatsapp|send) me\b/),
  phrase("stop", "en", "DO NOT WANT", new RegExp(`\\b(i )?(do not|dont|don't) want (any )?(more )?(your |these |this |the )?${EN_MESSAGES}\\b`)),
  phrase("stop", "en", "REMOVE ME", /\b(remove|delete|take) me (off|from)\b/),
  phrase("stop", "en", "REMOVE ME", /\b(remove|delete) (my )?(number|phone)\b/),
  phrase("stop", "en", "UNSUBSCRIBE", /\b(unsubscribe|opt me out|opt out|optout|leave me alone|cancel (my )?subscription)\b/),
  phrase("stop", "en", "STOP", /\bhow (do|can) i (stop|unsubscribe|opt out)\b/),
  phrase("stop", "es", "NO MAS", new RegExp(`\\bno (quiero )?(recibir )?mas ${ES_MESSAGES}\\b`)),
  phrase("stop", "es", "NO MAS", /\bno (me )?(manden|envien|escriban|mande|envie|escriba|mandes|envies|escribas|contacten|molesten|molestes)\b/),
  phrase("stop", "es", "DEJEN DE", /\b(dejen|deja|dejar|deje) de (enviar|mandar|escribir|contactar|molestar)/),
  phrase("stop", "es", "NO QUIERO", new RegExp(`\\b(ya )?no quiero (recibir )?(sus |tus |estos |los )?${ES_MESSAGES}\\b`)),
  phrase("stop", "es", "BAJA", /\b(darme|dame|denme|quiero darme|dar) de baja\b/),
  phrase("stop", "es", "BORRAME", /\b(borrame|borrenme|sacame|saquenme|eliminame|eliminenme|quitame|quitenme)\b/),
  phrase("stop", "es", "CANCELAR", /\b(cancelar|anular) (la |mi )?(suscripcion|subscripcion)\b/),
  phrase("stop", "es", "PARAR", /\bcomo (dejo de recibir|me doy de baja|paro|cancelo)\b/),
];

/** A request to stop that is negated ("don't stop", "no pares", "no dejen de escribirme") is no request to stop. */
const NEGATED_STOP = /\b(do not|dont|don't|never|please don't) (stop|unsubscribe|remove)\b|\bno (pares|paren|dejen de|dejes de|me des de baja|me borres)\b/;

export function inboundIntent(body: string | null | undefined): Intent | null {
  const text = normalizeInbound(body ?? "");
  if (!text) return null;
  const keyword = KEYWORDS[text] ?? KEYWORDS[stripCourtesy(text)];
  if (keyword) return keyword;
  if (NEGATED_STOP.test(text)) return null;
  for (const p of STOP_PHRASES) if (p.pattern.test(text)) return p.intent;
  return null;
}
