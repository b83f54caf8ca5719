/**
 * The texts the engine sends a driver, in their language and through the SMS provider, unless
 * they opted out: a block won, and the platform refusing their connection. Times are the
 * station's, as the driver will see them on arrival.
 */
import type { Db } from "../db/client";
import type { Logger } from "../log";
import { createSmsProvider } from "../providers/sms/provider";
import { type DriverContact, type DriverProfile, readContact } from "./driver-store";

type Language = "en" | "es";
type Driver = Pick<DriverProfile["user"], "phone" | "language" | "app" | "smsOptOut">;
type WonBlock = { stationName: string; startsAt: number; endsAt: number; payCents: number; timeZone: string };

const locales: Record<Language, string> = { en: "en-US", es: "es-US" };
const product = { flex: "Flex", spark: "Spark" } as const;

function when(startsAt: number, endsAt: number, timeZone: string, language: Language): string {
  const day = new Intl.DateTimeFormat(locales[language], { timeZone, weekday: "short", month: "short", day: "numeric" }).format(startsAt);
  const time = new Intl.DateTimeFormat(locales[language], { timeZone, hour: "numeric", minute: "2-digit" });
  return `${day}, ${time.format(startsAt)}–${time.format(endsAt)}`;
}

const dollars = (cents: number) => `$${(cents / 100).toFixed(2)}`;

export function wonBlockMessage(language: Language, block: WonBlock): string {
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

/** Texts the driver a block won; answers the sending (it never fails), or null when they opted out. */
export function textWonBlock(env: Env, log: Logger, driver: Driver, block: WonBlock): Promise<void> | null {
  return driver.smsOptOut ? null : send(env, log, driver.phone, wonBlockMessage(driver.language, block), "capture.won_sms");
}

/** Texts the driver that the platform ended the connection; answers the sending, or null when they opted out. */
export function textDisconnected(env: Env, log: Logger, driver: Driver): Promise<void> | null {
  return driver.smsOptOut ? null : send(env, log, driver.phone, disconnectedMessage(driver.language, driver.app, env.APP_ORIGIN), "capture.disconnected_sms");
}

function send(env: Env, log: Logger, to: string, body: string, event: string): Promise<void> {
  return createSmsProvider(env)
    .send({ to, body })
    .then((outcome) => {
      if (!outcome.ok) log.error(`${event}_failed`, { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage });
    })
    .catch((err: unknown) => log.error(`${event}_failed`, { error: err instanceof Error ? err.message : String(err) }));
}

/** Texts the driver at their number, in their language, unless they opted out, all as D1 says now (the engine's profile may be minutes old). */
export function textInBackground(db: Db, userId: number, log: Logger, send: (driver: DriverContact) => Promise<void> | null): Promise<void> {
  return readContact(db, userId)
    .then(async (driver) => {
      if (driver) await send(driver);
    })
    .catch((err: unknown) => log.error("capture.text_failed", { error: err instanceof Error ? err.message : String(err) }));
}
