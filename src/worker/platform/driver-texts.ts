/**
 * What the engine tells a driver (docs/notifications.md), in their language: a block won, and the
 * search stopped (the platform ended the connection, is limiting the account, asks for a captcha,
 * or for a signature we do not make). Each is a notification (notifications/notify.ts), sent by the
 * channel the driver chose; the texts here are its SMS and push words. Times are the station's,
 * as the driver will see them on arrival.
 */
import type { Language } from "../../shared/auth";
import type { NotificationContent } from "../notifications/events";

type WonBlock = { platformOfferId: string; stationName: string; startsAt: number; endsAt: number; payCents: number; timeZone: string };

const locales: Record<Language, string> = { en: "en-US", es: "es-US" };
const product = { flex: "Flex", spark: "Spark" } as const;
/** Where a push about the engine opens: the dashboard shows the state and what to do. */
const DASHBOARD = "/flex/dashboard";

function when(startsAt: number, endsAt: number, timeZone: string, language: Language): string {
  const day = new Intl.DateTimeFormat(locales[language], { timeZone, weekday: "short", month: "short", day: "numeric" }).format(startsAt);
  const time = new Intl.DateTimeFormat(locales[language], { timeZone, hour: "numeric", minute: "2-digit" });
  return `${day}, ${time.format(startsAt)}–${time.format(endsAt)}`;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export function wonBlockMessage(language: Language, block: Omit<WonBlock, "platformOfferId">): string {
  const span = when(block.startsAt, block.endsAt, block.timeZone, language);
  return language === "es"
    ? `Blockpilot: ganaste un bloque en ${block.stationName}, ${span}, ${dollars(block.payCents)}. Responde STOP para no recibir mensajes.`
    : `Blockpilot: you won a block at ${block.stationName}, ${span}, ${dollars(block.payCents)}. Reply STOP to opt out.`;
}

export function disconnectedMessage(language: Language, app: "flex" | "spark", origin: string): string {
  const link = `${origin.replace(/\/$/, "")}/flex/login`;
  return language === "es"
    ? `Blockpilot: ${product[app]} cerró la conexión con tu cuenta y el sistema se detuvo. Vuelve a conectarla en ${link}`
    : `Blockpilot: ${product[app]} ended the connection to your account, so the system stopped. Connect it again at ${link}`;
}

/** A block won: once per offer, however often its decision is replayed. */
export function wonBlockNotification(userId: number, block: WonBlock): NotificationContent {
  return {
    key: `blockWon:${userId}:${block.platformOfferId}`,
    url: DASHBOARD,
    words: (language) => ({
      title: (language === "es" ? `Bloque ganado: ${block.stationName}` : `Block won: ${block.stationName}`).slice(0, 120),
      body: `${when(block.startsAt, block.endsAt, block.timeZone, language)}, ${dollars(block.payCents)}`,
      sms: wonBlockMessage(language, block),
    }),
  };
}

/** Why the search stopped, and since when (an occurrence is told once: its key has the time it began). */
export type SearchStop =
  | { reason: "disconnected"; since: number }
  | { reason: "rate_limited"; since: number; until: number }
  | { reason: "captcha" | "signature"; since: number };

type Words = { title: string; body: string; sms: string };

function stopWords(stop: SearchStop, language: Language, app: "flex" | "spark", origin: string): Words {
  const p = product[app];
  const dashboard = `${origin.replace(/\/$/, "")}${DASHBOARD}`;
  const es = language === "es";
  switch (stop.reason) {
    case "disconnected":
      return es
        ? { title: `${p} se desconectó`, body: "El sistema se detuvo. Vuelve a conectar tu cuenta.", sms: disconnectedMessage(language, app, origin) }
        : { title: `${p} disconnected`, body: "The system stopped. Connect your account again.", sms: disconnectedMessage(language, app, origin) };
    case "rate_limited": {
      // Minutes from when it began: a text cannot know the driver's zone, a duration needs none.
      const minutes = Math.max(1, Math.ceil((stop.until - stop.since) / 60_000));
      return es
        ? {
            title: `${p} limita tu cuenta`,
            body: `La búsqueda está en pausa unos ${minutes} min y sigue sola después.`,
            sms: `Blockpilot: ${p} limita tu cuenta; el sistema se pausa unos ${minutes} min y luego sigue solo. Responde STOP para no recibir mensajes.`,
          }
        : {
            title: `${p} is limiting your account`,
            body: `The search is paused for about ${minutes} min, then resumes on its own.`,
            sms: `Blockpilot: ${p} is limiting your account, so the search is paused for about ${minutes} min. It resumes on its own. Reply STOP to opt out.`,
          };
    }
    case "captcha":
      return es
        ? {
            title: `${p} pide un captcha`,
            body: `No se aceptan bloques. Resuélvelo en la app de ${p} y pulsa “Ya lo resolví” en tu panel.`,
            sms: `Blockpilot: ${p} pide un captcha y no se aceptan bloques. Resuélvelo en la app de ${p} y avisa en ${dashboard}`,
          }
        : {
            title: `${p} asks for a captcha`,
            body: `No blocks are accepted until it is solved. Solve it in the ${p} app, then press “I solved it” on your dashboard.`,
            sms: `Blockpilot: ${p} asks for a captcha, so no blocks are accepted. Solve it in the ${p} app, then tell us at ${dashboard}`,
          };
    case "signature":
      return es
        ? {
            title: `${p} detuvo la búsqueda`,
            body: `${p} pide una firma de su app que no hacemos. Soporte ya lo sabe; te avisamos cuando siga.`,
            sms: `Blockpilot: ${p} pide una firma de su app que no hacemos y el sistema se detuvo. Soporte ya lo sabe. Detalles en ${dashboard}`,
          }
        : {
            title: `${p} stopped the search`,
            body: `${p} asks for its app's signature, which we do not make. Support knows; the search resumes when they clear it.`,
            sms: `Blockpilot: ${p} asks for a signature we do not make, so the search stopped. Support knows. Details at ${dashboard}`,
          };
  }
}

/** The search stopped: once per occurrence. */
export function searchStoppedNotification(userId: number, app: "flex" | "spark", origin: string, stop: SearchStop): NotificationContent {
  return {
    key: `searchStopped:${userId}:${stop.reason}:${stop.since}`,
    url: DASHBOARD,
    words: (language) => stopWords(stop, language, app, origin),
  };
}
