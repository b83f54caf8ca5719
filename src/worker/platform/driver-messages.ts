/**
 * The texts the engine sends a driver, in their language: a block won, and the platform
 * refusing their connection. Times are the station's, as the driver will see them on arrival.
 */
type Language = "en" | "es";

const locales: Record<Language, string> = { en: "en-US", es: "es-US" };
const product = { flex: "Flex", spark: "Spark" } as const;

function when(startsAt: number, endsAt: number, timeZone: string, language: Language): string {
  const day = new Intl.DateTimeFormat(locales[language], { timeZone, weekday: "short", month: "short", day: "numeric" }).format(startsAt);
  const time = new Intl.DateTimeFormat(locales[language], { timeZone, hour: "numeric", minute: "2-digit" });
  return `${day}, ${time.format(startsAt)}–${time.format(endsAt)}`;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export function wonBlockMessage(
  language: Language,
  block: { stationName: string; startsAt: number; endsAt: number; payCents: number; timeZone: string },
): string {
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
